import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { createCustomerToken, startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { go, heading, launchBrowser, openPage, visited, type DashboardPage } from '../support/browser.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

/**
 * The customer's dashboard in Chromium against the real service: sign-in, screening and the
 * audit trail, tokens, webhooks, billing, markup in values, accessibility of every page.
 * AUDIT_STRICT makes each screening answer wait for its audit rows, so the pages that read them
 * afterwards see them.
 */
const LISTED_BTC = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let customer: { customerId: number; token: string; tokenId: number };
const opened: DashboardPage[] = [];

before(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_LOOPBACK: 'true', AUDIT_STRICT: 'true' });
  browser = await launchBrowser();
  receiver = await startReceiver();
  customer = await createCustomerToken(svc.url, 1000, 'Acme Payments');
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

async function page(): Promise<Page> {
  const p = await openPage(browser, svc.url);
  opened.push(p);
  return p.page;
}

async function signIn(p: Page, token = customer.token): Promise<void> {
  await p.goto('/dashboard');
  await p.locator('#credential').fill(token);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await heading(p, 'Overview');
}

function api(path: string, token: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${svc.url}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
}

test('a wrong token shows an error on the sign-in page, not a blank page', async () => {
  const p = await page();
  await p.goto('/dashboard/overview');
  await heading(p, 'Sign in');
  await visited(p, 'sign-in');
  await p.locator('#credential').fill('sk_00000000000000000000000000000000');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('alert').filter({ hasText: 'This API token is not valid' }).waitFor();
  await p.locator('#credential').fill('not a token');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('alert').filter({ hasText: 'This API token is not valid' }).waitFor();
  assert.equal(
    await p.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length),
    0,
  );
  await visited(p, 'sign-in-error');
});

test('keyboard-only sign-in; the token is kept in sessionStorage only (no URL, no cookie); sign-out clears it', async () => {
  const { page: p, context } = opened[opened.push(await openPage(browser, svc.url)) - 1];
  await p.goto('/dashboard');
  await heading(p, 'Sign in');
  for (
    let i = 0;
    i < 10 &&
    (await p.evaluate(
      () =>
        (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id,
    )) !== 'credential';
    i++
  ) {
    await p.keyboard.press('Tab');
  }
  await p.keyboard.type(customer.token);
  await p.keyboard.press('Enter');
  await heading(p, 'Overview');
  assert.equal(await p.getByTestId('who').textContent(), 'Acme Payments');
  assert.ok(!p.url().includes(customer.token));
  assert.deepEqual(await context.cookies(), []);
  const stored = await p.evaluate(() =>
    JSON.stringify((globalThis as unknown as { sessionStorage: Record<string, string> }).sessionStorage),
  );
  assert.ok(stored.includes(customer.token));
  await p.getByRole('button', { name: 'Sign out' }).click();
  await heading(p, 'Sign in');
  assert.equal(
    await p.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length),
    0,
  );
});

test('screen a listed address on the Screen page (metered), then find the match in the audit trail and in the overview chart', async () => {
  const p = await page();
  await signIn(p);
  await visited(p, 'overview-empty');
  const before = (await (await api('/account', customer.token)).json()) as { quota: { used: number } };
  await go(p, 'Screen', 'Screen a value');
  await p.getByText('Metered: each screening here costs one credit').waitFor();
  await p.getByRole('textbox', { name: 'Value' }).fill(LISTED_BTC);
  await p.getByRole('button', { name: 'Screen (1 credit)' }).click();
  const result = p.getByTestId('screen-result');
  await result.getByText('sanctioned', { exact: true }).waitFor();
  assert.match((await result.textContent()) ?? '', /OFAC/);
  assert.match(
    (await result.getByTestId('match-explanations').textContent()) ?? '',
    /OFAC Sanctioned Digital Currency Addresses: The Bitcoin address is listed on OFAC Sanctioned Digital Currency Addresses as /,
    'the sentence under each match',
  );
  await visited(p, 'screen');
  const afterScreening = (await (await api('/account', customer.token)).json()) as { quota: { used: number } };
  assert.equal(afterScreening.quota.used, before.quota.used + 1, 'charged one credit');

  await go(p, 'Audit trail');
  await p.getByRole('cell', { name: LISTED_BTC }).first().waitFor();
  assert.equal(await p.getByRole('cell', { name: 'ofac_crypto', exact: true }).count(), 1);
  await visited(p, 'audit');

  await go(p, 'Overview');
  const today = new Date().toISOString().slice(0, 10);
  const chart = p.getByRole('figure', { name: /Requests and matches per day/ });
  await chart.getByText('Show data').click();
  const row = chart.getByRole('row', { name: new RegExp(today) });
  // allTextContents does not wait for the rows to render.
  await row.waitFor();
  assert.deepEqual(
    await row.getByRole('cell').allTextContents(),
    ['1', '2'],
    'one request, two matches (ofac_sdn and ofac_crypto) today',
  );
  const perList = p.getByRole('figure', { name: /Matches per list/ });
  await perList.getByText('Show data').click();
  const listRow = perList.getByRole('row', { name: /ofac_crypto/ });
  await listRow.waitFor();
  assert.deepEqual(await listRow.getByRole('cell').allTextContents(), ['1']);
  await p.getByRole('cell', { name: LISTED_BTC }).first().waitFor();
  await visited(p, 'overview');
});

