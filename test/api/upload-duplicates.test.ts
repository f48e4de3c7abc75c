import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createCustomerToken, startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { settled } from '../../harness/list-jobs.js';
import { OpenApiChecker } from '../support/openapi.js';

/**
 * Issue #36, items 1 and 7: an upload keeps one row per value (duplicates merged into the first
 * and counted in the job's result), so a value repeated 60,000 times on a private list is one
 * match and one audit row; a byte that is not UTF-8 is refused at the line that holds it.
 */
let svc: TestService;
let api: OpenApiChecker;

before(async () => {
  svc = await startTestService({ LIST_UPLOAD_MAX_BYTES: String(8 << 20), PRIVATE_LIST_ROWS_PER_CUSTOMER: '1000' });
  api = await OpenApiChecker.load(svc.url);
});
after(async () => {
  await svc?.close();
});

type Obj = Record<string, unknown>;
type Job = { status: string; results: Obj[] };
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const url = (path: string) => `${svc.url}/api/v1${path}`;

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const init: RequestInit = { method, headers: { ...headers, 'content-type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  return settled(svc.url, await api.fetchJson(url(path), init), headers);
}

async function upload(path: string, headers: Record<string, string>, contentType: string, body: string | Buffer) {
  return settled(
    svc.url,
    await api.fetchJson(url(path), { method: 'POST', headers: { ...headers, 'content-type': contentType }, body }),
    headers,
  );
}

function result(answer: { status: number; body: unknown }): Obj {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const job = answer.body as Job;
  assert.equal(job.status, 'done', JSON.stringify(job));
  assert.equal(job.results.length, 1);
  return job.results[0];
}

const counts = (r: Obj) => [r.result, r.listed, r.total, r.duplicates];

async function auditRows(customerId: number): Promise<{ list: string; matched_value: string }[]> {
  const { audit } = svc.service;
  await audit.matches.flush();
  const rs = await audit.client.query({
    query: `SELECT list, matched_value FROM screening.audit_matches WHERE customer_id = ${customerId} ORDER BY time`,
    format: 'JSONEachRow',
  });
  return (await rs.json()) as { list: string; matched_value: string }[];
}

test('60,000 copies of one e-mail on a private list: one row, 60,000 - 1 duplicates, one match and one audit row', async () => {
  const c = await createCustomerToken(svc.url, 100, 'Dup customer');
  const auth = { authorization: `Bearer ${c.token}` };
  const created = await call('POST', '/account/lists', auth, {
    name: 'blim',
    display_name: 'Blocklist',
    list_type: 'crime',
    entity_types: ['email'],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const slug = `c${c.customerId}.blim`;
  const value = 'same@relb-dup.example.com';
  const body = `entity_type,value\n${`email,${value}\n`.repeat(60_000)}`;
  assert.deepEqual(counts(result(await upload(`/account/lists/${slug}/upload`, auth, 'text/csv', body))), [
    'new_version',
    1,
    1,
    59_999,
  ]);
  const answer = await api.fetchJson(url(`/screen/email/${value}`), { headers: auth });
  assert.equal(answer.status, 200);
  assert.deepEqual((answer.body as { matches: Obj[] }).matches, [
    {
      list: slug,
      list_name: 'Blocklist',
      list_type: 'crime',
      match: 'exact',
      value,
      source_url: null,
      metadata: { explanation_text: 'The e-mail address same@relb-dup.example.com is listed on Blocklist.' },
    },
  ]);
  assert.deepEqual(await auditRows(c.customerId), [{ list: slug, matched_value: value }]);
  assert.deepEqual(
    ((await call('GET', `/account/lists/${slug}/entities`, auth)).body as { entities: Obj[] }).entities.map(
      (e) => e.value,
    ),
    [value],
  );
});

test('an operator list: duplicates with other metadata or another spelling are merged into the first row', async () => {
  const created = await call('POST', '/admin/lists', ADMIN, {
    slug: 'ops_dups',
    display_name: 'Duplicates',
    list_type: 'risk',
    entity_types: ['crypto_address', 'email'],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const addr = '0x7777777777777777777777777777777777777701';
  const rows = [
    { entity_type: 'crypto_address', value: addr, metadata: { case: 'first' } },
    ...Array.from({ length: 2_000 }, (_, i) => ({
      entity_type: 'crypto_address',
      value: i % 2 ? addr.toUpperCase().replace('0X', '0x') : addr,
      metadata: { case: `copy ${i}` },
    })),
    { entity_type: 'email', value: 'Ops@Example.org' },
    { entity_type: 'email', value: 'ops@example.org', metadata: { case: 'later' } },
  ];
  const first = result(
    await upload(
      '/admin/lists/ops_dups/upload',
      ADMIN,
      'application/x-ndjson',
      rows.map((r) => JSON.stringify(r)).join('\n'),
    ),
  );
  assert.deepEqual(counts(first), ['new_version', 2, 2, 2_001]);
  const entities = (await call('GET', '/screen/lists/ops_dups/entities', {})).body as { entities: Obj[] };
  assert.deepEqual(
    entities.entities.map((e) => [e.value, e.metadata]),
    [
      [addr, { case: 'first' }],
      ['Ops@Example.org', {}],
    ],
  );
  // The same rows without their duplicates are the same content: nothing changes.
  const again = result(
    await upload('/admin/lists/ops_dups/upload', ADMIN, 'application/json', JSON.stringify([rows[0], rows.at(-2)])),
  );
  assert.deepEqual(counts(again), ['unchanged', 0, 2, 0]);
  // Other operations have no duplicates to tell of.
  assert.equal(result(created).duplicates, null);
});

test('the widest answer uploads can make: each list matches an e-mail once and each of its domains once', async () => {
  const c = await createCustomerToken(svc.url, 100, 'Wide customer');
  const auth = { authorization: `Bearer ${c.token}` };
  const email = 'x@a.b.example.com';
  const domains = ['a.b.example.com', 'b.example.com', 'example.com'];
  const rows = [email, email.toUpperCase(), ...domains.flatMap((d) => [d, `@${d}`])];
  const slugs: string[] = [];
  for (const name of ['wide1', 'wide2']) {
    const created = await call('POST', '/account/lists', auth, {
      name,
      display_name: name,
      list_type: 'risk',
      entity_types: ['email', 'email_domain'],
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    slugs.push(`c${c.customerId}.${name}`);
    const body =
      'entity_type,value\n' +
      rows.map((v) => `${v.includes('x@') || v.includes('X@') ? 'email' : 'email_domain'},${v}`).join('\n');
    assert.deepEqual(counts(result(await upload(`/account/lists/${slugs.at(-1)}/upload`, auth, 'text/csv', body))), [
      'new_version',
      4,
      4,
      4,
    ]);
  }
  const answer = await api.fetchJson(url(`/screen/email/${email}`), { headers: auth });
  const matches = (answer.body as { matches: Obj[] }).matches.map((m) => [m.list, m.match, m.value]);
  const expected = slugs.flatMap((s) => [[s, 'exact', email], ...domains.map((d) => [s, 'domain', d])]);
  assert.deepEqual(
    [...matches].sort((a, b) => String(a).localeCompare(String(b))),
    [...expected].sort((a, b) => String(a).localeCompare(String(b))),
  );
  assert.equal((await auditRows(c.customerId)).length, 8);
});

test('a byte that is not UTF-8 on line 701 of a CSV or an NDJSON upload is refused at line 701', async () => {
  await call('POST', '/admin/lists', ADMIN, {
    slug: 'ops_latin1',
    display_name: 'Latin-1',
    list_type: 'risk',
    entity_types: ['email'],
  });
  const cases: [string, string[]][] = [
    ['text/csv', ['entity_type,value', ...Array.from({ length: 999 }, (_, i) => `email,user${i}@example.org`)]],
    [
      'application/x-ndjson',
      Array.from({ length: 1_000 }, (_, i) => JSON.stringify({ entity_type: 'email', value: `user${i}@example.org` })),
    ],
  ];
  for (const [type, lines] of cases) {
    const body = Buffer.concat(
      lines.map((l, i) =>
        Buffer.concat([
          Buffer.from(i === 700 ? l.replace('user', 'us') : l),
          i === 700 ? Buffer.from([0xe9]) : Buffer.alloc(0),
          Buffer.from('\n'),
        ]),
      ),
    );
    const refused = await upload('/admin/lists/ops_latin1/upload', ADMIN, type, body);
    assert.equal(refused.status, 422, type);
    assert.deepEqual(
      refused.body,
      {
        detail: [
          {
            type: 'value_error',
            loc: ['body', 701],
            msg: 'Value error, line 701: the upload is not UTF-8 text',
            ctx: { line: 701, error: 'the upload is not UTF-8 text' },
          },
        ],
      },
      type,
    );
  }
});
