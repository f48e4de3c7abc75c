import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { go, heading, launchBrowser, openPage, visited, type DashboardPage } from '../support/browser.js';

/**
 * The operator's pages in Chromium against the real service: sign-in with ADMIN_KEY exchanged for
 * a session token, customers (create with a quota, change it, tokens), plans and plan requests,
 * list status and refresh, service health, sign-out revoking the session.
 */
let svc: TestService;
let browser: Browser;
let operator: DashboardPage;
let p: Page;

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };

before(async () => {
  svc = await startTestService();
  browser = await launchBrowser();
  operator = await openPage(browser, svc.url);
  p = operator.page;
});

after(async () => {
  await browser?.close();
  await svc?.close();
});

function stored(page: Page): Promise<string> {
  return page.evaluate(() =>
    JSON.stringify((globalThis as unknown as { sessionStorage: Record<string, string> }).sessionStorage),
  );
}

/** The session token the dashboard keeps. */
async function sessionToken(page: Page): Promise<string | undefined> {
  const all = JSON.parse(await stored(page)) as Record<string, string>;
  return Object.values(all)
    .map((v) => (JSON.parse(v) as { token?: string }).token)
    .find(Boolean);
}

test('a wrong admin key is refused with an error; the right one opens an operator session and the key is not kept', async () => {
  await p.goto('/dashboard/admin');
  await heading(p, 'Sign in');
  await p.getByLabel('Operator').check();
  await p.getByLabel('Admin key').fill('not-the-admin-key-at-all');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('alert').filter({ hasText: 'Wrong admin key.' }).waitFor();
  await p.getByLabel('Admin key').fill(TEST_ADMIN_KEY);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await heading(p, 'Operator overview');
  const session = await stored(p);
  assert.ok(!session.includes(TEST_ADMIN_KEY), 'the admin key is not in sessionStorage');
  const token = await sessionToken(p);
  assert.match(token ?? '', /^op_[0-9A-Za-z]{32}$/, 'an operator session token is kept instead');
  assert.equal(
    (await fetch(`${svc.url}/api/v1/admin/plans`, { headers: { authorization: `Bearer ${token}` } })).status,
    200,
  );
  await visited(p, 'admin-overview');
});

test('the operator creates a customer with a quota, changes it, and creates its first token', async () => {
  await go(p, 'Customers');
  await visited(p, 'admin-customers-empty');
  await p.getByLabel('Name').fill('Northwind Exchange');
  await p.getByLabel('Own monthly quota').fill('500');
  await p.getByRole('button', { name: 'Create customer' }).click();
  await heading(p, 'Northwind Exchange');
  await p.getByText('500', { exact: true }).first().waitFor();
  const id = Number(/customers\/(\d+)/.exec(p.url())![1]);

  await p.getByLabel('Own monthly quota').fill('750');
  await p.getByRole('button', { name: 'Save' }).click();
  await p.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  const detail = (await (await fetch(`${svc.url}/api/v1/admin/customers/${id}`, { headers: admin })).json()) as {
    monthly_quota: number;
    quota: { monthly_quota: number };
  };
  assert.equal(detail.monthly_quota, 750);
  assert.equal(detail.quota.monthly_quota, 750);

  await p.getByLabel('Token name').fill('first token');
  await p.getByRole('button', { name: 'Create token' }).click();
  const token = (await p.getByTestId('secret').textContent())!;
  const account = await fetch(`${svc.url}/api/v1/account`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(account.status, 200);
  assert.equal(((await account.json()) as { name: string }).name, 'Northwind Exchange');
  await p.getByRole('button', { name: 'I have copied it' }).click();
  await p.getByRole('row', { name: /first token/ }).waitFor();
  await visited(p, 'admin-customer');

  await go(p, 'Customers');
  const row = p.getByRole('row', { name: /Northwind Exchange/ });
  // The list renders after the page's heading: wait for the row (allTextContents does not wait).
  await row.waitFor();
  assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(1), ['—', '750', '0', '750']);
  await visited(p, 'admin-customers');
});