test('audit trail: filter by value and list, open a match’s detail, export the filtered set as CSV, page by keyset', async () => {
  for (const value of [LISTED_BTC, LISTED_BTC, 'someone@mailinator.com']) {
    assert.equal(
      (await api(value.includes('@') ? `/screen/email/${value}` : `/screen/crypto/${value}`, customer.token)).status,
      200,
    );
  }
  const count = async (query: string) =>
    ((await (await api(`/account/audit?${query}`, customer.token)).json()) as { total: number }).total;
  const all = await count('');
  const filtered = await count('list=ofac_crypto&value_contains=12qtd5');
  assert.ok(filtered >= 2 && filtered < all);
  const p = await page();
  await signIn(p);
  await go(p, 'Audit trail');
  await p
    .getByTestId('audit-total')
    .filter({ hasText: `${all} matches` })
    .waitFor();
  await p.getByLabel('Value contains').fill('12qtd5');
  await p.getByLabel('List').selectOption('ofac_crypto');
  await p.getByRole('button', { name: 'Apply' }).click();
  await p
    .getByTestId('audit-total')
    .filter({ hasText: `${filtered} matches` })
    .waitFor();
  assert.equal(await p.getByRole('cell', { name: 'ofac_sdn', exact: true }).count(), 0);
  assert.equal(await p.getByRole('cell', { name: 'ofac_crypto', exact: true }).count(), filtered);

  await p
    .getByRole('row', { name: /ofac_crypto/ })
    .first()
    .getByRole('button')
    .click();
  const dialog = p.getByRole('dialog', { name: 'Match detail' });
  await dialog.getByText('Listing metadata', { exact: false }).first().waitFor();
  assert.match((await dialog.getByTestId('detail-request-id').textContent()) ?? '', /\S{8,}/);
  assert.match(
    (await dialog.locator('pre.json').first().textContent()) ?? '',
    /"[a-z_]+":/,
    'the listing metadata is shown',
  );
  await visited(p, 'audit-detail');
  await dialog.getByRole('button', { name: 'Close' }).click();

  const [download] = await Promise.all([
    p.waitForEvent('download'),
    p.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const csv = readFileSync((await download.path())!, 'utf8')
    .trim()
    .split('\r\n');
  assert.equal(csv[0], 'time,request_id,endpoint,screened_value,matched_value,list,list_type,match,list_version,as_of');
  assert.equal(csv.length, 1 + filtered, 'the header and the filtered matches');
  assert.ok(csv.slice(1).every((line) => line.includes(',ofac_crypto,') && line.includes(LISTED_BTC)));

  // Keyset pages of 50: older, then back to the newest.
  for (let i = 0; i < 26; i++) assert.equal((await api(`/screen/crypto/${LISTED_BTC}`, customer.token)).status, 200);
  const total = await count('');
  assert.ok(total > 50 && total <= 100);
  await p.reload();
  await heading(p, 'Audit trail');
  const pager = p.getByRole('navigation', { name: 'Audit trail pages' });
  await pager.getByText('Page 1').waitFor();
  const rows = p.getByRole('table').getByRole('row');
  assert.equal(await rows.count(), 1 + 50);
  const newest = await rows.nth(1).textContent();
  await pager.getByRole('button', { name: 'Older' }).click();
  await pager.getByText('Page 2').waitFor();
  await pager.locator('button:disabled', { hasText: 'Older' }).waitFor();
  assert.equal(await rows.count(), 1 + total - 50, 'the last page has the rest');
  await pager.getByRole('button', { name: 'Newer' }).click();
  await pager.getByText('Page 1').waitFor();
  await pager.locator('button:enabled', { hasText: 'Older' }).waitFor();
  assert.equal(await rows.count(), 1 + 50);
  assert.equal(await rows.nth(1).textContent(), newest);
});

test('tokens: a new token is shown once; revoked, its next call is refused', async () => {
  const p = await page();
  await signIn(p);
  await go(p, 'API tokens');
  await p.getByLabel('Name').fill('ci-server');
  await p.getByRole('button', { name: 'Create token' }).click();
  const secret = (await p.getByTestId('secret').textContent())!;
  assert.match(secret, /^sk_[0-9A-Za-z]{32}$/);
  await visited(p, 'tokens-created');
  assert.equal((await api(`/screen/crypto/${LISTED_BTC}`, secret)).status, 200, 'the new token screens');
  assert.equal((await api('/account', secret)).status, 403, 'a screen-only token cannot read the account');
  await p.getByRole('button', { name: 'I have copied it' }).click();
  assert.ok(!(await p.content()).includes(secret), 'gone from the page');
  await p.reload();
  await heading(p, 'API tokens');
  const row = p.getByRole('row', { name: /ci-server/ });
  await row.getByText(`${secret.slice(0, 8)}…`).waitFor();
  assert.ok(!(await p.content()).includes(secret), 'never shown again');
  await visited(p, 'tokens');

  await row.getByRole('button', { name: 'Revoke ci-server' }).click();
  await p.getByRole('dialog', { name: 'Revoke this token?' }).getByRole('button', { name: 'Revoke token' }).click();
  await row.getByText(/revoked/).waitFor();
  const refused = await api(`/screen/crypto/${LISTED_BTC}`, secret);
  assert.equal(refused.status, 401, 'refused at once on the node that revoked it');
  assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
});

test('revoking the token you are signed in with signs you out', async () => {
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
  const t = (await (
    await fetch(`${svc.url}/api/v1/admin/customers/${customer.customerId}/tokens`, {
      method: 'POST',
      headers: admin,
      body: '{"name":"laptop"}',
    })
  ).json()) as { token: string };
  const p = await page();
  await signIn(p, t.token);
  await go(p, 'API tokens');
  const row = p.getByRole('row', { name: /laptop/ });
  await row.getByText('this session').waitFor();
  await row.getByRole('button', { name: 'Revoke laptop' }).click();
  const dialog = p.getByRole('dialog', { name: 'Revoke this token?' });
  await dialog.getByText('you will be signed out').waitFor();
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await heading(p, 'Sign in');
  await p.getByText('Your session ended').waitFor();
});

test('a token revoked elsewhere (by the operator) signs the dashboard out at its next call', async () => {
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
  const t = (await (
    await fetch(`${svc.url}/api/v1/admin/customers/${customer.customerId}/tokens`, {
      method: 'POST',
      headers: admin,
      body: '{"name":"kiosk"}',
    })
  ).json()) as {
    id: number;
    token: string;
  };
  const p = await page();
  await signIn(p, t.token);
  // The overview's own calls finish first: one still in flight when the token is revoked would be
  // the call that signs the page out, before the click below (seen once in a fresh clone's run).
  await p.waitForLoadState('networkidle');
  assert.equal(
    (await fetch(`${svc.url}/api/v1/admin/tokens/${t.id}`, { method: 'DELETE', headers: admin })).status,
    200,
  );
  await p.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Usage', exact: true }).click();
  await heading(p, 'Sign in');
  await p.getByText('Your session ended').waitFor();
  assert.equal(
    await p.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length),
    0,
  );
});

test('webhooks: an endpoint on a loopback receiver (secret shown once), a test event delivered in the log, the secret rotated, disabled, deleted; a monitored value added and removed', async () => {
  const p = await page();
  await signIn(p);
  await go(p, 'Webhooks');
  await visited(p, 'webhooks-empty');
  await p.getByLabel('Endpoint URL').fill(receiver.url('/hook'));
  await p.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = (await p.getByTestId('secret').textContent())!;
  assert.match(secret, /^whsec_/);
  receiver.secrets.set('/hook', secret);
  await p.getByRole('button', { name: 'I have copied it' }).click();
  await p.getByRole('button', { name: 'Send test' }).click();
  const notice = (await p.getByRole('status').filter({ hasText: 'Test event' }).textContent())!;
  const eventId = /evt_test_[0-9a-f-]+/.exec(notice)![0];

  await p.getByRole('button', { name: 'Deliveries' }).click();
  const log = p.getByRole('dialog', { name: /Deliveries to/ });
  const delivered = log.getByRole('row', { name: new RegExp(`${eventId}.*delivered`) });
  for (let i = 0; i < 120 && (await delivered.count()) === 0; i++) {
    await log.getByRole('button', { name: 'Refresh' }).click();
    await p.waitForTimeout(500);
  }
  assert.deepEqual(await delivered.getByRole('cell').allTextContents(), [
    eventId,
    'test',
    'delivered',
    '1',
    '—',
    '200',
  ]);
  const got = receiver.received.find((r) => r.body.id === eventId);
  assert.ok(got?.verified, 'the receiver verified the signature with the secret shown once');
  await visited(p, 'webhooks-deliveries');
  await log.getByRole('button', { name: 'Close' }).click();

  await p.getByLabel('Kind').selectOption('onchain_address');
  await p.getByLabel('Value', { exact: true }).fill(LISTED_BTC);
  await p.getByLabel('Label (optional)').fill('treasury wallet');
  await p.getByRole('button', { name: 'Monitor' }).click();
  await p
    .getByRole('row', { name: /treasury wallet/ })
    .getByText('no change since added')
    .waitFor();
  await visited(p, 'webhooks');

  // The secret rotated: the new one is shown once and signs the next event.
  const endpoint = p.getByRole('region', { name: 'Endpoints' }).getByRole('row').filter({ hasText: '/hook' });
  await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
  await p
    .getByRole('dialog', { name: 'Rotate the signing secret?' })
    .getByRole('button', { name: 'Rotate secret' })
    .click();
  const rotated = (await p.getByTestId('secret').textContent())!;
  assert.match(rotated, /^whsec_/);
  assert.notEqual(rotated, secret);
  receiver.secrets.set('/hook', rotated);
  await p.getByRole('button', { name: 'I have copied it' }).click();
  await endpoint.getByRole('button', { name: 'Send test' }).click();
  const second = /evt_test_[0-9a-f-]+/.exec(
    (await p.getByRole('status').filter({ hasText: 'Test event' }).filter({ hasNotText: eventId }).textContent())!,
  )![0];
  for (let i = 0; i < 120 && !receiver.received.some((r) => r.body.id === second); i++) await p.waitForTimeout(250);
  assert.ok(receiver.received.find((r) => r.body.id === second)?.verified, 'signed with the rotated secret');

  await endpoint.getByRole('button', { name: 'Disable' }).click();
  await endpoint.getByText('disabled', { exact: true }).waitFor();
  assert.ok(await endpoint.getByRole('button', { name: 'Send test' }).isDisabled());
  await endpoint.getByRole('button', { name: 'Delete' }).click();
  await p
    .getByRole('dialog', { name: 'Delete this endpoint?' })
    .getByRole('button', { name: 'Delete endpoint' })
    .click();
  await p.getByText('No webhook endpoints.').waitFor();
  assert.deepEqual((await (await api('/account/webhooks', customer.token)).json()) as unknown[], []);

  await p.getByRole('button', { name: `Remove ${LISTED_BTC}` }).click();
  await p.getByText('No monitored values.').waitFor();
});

test('screen a listed name on the Screen page (metered): the party in the result, with the list versions the service answered with', async () => {
  const p = await page();
  await signIn(p);
  const before = (await (await api('/account', customer.token)).json()) as { quota: { used: number } };
  await go(p, 'Screen', 'Screen a value');
  await p.getByLabel('Kind').selectOption('name');
  await p.getByRole('textbox', { name: 'Value' }).fill('Saddam Hussein al-Tikriti');
  await p.getByLabel('Party type').selectOption('person');
  await p.getByLabel('Birth date (optional)').fill('1937');
  await p.getByRole('button', { name: 'Screen (1 credit)' }).click();
  const result = p.getByTestId('screen-result');
  await result.getByRole('cell', { name: 'SADDAM HUSSEIN AL-TIKRITI (un_sc:IQi.001)', exact: true }).waitFor();
  await result.getByText('sanctioned', { exact: true }).waitFor();
  assert.equal(await result.getByTestId('screened-as-of').textContent(), 'now (the current lists)');
  const versions = (await api('/screen/name?name=Saddam%20Hussein%20al-Tikriti', customer.token)).headers.get(
    'X-List-Versions',
  )!;
  assert.match(versions, /^ofac_sdn=[^,]+,/);
  assert.equal(
    await result.getByTestId('list-versions').textContent(),
    versions
      .split(',')
      .map((pair) => pair.replace('=', ' '))
      .join(', '),
  );
  await visited(p, 'screen-name');
  const after = (await (await api('/account', customer.token)).json()) as { quota: { used: number } };
  assert.equal(after.quota.used, before.quota.used + 2, 'one credit for the page, one for the check above');
});

test('private lists: create one, upload a CSV, screen against it now and as of an earlier version, delete it', async () => {
  const first = '0x7777777777777777777777777777777777777702';
  const second = '0x7777777777777777777777777777777777777703';
  const p = await page();
  await signIn(p);
  await go(p, 'Private lists');
  await p.getByText('No lists yet.').waitFor();
  await p.getByLabel('Name', { exact: true }).fill('offboarded');
  await p.getByLabel('Display name').fill('Offboarded customers');
  await p.getByRole('button', { name: 'Create list' }).click();
  const slug = `c${customer.customerId}.offboarded`;
  const row = p.getByRole('row').filter({ hasText: slug });
  await row.waitFor();

  const upload = async (value: string) => {
    await row.getByRole('button', { name: `Upload to ${slug}` }).click();
    const dialog = p.getByRole('dialog', { name: 'Upload entries to Offboarded customers' });
    await dialog.getByLabel('File').setInputFiles({
      name: 'offboarded.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`entity_type,value,metadata\ncrypto_address,${value},"{""reason"":""chargebacks""}"\n`),
    });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await p
      .getByRole('status')
      .filter({ hasText: `${slug}: new version` })
      .last()
      .waitFor();
    const [list] = (await (await api('/account/lists', customer.token)).json()) as {
      slug: string;
      last_updated: string;
      total: number;
    }[];
    assert.deepEqual([list.slug, list.total], [slug, 1]);
    return list.last_updated;
  };
  const v1 = await upload(first);
  await row.getByRole('cell', { name: '1', exact: true }).waitFor();
  await visited(p, 'private-lists');
  await upload(second);

  await go(p, 'Screen', 'Screen a value');
  // The result states the time the service answered with (X-As-Of, UTC), not the text typed.
  const screen = async (typed: string, stated: string) => {
    await p.getByRole('textbox', { name: 'Value' }).fill(first);
    await p.getByLabel('As of (optional)').fill(typed);
    await p.getByRole('button', { name: 'Screen (1 credit)' }).click();
    const result = p.getByTestId('screen-result');
    await result.getByTestId('screened-as-of').getByText(stated, { exact: true }).waitFor();
    return (await result.textContent()) ?? '';
  };
  assert.match(await screen('', 'now (the current lists)'), /no match/, 'delisted by the second upload');
  const inParis = new Date(Date.parse(v1) + 3_600_000).toISOString().replace('Z', '+01:00');
  assert.match(
    await screen(inParis, new Date(v1).toISOString()),
    /Offboarded customers/,
    'listed as of the first version',
  );
  await visited(p, 'screen-as-of');

  await go(p, 'Private lists');
  await row.getByRole('button', { name: `Delete ${slug}` }).click();
  await p.getByRole('dialog', { name: 'Delete this list?' }).getByRole('button', { name: 'Delete list' }).click();
  await p.getByText('No lists yet.').waitFor();
});

test('values with markup render as text, in the audit trail and a match’s detail, token names and monitored labels', async () => {
  const markup = '<img src=x onerror=alert(1)>';
  await svc.service.audit.matches.write([
    {
      time: Date.now(),
      customer_id: customer.customerId,
      payer: '',
      request_id: 'xss-request',
      endpoint: 'screen.website',
      screened_value: markup,
      matched_value: '<script>alert(2)</script>',
      list: 'cryptoscamdb',
      list_type: 'crime',
      match: 'exact',
      list_version: '',
      as_of: null,
      evidence: {},
    },
  ]);
  await api('/account/tokens', customer.token, { method: 'POST', body: JSON.stringify({ name: markup }) });
  await api('/account/monitored-entities', customer.token, {
    method: 'POST',
    body: JSON.stringify({ entity_type: 'country', value: 'IR', label: markup }),
  });
  const { page: p, problems } = opened[opened.push(await openPage(browser, svc.url)) - 1];
  await signIn(p);
  await p.getByRole('cell', { name: markup }).first().waitFor();
  for (const title of ['Audit trail', 'API tokens', 'Webhooks']) {
    await go(p, title);
    await p.getByText(markup).first().waitFor();
    assert.equal(await p.locator('img[src="x"]').count(), 0, `${title}: no element made of the value`);
  }
  await go(p, 'Audit trail');
  const row = p.getByRole('row', { name: /<script>alert\(2\)<\/script>/ });
  await row.waitFor();
  assert.equal(await p.locator('main script').count(), 0);
  await row.getByRole('button').click();
  const dialog = p.getByRole('dialog', { name: 'Match detail' });
  await dialog.getByText('<script>alert(2)</script>', { exact: true }).waitFor();
  await dialog.getByText(markup, { exact: true }).waitFor();
  assert.equal(await p.locator('dialog script, dialog img').count(), 0, 'the detail shows the values as text');
  await dialog.getByRole('button', { name: 'Close' }).click();
  assert.deepEqual(problems, [], 'no alert(), page error or CSP violation');
});

test('usage, lists (with the changes feed) and billing pages render and pass axe; a plan request shows its outcome', async () => {
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
  const plan = (await (
    await fetch(`${svc.url}/api/v1/admin/plans`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Growth', monthly_quota: 50_000 }),
    })
  ).json()) as { id: number };
  const p = await page();
  await signIn(p);
  await go(p, 'Usage');
  await p.getByRole('cell', { name: 'screen.crypto' }).first().waitFor();
  await visited(p, 'usage');
  await go(p, 'Lists');
  await p.getByRole('cell', { name: /OFAC/ }).first().waitFor();
  const feed = p.getByRole('region', { name: 'Changes feed' }).first();
  await feed.getByTestId('changes').or(feed.getByText('No changes in this period.')).waitFor();
  await visited(p, 'lists');

  await go(p, 'Billing');
  await p
    .getByRole('row', { name: /Growth/ })
    .getByRole('button', { name: 'Request this plan' })
    .click();
  const dialog = p.getByRole('dialog', { name: 'Request the Growth plan' });
  await dialog.getByLabel('Note to the operator (optional)').fill('Launching in May');
  await dialog.getByRole('button', { name: 'Send request' }).click();
  await p.getByTestId('plan-requests').getByText('pending').waitFor();
  await visited(p, 'billing');

  const [request] = (await (
    await fetch(`${svc.url}/api/v1/admin/plan-requests?status=pending`, { headers: admin })
  ).json()) as { id: number; plan_id: number }[];
  assert.equal(request.plan_id, plan.id);
  await fetch(`${svc.url}/api/v1/admin/plan-requests/${request.id}/approve`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ note: 'Welcome aboard' }),
  });
  await p.reload();
  await heading(p, 'Billing');
  await p.getByTestId('plan-requests').getByText('approved').waitFor();
  await p.getByText('Welcome aboard').waitFor();
  await p
    .getByRole('row', { name: /Growth/ })
    .getByText('current')
    .waitFor();
});

after(() => {
  for (const { problems } of opened)
    assert.deepEqual(problems, [], 'no CSP violation, page error or dialog on any page');
});
