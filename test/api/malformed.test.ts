import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { startTestService, createCustomerToken, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { httpClient } from '../mcp/support.js';
import { REPO_ROOT } from '../../harness/paths.js';

/**
 * Malformed bodies and unexpected failures (issue #20, items 1-3): deep nesting is a 422 at parse
 * time on every transport and never reaches JSON.stringify; a NUL character is a 422 before any
 * store; a batch of invalid items only is free and answered; failures never show internals.
 */
let svc: TestService;
let token: string;

before(async () => {
  svc = await startTestService();
  ({ token } = await createCustomerToken(svc.url, 1000));
});
after(async () => {
  await svc?.close();
});

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const DEPTH_ERROR = {
  type: 'json_invalid',
  msg: 'JSON decode error',
  input: {},
  ctx: { error: 'nesting deeper than 64 levels' },
};

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

test('a string field nested 5,000 deep is a 422 json_invalid on every body endpoint, with or without credentials; the process lives on', async () => {
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
  const account = { authorization: `Bearer ${token}` };
  for (const [path, headers] of [
    ['/api/v1/account/tokens', {}],
    ['/api/v1/account/webhooks', {}],
    ['/api/v1/account/monitored-entities', {}],
    ['/api/v1/admin/plans', {}],
    ['/api/v1/admin/customers', {}],
    ['/api/v1/account/tokens', account],
    ['/api/v1/admin/customers', admin],
  ] as const) {
    const res = await post(path, `{"name":${nested(5000)}}`, headers);
    assert.equal(res.status, 422, path);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    assert.deepEqual({ ...body.detail[0], loc: undefined }, { ...DEPTH_ERROR, loc: undefined }, path);
    assert.deepEqual(body.detail[0].loc.slice(0, 3), ['body', 'name', 0]);
    assert.equal(body.detail[0].loc.length, 65);
  }
  // 64 levels are accepted as JSON (and then judged by the schema).
  const deepest = await post('/api/v1/admin/customers', `{"name":${nested(63)}}`, admin);
  assert.equal(deepest.status, 422);
  assert.equal(((await deepest.json()) as { detail: { type: string }[] }).detail[0].type, 'string_type');
  assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
});

test('a 422 echoes untrusted input bounded: 4 levels and 20 entries, the rest elided', async () => {
  const res = await post(
    '/api/v1/admin/customers',
    JSON.stringify({ name: { a: { b: { c: { d: { e: 1 } } } }, more: Array.from({ length: 50 }, (_, i) => i) } }),
    {
      authorization: `Bearer ${TEST_ADMIN_KEY}`,
    },
  );
  assert.equal(res.status, 422);
  const issue = ((await res.json()) as { detail: { type: string; input: unknown }[] }).detail[0];
  assert.equal(issue.type, 'string_type');
  assert.deepEqual(issue.input, {
    a: { b: { c: { d: '…' } } },
    more: [...Array.from({ length: 20 }, (_, i) => i), '…'],
  });
});

test('a batch item nested 5,000 deep is a 422 for the whole body, not a 500; /trpc and /mcp refuse such bodies the same way', async () => {
  const auth = { authorization: `Bearer ${token}` };
  const batch = await post('/api/v1/screen/batch', `{"items":[{"type":"crypto","value":${nested(5000)}}]}`, auth);
  assert.equal(batch.status, 422);
  assert.deepEqual(((await batch.json()) as { detail: { ctx: unknown }[] }).detail[0].ctx, DEPTH_ERROR.ctx);
  // Deep but within the limit: the item is answered in place as invalid, with a bounded echo.
  const inPlace = await post(
    '/api/v1/screen/batch',
    `{"items":[{"type":"crypto","value":${nested(40)}},{"type":"country","value":"Iran"}]}`,
    auth,
  );
  assert.equal(inPlace.status, 200);
  const lines = (await inPlace.text())
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(lines[0], {
    detail: [
      {
        type: 'string_type',
        loc: ['body', 'items', 0, 'value'],
        msg: 'Input should be a valid string',
        input: [[[['…']]]],
      },
    ],
  });
  assert.equal(lines[1].sanctioned, true);

  const trpc = await post('/trpc/account.tokens.create', `{"name":${nested(5000)}}`, auth);
  assert.equal(trpc.status, 422);
  assert.deepEqual(((await trpc.json()) as { detail: { ctx: unknown }[] }).detail[0].ctx, DEPTH_ERROR.ctx);
  const mcp = await post(
    '/mcp',
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"screen_email","arguments":{"email":${nested(5000)}}}}`,
    {
      ...auth,
      accept: 'application/json, text/event-stream',
    },
  );
  assert.equal(mcp.status, 422);
  assert.deepEqual(((await mcp.json()) as { detail: { ctx: unknown }[] }).detail[0].ctx, DEPTH_ERROR.ctx);
  assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
});

test('an oversize body stays a 413', async () => {
  const big = JSON.stringify({ name: 'x'.repeat(17 * 1024 * 1024) });
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      `${svc.url}/api/v1/admin/customers`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) } },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', reject);
    req.end(big);
  });
  assert.equal(status, 413);
});

test('a NUL character is a 422 at its place before any store sees it (body, query, path)', async () => {
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
  const issue = (loc: unknown[], input: string) => ({
    type: 'value_error',
    loc,
    msg: 'Value error, NUL characters (U+0000) are not allowed',
    input,
    ctx: { error: 'NUL characters (U+0000) are not allowed' },
  });
  for (const [path, body, headers] of [
    ['/api/v1/admin/customers', '{"name":"a\\u0000b"}', admin],
    ['/api/v1/admin/plans', '{"name":"a\\u0000b","monthly_quota":5}', admin],
    ['/api/v1/account/tokens', '{"name":"a\\u0000b"}', { authorization: `Bearer ${token}` }],
    [
      '/api/v1/account/monitored-entities',
      '{"entity_type":"email","value":"a@b.com","label":"a\\u0000b"}',
      { authorization: `Bearer ${token}` },
    ],
  ] as const) {
    const res = await post(path, body, headers);
    assert.equal(res.status, 422, path);
    const field = path.endsWith('monitored-entities') ? 'label' : 'name';
    assert.deepEqual(await res.json(), { detail: [issue(['body', field], 'a\u0000b')] }, path);
  }
  const webhook = await post('/api/v1/account/webhooks', '{"url":"https://example.com/a\\u0000b"}', {
    authorization: `Bearer ${token}`,
  });
  assert.equal(webhook.status, 422);
  const query = await fetch(`${svc.url}/api/v1/search?q=ab%00cd`);
  assert.deepEqual(await query.json(), { detail: [issue(['query', 'q'], 'ab\u0000cd')] });
  const path = await fetch(`${svc.url}/api/v1/screen/email/a%00b@example.com`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(path.status, 422);
  // The same through /trpc.
  const client = createTRPCClient({
    links: [httpBatchLink({ url: `${svc.url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
  }) as unknown as Record<string, Record<string, Record<string, { mutate: (i: unknown) => Promise<unknown> }>>>;
  await assert.rejects(
    client.account.tokens.create.mutate({ name: 'a\u0000b' }),
    (err: unknown) => err instanceof TRPCClientError && (err.data as { httpStatus: number }).httpStatus === 422,
  );
});

