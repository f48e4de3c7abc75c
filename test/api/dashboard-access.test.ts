import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCustomerToken, startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { TAGS } from '../../src/api/tags.js';

/**
 * What the dashboard relies on, over HTTP: token scopes (403 without the scope, never a 402),
 * the operator session standing in for ADMIN_KEY, plan change requests, the 402's default
 * upgrade URL, and one tag vocabulary in the OpenAPI document.
 */
const LISTED_BTC = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
let svc: TestService;

before(async () => {
  svc = await startTestService({ PUBLIC_BASE_URL: 'https://screening.example.com' });
});
after(async () => {
  await svc?.close();
});

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

async function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${svc.url}/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

describe('token scopes', () => {
  test('a token created without scopes has both; a screen-only token gets 403 on /account, a dashboard-only one 403 (not 402) on metered endpoints', async () => {
    const { customerId, token } = await createCustomerToken(svc.url, 100);
    const both = await call('GET', '/account', bearer(token));
    assert.deepEqual((both.body as { token: { scopes: string[] } }).token.scopes, ['screen', 'dashboard']);

    const screenOnly = (await call('POST', '/account/tokens', bearer(token), { name: 'server', scopes: ['screen'] }))
      .body as { token: string; scopes: string[] };
    assert.deepEqual(screenOnly.scopes, ['screen']);
    assert.equal((await call('GET', `/screen/crypto/${LISTED_BTC}`, bearer(screenOnly.token))).status, 200);
    for (const path of [
      '/account',
      '/account/tokens',
      '/account/audit',
      '/account/analytics/daily',
      '/account/webhooks',
      '/account/lists',
    ]) {
      const r = await call('GET', path, bearer(screenOnly.token));
      assert.equal(r.status, 403, path);
      assert.deepEqual(r.body, {
        detail:
          'This token lacks the "dashboard" scope: it cannot use the /account API (usage, audit trail, tokens, webhooks)',
      });
    }
    // The upload of a private list streams on its own route, through the same gate.
    const upload = await fetch(`${svc.url}/api/v1/account/lists/c${customerId}.mine/upload`, {
      method: 'POST',
      headers: { ...bearer(screenOnly.token), 'content-type': 'text/csv' },
      body: 'entity_type,value,metadata\n',
    });
    assert.equal(upload.status, 403, 'a screen-only token cannot upload a private list');

    const dashOnly = (
      await call('POST', `/admin/customers/${customerId}/tokens`, admin, { name: 'browser', scopes: ['dashboard'] })
    ).body as { token: string; scopes: string[] };
    assert.deepEqual(dashOnly.scopes, ['dashboard']);
    assert.equal((await call('GET', '/account', bearer(dashOnly.token))).status, 200);
    const refused = await call('GET', `/screen/crypto/${LISTED_BTC}`, {
      ...bearer(dashOnly.token),
      'x-payment': 'e30=',
    });
    assert.equal(refused.status, 403, 'refused, even beside a payment header');
    assert.deepEqual(refused.body, {
      detail: 'This token lacks the "screen" scope: it cannot call the metered endpoints',
    });
    const batch = await call('POST', '/screen/batch', bearer(dashOnly.token), {
      items: [{ type: 'crypto', value: LISTED_BTC }],
    });
    assert.equal(batch.status, 403);

    const used = (await call('GET', '/account', bearer(token))).body as { quota: { used: number } };
    assert.equal(used.quota.used, 1, 'only the screen-only token’s request was charged');
  });

  test('scopes are validated: empty or unknown scopes are a 422', async () => {
    const { token } = await createCustomerToken(svc.url, 10);
    for (const scopes of [[], ['admin']]) {
      const r = await call('POST', '/account/tokens', bearer(token), { scopes });
      assert.equal(r.status, 422, JSON.stringify(scopes));
      assert.deepEqual((r.body as { detail: { loc: unknown[] }[] }).detail[0].loc.slice(0, 2), ['body', 'scopes']);
    }
  });
});

describe('operator sessions', () => {
  test('ADMIN_KEY opens a one-hour session accepted on /admin; the session cannot open another; sign-out revokes it at once', async () => {
    const opened = await call('POST', '/admin/session', admin, {});
    assert.equal(opened.status, 200);
    const s = opened.body as { token: string; expires_at: string; expires_in: number };
    assert.match(s.token, /^op_[0-9A-Za-z]{32}$/);
    assert.equal(s.expires_in, 3600);
    const ahead = Date.parse(s.expires_at) - Date.now();
    assert.ok(ahead > 3500_000 && ahead <= 3600_000, `expires in about an hour (${ahead} ms)`);

    assert.equal((await call('GET', '/admin/customers', bearer(s.token))).status, 200);
    const nested = await call('POST', '/admin/session', bearer(s.token), {});
    assert.deepEqual(
      [nested.status, nested.body],
      [403, { detail: 'An operator session cannot open another: sign in with ADMIN_KEY' }],
    );
    assert.equal((await call('GET', '/account', bearer(s.token))).status, 401, 'not a customer token');
    assert.equal((await call('DELETE', '/admin/session', admin)).status, 400, 'the key itself is no session to end');

    assert.deepEqual((await call('DELETE', '/admin/session', bearer(s.token))).body, { revoked: true });
    const after = await call('GET', '/admin/customers', bearer(s.token));
    assert.equal(after.status, 401);
    assert.equal(after.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await call('GET', '/admin/customers', bearer('op_00000000000000000000000000000000'))).status, 401);
  });
});

