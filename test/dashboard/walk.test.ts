import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { createCustomerToken, startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { settled } from '../../harness/list-jobs.js';
import { go, heading, launchBrowser, openPage, visited, type DashboardPage } from '../support/browser.js';

/**
 * The defects a customer's walk through the dashboard found (issue #38), each checked in Chromium
 * against the real service: page widths at 1,280 and 390 px, private lists where lists are picked
 * and in a name search, errors as sentences, loading states, the lists a screening left out,
 * and the small texts and confirmations.
 */
const LISTED_BTC = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let customer: { customerId: number; token: string };
let slug: string;
const opened: DashboardPage[] = [];
const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };

function api(path: string, token: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${svc.url}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
}

before(async () => {
  svc = await startTestService({ AUDIT_STRICT: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true' });
  browser = await launchBrowser();
  customer = await createCustomerToken(svc.url, 1000, 'Contoso Pay');
  // A private list of names, of the "risk" type (not a sanctions list).
  const created = await api('/account/lists', customer.token, {
    method: 'POST',
    body: JSON.stringify({
      name: 'watch',
      display_name: 'Internal watch list',
      list_type: 'risk',
      entity_types: ['name'],
    }),
  });
  assert.equal(created.status, 200, await created.clone().text());
  slug = `c${customer.customerId}.watch`;
  const res = await api(`/account/lists/${slug}/upload`, customer.token, {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: 'entity_type,value,metadata\nname,Quentin Zabrowski-Morel,\n',
  });
  const up = await settled(
    svc.url,
    { status: res.status, headers: res.headers, body: await res.json() },
    {
      authorization: `Bearer ${customer.token}`,
    },
  );
  assert.equal(up.status, 200, JSON.stringify(up.body));
});

after(async () => {
  await browser?.close();
  await svc?.close();
});

async function page(viewport?: { width: number; height: number }): Promise<Page> {
  const p = await openPage(browser, svc.url);
  opened.push(p);
  if (viewport) await p.page.setViewportSize(viewport);
  return p.page;
}

async function signIn(p: Page): Promise<void> {
  await p.goto('/dashboard');
  await p.locator('#credential').fill(customer.token);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await heading(p, 'Overview');
}

async function signInOperator(p: Page): Promise<void> {
  await p.goto('/dashboard/admin');
  await p.getByLabel('Operator').check();
  await p.getByLabel('Admin key').fill(TEST_ADMIN_KEY);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await heading(p, 'Operator overview');
}

/** The page's scroll width, and the elements that end beyond the window (to say what widens it). */
const pageWidth = (p: Page) =>
  p.evaluate(() => {
    type El = { tagName: string; className: string; getBoundingClientRect(): { right: number } };
    const d = (
      globalThis as unknown as {
        document: { documentElement: { scrollWidth: number; clientWidth: number }; querySelectorAll(s: string): El[] };
      }
    ).document;
    const wider = [...d.querySelectorAll('main *')]
      .filter((e) => e.getBoundingClientRect().right > d.documentElement.clientWidth + 1)
      .slice(0, 5)
      .map((e) => `${e.tagName}.${e.className}`);
    return { width: d.documentElement.scrollWidth, wider };
  });

async function assertFits(p: Page, width: number, name: string): Promise<void> {
  const got = await pageWidth(p);
  assert.equal(got.width, width, `${name}: ${got.wider.join(', ')}`);
}

test('private lists: in the Screen page’s list picker and the audit trail’s filter; a name on one is found by the default name search', async () => {
  const p = await page();
  await signIn(p);
  await go(p, 'Screen', 'Screen a value');
  await p.getByText(/Lists to screen/).click();
  await p.getByRole('checkbox', { name: 'Internal watch list' }).waitFor();
  await p.getByLabel('Kind').selectOption('name');
  await p.getByRole('textbox', { name: 'Value' }).fill('Quentin Zabrowski-Morel');
  await p.getByRole('button', { name: 'Screen (1 credit)' }).click();
  const result = p.getByTestId('screen-result');
  await result.getByRole('cell', { name: 'Internal watch list', exact: true }).waitFor();
  await result.getByText('flagged', { exact: true }).waitFor();

  await go(p, 'Audit trail');
  await p.getByLabel('List').selectOption(slug);
  await p.getByRole('button', { name: 'Apply' }).click();
  await p.getByTestId('audit-total').filter({ hasText: '1 match' }).waitFor();
  assert.equal(await p.getByTestId('audit-total').textContent(), '1 match');
  assert.equal(await p.getByRole('cell', { name: slug, exact: true }).count(), 1);
});

test('no page is wider than the window: list status at 1,280 px (its refresh outcome in view), tokens, private lists and the overview at 390 px', async () => {
  await api(`/screen/crypto/${LISTED_BTC}`, customer.token);
  const o = await page();
  await signInOperator(o);
  await go(o, 'List status');
  const row = o.getByRole('row', { name: /ofac_crypto/ });
  await row.getByRole('button', { name: 'Refresh' }).waitFor();
  await assertFits(o, 1280, 'list status');
  const table = o.locator('.table-wrap[aria-label="Lists"]');
  assert.deepEqual(
    await table.evaluate((el) => {
      const box = el as unknown as { scrollWidth: number; clientWidth: number };
      return box.scrollWidth <= box.clientWidth;
    }),
    true,
    'the list names and their Refresh buttons are seen together, without scrolling the table',
  );
  await row.getByRole('button', { name: 'Refresh' }).click();
  const outcome = o.getByRole('status').filter({ hasText: 'ofac_crypto: checked, unchanged.' });
  await outcome.waitFor();
  const inView = await outcome.evaluate((el) => {
    const box = (el as unknown as { getBoundingClientRect(): { top: number; bottom: number } }).getBoundingClientRect();
    return box.top >= 0 && box.bottom <= (globalThis as unknown as { innerHeight: number }).innerHeight;
  });
  assert.equal(inView, true, 'the refresh outcome is in the visible area');

  const p = await page(PHONE);
  await signIn(p);
  await p.getByRole('region', { name: 'Recent matches' }).getByRole('cell', { name: LISTED_BTC }).first().waitFor();
  await assertFits(p, 390, 'overview');
  for (const [path, title, ready] of [
    ['tokens', 'API tokens', 'Your tokens'],
    ['private-lists', 'Private lists', 'Your lists'],
  ]) {
    await p.goto(`/dashboard/${path}`);
    await heading(p, title);
    await p.getByRole('region', { name: ready }).getByRole('row').first().waitFor();
    await assertFits(p, 390, path);
  }
  await visited(p, 'walk-private-lists-390');
});

test('Screen: a kind change clears the previous kind’s error; a result names the lists not screened', async () => {
  const p = await page();
  await signIn(p);
  await go(p, 'Screen', 'Screen a value');
  await p.getByRole('textbox', { name: 'Value' }).fill(LISTED_BTC);
  await p.getByLabel('As of (optional)').fill('yesterday');
  await p.getByRole('button', { name: 'Screen (1 credit)' }).click();
  await p.getByRole('alert').waitFor();
  await p.getByLabel('Kind').selectOption('email');
  await p.getByRole('alert').waitFor({ state: 'detached' });

  await p.getByLabel('Kind').selectOption('crypto');
  await p.getByRole('textbox', { name: 'Value' }).fill(LISTED_BTC);
  await p.getByLabel('As of (optional)').fill('');
  await p.getByRole('button', { name: 'Screen (1 credit)' }).click();
  const missing = p.getByTestId('screen-result').getByTestId('lists-not-screened');
  await missing.waitFor();
  const stats = (await (await fetch(`${svc.url}/api/v1/stats`)).json()) as {
    sources: Record<string, { last_error: string | null; last_updated: string | null }>;
  };
  const lists = (await (await fetch(`${svc.url}/api/v1/screen/lists`)).json()) as {
    slug: string;
    display_name: string;
  }[];
  const names = new Map(lists.map((l) => [l.slug, l.display_name]));
  const expected = Object.entries(stats.sources)
    .filter(([, s]) => !s.last_updated)
    .map(([s]) => `${names.get(s)} (not available on this service)`);
  assert.ok(
    expected.some((e) => e.startsWith('EU')),
    'the EU list has no data in the test service',
  );
  assert.equal(await missing.textContent(), expected.join('; '));
  await visited(p, 'walk-screen-not-screened');
});

test('Usage with From after To: one sentence, none of the previous range’s charts', async () => {
  const p = await page();
  await signIn(p);
  await go(p, 'Usage');
  await p.getByRole('figure').first().waitFor();
  await p.getByLabel('From', { exact: true }).fill('2026-01-20');
  await p.getByLabel('To', { exact: true }).fill('2026-01-10');
  const alert = p.getByRole('alert');
  await alert.waitFor();
  assert.deepEqual(await alert.allTextContents(), [
    'The From date is after the To date: choose a From on or before the To date.',
  ]);
  assert.equal(await p.getByRole('figure').count(), 0);
  assert.equal(await p.getByRole('table').count(), 0);
  await visited(p, 'walk-usage-bad-range');
});

test('audit trail: after a filter is applied, it shows that it loads, without the old rows', async () => {
  await api(`/screen/crypto/${LISTED_BTC}`, customer.token);
  const p = await page();
  await signIn(p);
  await go(p, 'Audit trail');
  await p.getByRole('cell', { name: LISTED_BTC }).first().waitFor();
  // The next audit answer is held until the loading state has been seen.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await p.route(
    (url) => url.pathname === '/api/v1/account/audit',
    async (route) => {
      await held;
      await route.continue();
    },
  );
  await p.getByLabel('Value contains').fill('no-such-value');
  await p.getByRole('button', { name: 'Apply' }).click();
  await p.getByRole('region', { name: 'Matches' }).getByRole('status').filter({ hasText: 'Loading…' }).waitFor();
  assert.equal(await p.getByRole('cell', { name: LISTED_BTC }).count(), 0, 'the old rows are gone');
  release();
  await p.getByText('No matches for these filters.').waitFor();
  await p.unroute((url) => url.pathname === '/api/v1/account/audit');
});

test('lists page: a list without data says "not available on this service", never a server path or setting', async () => {
  const p = await page();
  await signIn(p);
  await go(p, 'Lists');
  const row = p.getByRole('row', { name: /eu_fsf/ });
  await row.getByText('not available on this service', { exact: true }).waitFor();
  const text = (await p.locator('main').textContent()) ?? '';
  assert.doesNotMatch(text, /SOURCE_DIR|MIXER_RPC_URL|\/eu\//);
});

test('a page that cannot be loaded speaks of the connection, not of an update', async () => {
  const p = await page();
  await signIn(p);
  await p.route('**/dashboard/assets/**', (route) => route.abort('internetdisconnected'));
  await p.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Billing', exact: true }).click();
  const alert = p.getByRole('alert');
  await alert.waitFor();
  assert.equal(
    await alert.textContent(),
    'This page could not be loaded: the service could not be reached. Check your connection, then reload.',
  );
  await p.unroute('**/dashboard/assets/**');
});

test('webhooks: rotating a secret asks for confirmation first', async () => {
  const created = await api('/account/webhooks', customer.token, {
    method: 'POST',
    body: JSON.stringify({ url: 'http://127.0.0.1:9/rotate-me', enabled: true }),
  });
  assert.equal(created.status, 200);
  const p = await page();
  await signIn(p);
  await go(p, 'Webhooks');
  const endpoint = p.getByRole('region', { name: 'Endpoints' }).getByRole('row').filter({ hasText: '/rotate-me' });
  await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
  const dialog = p.getByRole('dialog', { name: 'Rotate the signing secret?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await p.getByTestId('secret').count(), 0, 'cancelled: nothing rotated');
  await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
  await dialog.getByRole('button', { name: 'Rotate secret' }).click();
  assert.match((await p.getByTestId('secret').textContent()) ?? '', /^whsec_/);
});

test('operator: the menu keeps Customers highlighted on a customer’s page; a decided plan request shows no current plan', async () => {
  const plan = (await (
    await fetch(`${svc.url}/api/v1/admin/plans`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Scale', monthly_quota: 90_000 }),
    })
  ).json()) as { id: number };
  const asked = (await (
    await api('/account/plan-requests', customer.token, { method: 'POST', body: JSON.stringify({ plan_id: plan.id }) })
  ).json()) as { id: number };
  await fetch(`${svc.url}/api/v1/admin/plan-requests/${asked.id}/approve`, {
    method: 'POST',
    headers: admin,
    body: '{}',
  });

  const o = await page();
  await signInOperator(o);
  await go(o, 'Plans');
  await o.getByLabel('Show').selectOption('');
  const row = o.getByTestId('admin-plan-requests').getByRole('row').filter({ hasText: 'Contoso Pay' });
  await row.getByText('approved').waitFor();
  assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(2, 4), ['—', 'Scale (90,000/month)']);

  await o.goto(`/dashboard/admin/customers/${customer.customerId}`);
  await heading(o, 'Contoso Pay');
  const current = o.getByRole('navigation', { name: 'Pages' }).locator('[aria-current="page"]');
  assert.equal(await current.textContent(), 'Customers');
});

after(() => {
  for (const { problems } of opened) assert.deepEqual(problems, [], 'no CSP violation or page error on any page');
});