test('a batch of invalid items only is free: 200 with its 422 lines, also without credentials', async () => {
  const fresh = await createCustomerToken(svc.url, 10);
  const body = JSON.stringify({
    items: [
      { type: 'crypto', value: '' },
      { type: 'phone', value: '1' },
    ],
  });
  for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${fresh.token}` }]) {
    const res = await post('/api/v1/screen/batch', body, headers);
    assert.equal(res.status, 200);
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { detail: unknown[] });
    assert.equal(lines.length, 2);
    for (const l of lines) assert.ok(Array.isArray(l.detail));
  }
  assert.equal((await post('/api/v1/screen/batch', body, { authorization: 'Bearer sk_not_a_token' })).status, 401);
  const { audit } = svc.service;
  await audit.usage.flush();
  const usage = (await (
    await audit.client.query({
      query: `SELECT count() AS n FROM screening.usage WHERE customer_id = ${fresh.customerId}`,
      format: 'JSONEachRow',
    })
  ).json()) as { n: number }[];
  assert.equal(Number(usage[0].n), 0);
});

test('an unexpected failure shows no internals: REST, /trpc and MCP give the documented error and a request id; errors carry no stack', async () => {
  const { engine } = svc.service;
  const original = engine.screenExact.bind(engine);
  engine.screenExact = () => {
    throw new Error(`secret failure at ${REPO_ROOT}/engine/engine.ts`);
  };
  try {
    const rest = await fetch(`${svc.url}/api/v1/screen/country/Iran`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(rest.status, 500);
    assert.deepEqual(await rest.json(), { detail: 'Internal Server Error' });
    assert.match(rest.headers.get('x-request-id') ?? '', /.+/);

    const trpc = await fetch(
      `${svc.url}/trpc/screen.country?input=${encodeURIComponent(JSON.stringify({ country: 'Iran' }))}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const trpcText = await trpc.text();
    assert.equal(trpc.status, 500);
    assert.doesNotMatch(trpcText, /secret|stack|\/engine\//);
    assert.ok(!trpcText.includes(REPO_ROOT));
    const trpcBody = JSON.parse(trpcText) as {
      error: { message: string; data: { request_id: string; detail: string } };
    };
    assert.equal(trpcBody.error.message, 'Internal Server Error');
    assert.equal(trpcBody.error.data.request_id, trpc.headers.get('x-request-id'));

    const mcp = await httpClient(svc.url, { authorization: `Bearer ${token}` });
    try {
      const result = (await mcp.callTool({ name: 'screen_country', arguments: { country: 'Iran' } })) as unknown as {
        isError: boolean;
        structuredContent: { detail: string; request_id: string };
      };
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.detail, 'Internal Server Error');
      assert.match(result.structuredContent.request_id, /.+/);
      assert.doesNotMatch(JSON.stringify(result), /secret|\/engine\//);
    } finally {
      await mcp.close();
    }
  } finally {
    engine.screenExact = original;
  }
  // Ordinary tRPC errors carry no stack either (tRPC adds one outside production).
  const unauthorized = await fetch(`${svc.url}/trpc/account.get`, { headers: { authorization: 'Bearer sk_nope' } });
  const text = await unauthorized.text();
  assert.ok(!text.includes('"stack"') && !text.includes(REPO_ROOT), text);
});