test('plans: the operator offers a plan, a customer asks for it, the operator approves it', async () => {
  await go(p, 'Plans');
  await p.getByLabel('Name').fill('Scale');
  await p.getByLabel('Credits per month').fill('100000');
  await p.getByRole('button', { name: 'Create plan' }).click();
  await p.getByLabel('Monthly quota of Scale').waitFor();

  const c = (await (
    await fetch(`${svc.url}/api/v1/admin/customers`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Contoso Pay', monthly_quota: 100 }),
    })
  ).json()) as { id: number };
  const t = (await (
    await fetch(`${svc.url}/api/v1/admin/customers/${c.id}/tokens`, { method: 'POST', headers: admin, body: '{}' })
  ).json()) as { token: string };
  const customer = { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' };
  const plans = (await (await fetch(`${svc.url}/api/v1/account/plans`, { headers: customer })).json()) as {
    id: number;
    name: string;
  }[];
  const scale = plans.find((x) => x.name === 'Scale')!;
  const asked = await fetch(`${svc.url}/api/v1/account/plan-requests`, {
    method: 'POST',
    headers: customer,
    body: JSON.stringify({ plan_id: scale.id, note: 'Black Friday volume' }),
  });
  assert.equal(asked.status, 200);

  await p.reload();
  await heading(p, 'Plans');
  const request = p.getByTestId('admin-plan-requests').getByRole('row', { name: /Contoso Pay/ });
  await request.getByText('Black Friday volume').waitFor();
  await visited(p, 'admin-plans');
  await request.getByRole('button', { name: 'Approve' }).click();
  const dialog = p.getByRole('dialog', { name: /Approve Contoso Pay/ });
  await dialog.getByLabel('Note to the customer (optional)').fill('Approved for Q4');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await p.getByText('No requests.').waitFor();

  const account = (await (await fetch(`${svc.url}/api/v1/account`, { headers: customer })).json()) as {
    plan: string;
    quota: { monthly_quota: number };
  };
  assert.deepEqual([account.plan, account.quota.monthly_quota], ['Scale', 100000]);
  const [outcome] = (await (await fetch(`${svc.url}/api/v1/account/plan-requests`, { headers: customer })).json()) as {
    status: string;
    decision_note: string;
  }[];
  assert.deepEqual([outcome.status, outcome.decision_note], ['approved', 'Approved for Q4']);
});

test('list status: versions and counts, a refresh checks a list now', async () => {
  await go(p, 'List status');
  const row = p.getByRole('row', { name: /ofac_crypto/ });
  await row.getByRole('button', { name: 'Refresh' }).waitFor();
  await visited(p, 'admin-lists');
  await row.getByRole('button', { name: 'Refresh' }).click();
  await p.getByRole('status').filter({ hasText: 'ofac_crypto: checked, unchanged.' }).waitFor();
});

test('operator lists: create one, upload a CSV (its values screened for every customer), delete it', async () => {
  const value = '0x7777777777777777777777777777777777777704';
  await go(p, 'List status');
  await p.getByLabel('Slug').fill('blocked_wallets');
  await p.getByLabel('Display name').fill('Blocked wallets');
  await p.getByLabel('List type').selectOption('sanctions');
  await p.getByRole('button', { name: 'Create list' }).click();
  const row = p.getByRole('region', { name: 'Operator lists' }).getByRole('row').filter({ hasText: 'blocked_wallets' });
  await row.waitFor();
  await row.getByRole('button', { name: 'Upload to blocked_wallets' }).click();
  const dialog = p.getByRole('dialog', { name: 'Upload entries to Blocked wallets' });
  await dialog.getByLabel('File').setInputFiles({
    name: 'blocked.ndjson',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(`{"entity_type":"crypto_address","value":"${value}","metadata":{"case":"F-12"}}\n`),
  });
  assert.equal(
    await dialog.getByLabel('Format').inputValue(),
    'application/x-ndjson',
    'the format follows the file name',
  );
  await dialog.getByRole('button', { name: 'Upload' }).click();
  await p.getByRole('status').filter({ hasText: 'blocked_wallets: new version' }).waitFor();
  await row.getByRole('cell', { name: '1', exact: true }).waitFor();
  await visited(p, 'admin-operator-lists');

  const c = (await (
    await fetch(`${svc.url}/api/v1/admin/customers`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Fabrikam', monthly_quota: 10 }),
    })
  ).json()) as { id: number };
  const t = (await (
    await fetch(`${svc.url}/api/v1/admin/customers/${c.id}/tokens`, { method: 'POST', headers: admin, body: '{}' })
  ).json()) as { token: string };
  const screened = (await (
    await fetch(`${svc.url}/api/v1/screen/crypto/${value}`, { headers: { authorization: `Bearer ${t.token}` } })
  ).json()) as { matches: { list: string }[] };
  assert.deepEqual(
    screened.matches.map((m) => m.list),
    ['blocked_wallets'],
  );

  await row.getByRole('button', { name: 'Delete blocked_wallets' }).click();
  await p.getByRole('dialog', { name: 'Delete this list?' }).getByRole('button', { name: 'Delete list' }).click();
  await p.getByRole('status').filter({ hasText: 'Deleted blocked_wallets.' }).waitFor();
  assert.equal(await row.count(), 0);
});

test('service health: readiness and the traffic of the last minute', async () => {
  await go(p, 'Service health');
  await p.getByText('ready', { exact: true }).waitFor();
  await p.getByRole('cell', { name: 'GET /api/v1/admin/plans' }).waitFor();
  await visited(p, 'admin-health');
});

test('sign-out revokes the operator session on the server', async () => {
  const token = (await sessionToken(p))!;
  await p.getByRole('button', { name: 'Sign out' }).click();
  await heading(p, 'Sign in');
  assert.equal(await stored(p), '{}');
  assert.equal(
    (await fetch(`${svc.url}/api/v1/admin/plans`, { headers: { authorization: `Bearer ${token}` } })).status,
    401,
  );
  assert.deepEqual(operator.problems, [], 'no CSP violation, page error or dialog');
});