describe('plan change requests', () => {
  test('a customer asks for a plan (one at a time), withdraws, asks again; the operator declines, then approves another', async () => {
    const growth = (await call('POST', '/admin/plans', admin, { name: 'Growth-access', monthly_quota: 5000 })).body as {
      id: number;
    };
    const scale = (await call('POST', '/admin/plans', admin, { name: 'Scale-access', monthly_quota: 50_000 })).body as {
      id: number;
    };
    const { customerId, token } = await createCustomerToken(svc.url, 100, 'Plan seeker');
    const me = bearer(token);

    assert.ok(
      ((await call('GET', '/account/plans', me)).body as { name: string }[]).some((p) => p.name === 'Growth-access'),
    );
    assert.equal((await call('POST', '/account/plan-requests', me, { plan_id: 999_999 })).status, 404);
    const first = (await call('POST', '/account/plan-requests', me, { plan_id: growth.id, note: 'more please' }))
      .body as { id: number; status: string; note: string };
    assert.deepEqual([first.status, first.note], ['pending', 'more please']);
    const second = await call('POST', '/account/plan-requests', me, { plan_id: scale.id });
    assert.deepEqual([second.status, second.body], [409, { detail: 'another plan request is waiting for a decision' }]);

    assert.equal(
      ((await call('DELETE', `/account/plan-requests/${first.id}`, me)).body as { status: string }).status,
      'cancelled',
    );
    assert.equal(
      (await call('DELETE', `/account/plan-requests/${first.id}`, me)).status,
      409,
      'only a pending request can be withdrawn',
    );

    const again = (await call('POST', '/account/plan-requests', me, { plan_id: growth.id })).body as { id: number };
    const listed = (await call('GET', '/admin/plan-requests?status=pending', admin)).body as {
      id: number;
      customer_id: number;
      customer_name: string;
      current_plan: string | null;
    }[];
    const mine = listed.find((r) => r.id === again.id)!;
    assert.deepEqual([mine.customer_id, mine.customer_name, mine.current_plan], [customerId, 'Plan seeker', null]);
    const declined = (await call('POST', `/admin/plan-requests/${again.id}/decline`, admin, { note: 'not this month' }))
      .body as { status: string; decision_note: string };
    assert.deepEqual([declined.status, declined.decision_note], ['declined', 'not this month']);
    assert.equal((await call('POST', `/admin/plan-requests/${again.id}/approve`, admin, {})).status, 409);
    assert.equal(
      ((await call('GET', '/account', me)).body as { plan: string | null }).plan,
      null,
      'declined: nothing changed',
    );

    const third = (await call('POST', '/account/plan-requests', me, { plan_id: scale.id })).body as { id: number };
    await call('POST', `/admin/plan-requests/${third.id}/approve`, admin, {});
    const account = (await call('GET', '/account', me)).body as { plan: string; quota: { monthly_quota: number } };
    assert.deepEqual([account.plan, account.quota.monthly_quota], ['Scale-access', 50_000]);
    const history = (await call('GET', '/account/plan-requests', me)).body as { id: number; status: string }[];
    assert.deepEqual(
      history.map((r) => [r.id, r.status]),
      [
        [third.id, 'approved'],
        [again.id, 'declined'],
        [first.id, 'cancelled'],
      ],
    );
    assert.equal(
      (await call('POST', '/account/plan-requests', me, { plan_id: scale.id })).status,
      409,
      'already on this plan',
    );
    assert.equal((await call('POST', '/admin/plan-requests/999999/approve', admin, {})).status, 404);
  });
});

test('an exhausted quota’s upgrade option points to the dashboard’s billing page when UPGRADE_URL is unset', async () => {
  const { token } = await createCustomerToken(svc.url, 0);
  const r = await call('GET', `/screen/crypto/${LISTED_BTC}`, bearer(token));
  assert.equal(r.status, 402);
  const upgrade = (r.body as { options: { type: string; url?: string }[] }).options.find(
    (o) => o.type === 'upgrade_plan',
  );
  assert.equal(upgrade?.url, 'https://screening.example.com/dashboard/billing');
});

test('the OpenAPI document groups every operation under exactly one tag of one vocabulary', async () => {
  const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as {
    tags: { name: string }[];
    paths: Record<string, Record<string, { tags: string[] }>>;
  };
  assert.deepEqual(
    doc.tags.map((t) => t.name),
    Object.keys(TAGS),
  );
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      assert.equal(op.tags.length, 1, `${method} ${path}`);
      assert.ok(Object.hasOwn(TAGS, op.tags[0]), `${method} ${path}: ${op.tags[0]}`);
      used.add(op.tags[0]);
    }
  }
  assert.deepEqual([...used].sort(), Object.keys(TAGS).sort(), 'every tag has operations');
});
