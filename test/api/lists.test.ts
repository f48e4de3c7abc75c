import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCustomerToken, startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { SHARED_DATA } from '../../harness/paths.js';
import { settled } from '../../harness/list-jobs.js';
import { OpenApiChecker } from '../support/openapi.js';

/**
 * Lists as users operate them (issue #22): operator lists created, filled by upload and deleted;
 * uploads refused whole on a bad row; private lists screened for their owner only and invisible
 * to everyone else; refresh on demand. Every JSON answer is checked against the served document.
 */
let svc: TestService;
let api: OpenApiChecker;
let A: { customerId: number; token: string };
let B: { customerId: number; token: string };
const scratch = mkdtempSync(join(tmpdir(), 'lists-api-'));

before(async () => {
  svc = await startTestService({
    LIST_UPLOAD_MAX_BYTES: '300000',
    PRIVATE_LISTS_PER_CUSTOMER: '2',
    PRIVATE_LIST_ROWS_PER_CUSTOMER: '2000',
    SEARCH_BURST: '1000',
  });
  api = await OpenApiChecker.load(svc.url);
  A = await createCustomerToken(svc.url, 100_000, 'Customer A');
  B = await createCustomerToken(svc.url, 100_000, 'Customer B');
});
after(async () => {
  await svc?.close();
  rmSync(scratch, { recursive: true, force: true });
});

type Obj = Record<string, unknown>;
type Job = { id: number; kind: string; list: string | null; status: string; results: Obj[]; error: string | null };
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const bearer = (c: { token: string }) => ({ authorization: `Bearer ${c.token}` });
const url = (path: string) => `${svc.url}/api/v1${path}`;

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const init: RequestInit = {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  return patient(path, headers, await api.fetchJson(url(path), init));
}
/** A job answered 202 because the machine was slow is polled, unless the test asked for the 202 (`wait=`). */
const patient = (
  path: string,
  headers: Record<string, string>,
  answer: Awaited<ReturnType<OpenApiChecker['fetchJson']>>,
) => (path.includes('wait=') ? answer : settled(svc.url, answer, headers));
const get = (path: string, headers: Record<string, string> = {}) => call('GET', path, headers);

async function upload(path: string, headers: Record<string, string>, contentType: string, body: string) {
  return patient(
    path,
    headers,
    await api.fetchJson(url(path), { method: 'POST', headers: { ...headers, 'content-type': contentType }, body }),
  );
}

function only(job: unknown): Obj {
  const j = job as Job;
  assert.equal(j.status, 'done', JSON.stringify(j));
  assert.equal(j.results.length, 1);
  return j.results[0];
}

const counts = (r: Obj) => [r.result, r.listed, r.delisted, r.relisted, r.total];

test('an operator list: created empty, filled by upload, public and screened like the official lists, deleted with its delistings', async () => {
  const created = await call('POST', '/admin/lists', ADMIN, {
    slug: 'ops_watch',
    display_name: 'Operator watch list',
    list_type: 'sanctions',
    entity_types: ['crypto_address', 'email'],
  });
  assert.equal(created.status, 200);
  assert.deepEqual(counts(only(created.body)), ['new_version', 0, 0, 0, 0]);
  assert.equal(
    (
      await call('POST', '/admin/lists', ADMIN, {
        slug: 'ops_watch',
        display_name: 'Again',
        list_type: 'risk',
        entity_types: ['email'],
      })
    ).status,
    409,
  );
  assert.equal(
    (
      await call('POST', '/admin/lists', ADMIN, {
        slug: 'jobs',
        display_name: 'Route',
        list_type: 'risk',
        entity_types: ['email'],
      })
    ).status,
    409,
  );
  assert.equal(
    (
      await call('POST', '/admin/lists', ADMIN, {
        slug: 'ofac_sdn',
        display_name: 'Taken',
        list_type: 'risk',
        entity_types: ['email'],
      })
    ).status,
    409,
  );
  const badSlug = await call('POST', '/admin/lists', ADMIN, {
    slug: 'Bad-Slug',
    display_name: 'x',
    list_type: 'risk',
    entity_types: ['email'],
  });
  assert.equal(badSlug.status, 422);

  const addr = '0x9999999999999999999999999999999999999901';
  const v1 = await upload(
    '/admin/lists/ops_watch/upload',
    ADMIN,
    'text/csv',
    `entity_type,value,metadata\ncrypto_address,${addr},"{""case"":""A-1""}"\nemail,Wanted@Example.org,\nemail,other@example.org,\n`,
  );
  assert.equal(v1.status, 200, JSON.stringify(v1.body));
  assert.deepEqual(counts(only(v1.body)), ['new_version', 3, 0, 0, 3]);
  const version1 = only(v1.body).version as string;

  const info = ((await get('/screen/lists')).body as Obj[]).find((l) => l.slug === 'ops_watch');
  assert.deepEqual(
    { ...info, last_updated: null },
    {
      slug: 'ops_watch',
      display_name: 'Operator watch list',
      list_type: 'sanctions',
      kind: 'operator_list',
      cadence: 'manual',
      enabled: true,
      total: 3,
      last_updated: null,
    },
  );
  assert.equal(
    ((await get('/stats')).body as { sources: Record<string, { total: number }> }).sources.ops_watch.total,
    3,
  );
  assert.equal(((await get('/screen/lists/ops_watch/entities')).body as { total: number }).total, 3);
  const found = (await get(`/search?q=${addr}`)).body as Obj[];
  assert.deepEqual(
    found.map((h) => [h.list, h.value, h.match]),
    [['ops_watch', addr, 'exact']],
  );

  const screened = await get(`/screen/crypto/${addr}`, bearer(A));
  assert.equal(screened.status, 200);
  const env = screened.body as { sanctioned: boolean; lists_checked: string[]; matches: Obj[] };
  assert.equal(env.sanctioned, true);
  assert.ok(env.lists_checked.includes('ops_watch'));
  assert.deepEqual(
    env.matches.map((m) => [m.list, m.list_name, m.value, m.metadata]),
    [
      [
        'ops_watch',
        'Operator watch list',
        addr,
        { case: 'A-1', explanation_text: 'The address is listed on Operator watch list.' },
      ],
    ],
  );
  assert.match(screened.headers.get('x-list-versions')!, new RegExp(`(^|,)ops_watch=${version1}(,|$)`));

  const v2 = await upload(
    '/admin/lists/ops_watch/upload',
    ADMIN,
    'application/json',
    JSON.stringify([
      { entity_type: 'crypto_address', value: addr },
      { entity_type: 'email', value: 'new@example.org', metadata: { x: 1 } },
    ]),
  );
  assert.deepEqual(counts(only(v2.body)), ['new_version', 1, 2, 0, 2]);
  const delisted = (await get('/delisted?lists=ops_watch')).body as Obj[];
  assert.deepEqual(delisted.map((d) => d.value).sort(), ['Wanted@Example.org', 'other@example.org']);
  assert.deepEqual(
    only(
      (
        await upload(
          '/admin/lists/ops_watch/upload',
          ADMIN,
          'application/x-ndjson',
          `{"entity_type":"crypto_address","value":"${addr}"}\n{"entity_type":"email","value":"new@example.org","metadata":{"x":1}}\n`,
        )
      ).body,
    ).result,
    'unchanged',
  );

  const removed = await call('DELETE', '/admin/lists/ops_watch', ADMIN);
  assert.equal(removed.status, 200);
  assert.deepEqual(counts(only(removed.body)), ['new_version', 0, 2, 0, 0]);
  assert.equal(
    ((await get('/screen/lists')).body as Obj[]).some((l) => l.slug === 'ops_watch'),
    false,
  );
  assert.equal((await get(`/screen/crypto/${addr}?lists=ops_watch`, bearer(A))).status, 400);
  assert.equal(((await get(`/screen/crypto/${addr}`, bearer(A))).body as { flagged: boolean }).flagged, false);
  assert.equal((await call('DELETE', '/admin/lists/ops_watch', ADMIN)).status, 404);

  // The history stays in the changes feed: every change of the list, in ingest order.
  const feed = (await get('/changes?lists=ops_watch&limit=1000')).body as { changes: Obj[] };
  assert.deepEqual(
    feed.changes.map((c) => [c.kind, c.value]),
    [
      ['listed', addr],
      ['listed', 'Wanted@Example.org'],
      ['listed', 'other@example.org'],
      ['listed', 'new@example.org'],
      ['delisted', 'Wanted@Example.org'],
      ['delisted', 'other@example.org'],
      ['delisted', addr],
      ['delisted', 'new@example.org'],
    ],
  );
  assert.ok(
    feed.changes.every(
      (c) => c.list === 'ops_watch' && c.list_type === 'sanctions' && /^chg_[0-9a-f]{32}$/.test(String(c.change_id)),
    ),
  );
});

test('an upload is checked row by row: a bad row deep in the file rejects it whole and the previous version stays', async () => {
  await call('POST', '/admin/lists', ADMIN, {
    slug: 'ops_refusals',
    display_name: 'Refusals',
    list_type: 'risk',
    entity_types: ['email'],
  });
  const ok = await upload(
    '/admin/lists/ops_refusals/upload',
    ADMIN,
    'text/csv',
    'entity_type,value\nemail,a@example.org\nemail,b@example.org\n',
  );
  assert.deepEqual(counts(only(ok.body)), ['new_version', 2, 0, 0, 2]);
  const rows = Array.from({ length: 3000 }, (_, i) =>
    JSON.stringify({ entity_type: 'email', value: `user${i}@example.org` }),
  );
  rows[2499] = JSON.stringify({ entity_type: 'email', value: 'user2499-at-example.org' });
  const bad = await upload('/admin/lists/ops_refusals/upload', ADMIN, 'application/x-ndjson', rows.join('\n'));
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body, {
    detail: [
      {
        type: 'value_error',
        loc: ['body', 2500, 'value'],
        msg: 'Value error, line 2500: not a valid email',
        input: 'user2499-at-example.org',
        ctx: { line: 2500, error: 'not a valid email' },
      },
    ],
  });
  const wrongType = await upload(
    '/admin/lists/ops_refusals/upload',
    ADMIN,
    'application/x-ndjson',
    '{"entity_type":"name","value":"Ivan"}',
  );
  assert.equal(wrongType.status, 422);
  assert.equal(
    (wrongType.body as { detail: { msg: string }[] }).detail[0].msg,
    'Value error, line 1: this list holds email, not name',
  );
  assert.deepEqual(
    ((await get('/screen/lists/ops_refusals/entities')).body as { entities: Obj[] }).entities.map((e) => e.value),
    ['a@example.org', 'b@example.org'],
  );

  assert.equal((await upload('/admin/lists/ops_refusals/upload', ADMIN, 'text/plain', 'x')).status, 415);
  const big = `entity_type,value\n${Array.from({ length: 12_000 }, (_, i) => `email,someone${i}@example.org`).join('\n')}\n`;
  assert.ok(big.length > 300_000);
  const tooLarge = await upload('/admin/lists/ops_refusals/upload', ADMIN, 'text/csv', big);
  assert.equal(tooLarge.status, 413);
  assert.equal((await upload('/admin/lists/nope/upload', ADMIN, 'text/csv', 'entity_type,value\n')).status, 404);
  assert.equal((await upload('/admin/lists/ops_refusals/upload', {}, 'text/csv', 'entity_type,value\n')).status, 401);
  assert.equal(
    (await upload('/admin/lists/ofac_sdn/upload', ADMIN, 'text/csv', 'entity_type,value\n')).status,
    404,
    'a registry list is not uploaded',
  );
  const trpc = await fetch(`${svc.url}/trpc/admin.lists.upload`, {
    method: 'POST',
    headers: { ...ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ slug: 'ops_refusals' }),
  });
  assert.equal(trpc.status, 400);

  // A second upload of the list while the first is still streaming: 409, and the first goes on.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const enc = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(enc.encode('entity_type,value\nemail,c@example.org\n'));
      await held;
      controller.enqueue(enc.encode('email,d@example.org\n'));
      controller.close();
    },
  });
  const first = fetch(url('/admin/lists/ops_refusals/upload'), {
    method: 'POST',
    headers: { ...ADMIN, 'content-type': 'text/csv' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  const receiving = () =>
    svc.service.db.query("SELECT 1 FROM list_jobs WHERE list = 'ops_refusals' AND status = 'receiving'");
  while ((await receiving()).rows.length === 0) await new Promise((r) => setTimeout(r, 10));
  const conflict = await upload(
    '/admin/lists/ops_refusals/upload',
    ADMIN,
    'text/csv',
    'entity_type,value\nemail,e@example.org\n',
  );
  assert.equal(conflict.status, 409);
  assert.match(
    (conflict.body as { detail: string }).detail,
    /^an operation on list ops_refusals is already running \(job \d+, upload\)/,
  );
  release();
  const firstAnswer = await first;
  assert.equal(firstAnswer.status, 200);
  assert.equal(((await firstAnswer.json()) as Job).results[0].total, 2);

  // wait=0: the job is answered at once (202) and polled.
  const accepted = await upload(
    '/admin/lists/ops_refusals/upload?wait=0',
    ADMIN,
    'text/csv',
    'entity_type,value\nemail,f@example.org\n',
  );
  assert.ok(accepted.status === 202 || accepted.status === 200);
  const jobId = (accepted.body as Job).id;
  if (accepted.status === 202) assert.equal(accepted.headers.get('location'), `/api/v1/admin/lists/jobs/${jobId}`);
  let job: Job;
  do job = (await get(`/admin/lists/jobs/${jobId}`, ADMIN)).body as Job;
  while (job.status !== 'done');
  assert.deepEqual(counts(job.results[0]), ['new_version', 1, 2, 0, 1]);
  assert.equal((await get('/admin/lists/jobs/999999', ADMIN)).status, 404);
});

test('private lists: screened and seen by their owner only; another customer gets a 400 wherever they name it, and no public endpoint shows it', async () => {
  const created = await call('POST', '/account/lists', bearer(A), {
    name: 'blocklist',
    display_name: 'A’s blocklist',
    list_type: 'crime',
    entity_types: ['email', 'crypto_address'],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const slug = `c${A.customerId}.blocklist`;
  assert.equal(only(created.body).list, slug);

  // Both customers monitor the value; only the owner is told when it is listed on the private list.
  for (const c of [A, B]) {
    const m = await call('POST', '/account/monitored-entities', bearer(c), {
      entity_type: 'email',
      value: 'mole@example.net',
      label: 'watched',
    });
    assert.equal(m.status, 200, JSON.stringify(m.body));
  }
  const addr = '0x8888888888888888888888888888888888888801';
  const up = await upload(
    `/account/lists/${slug}/upload`,
    bearer(A),
    'application/json',
    JSON.stringify([
      { entity_type: 'email', value: 'mole@example.net', metadata: { source: 'internal' } },
      { entity_type: 'crypto_address', value: addr },
    ]),
  );
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.deepEqual(counts(only(up.body)), ['new_version', 2, 0, 0, 2]);
  const events = await svc.service.db.query<{ customer_id: number; type: string; change_id: string | null }>(
    "SELECT customer_id, type, change_id FROM webhook_events WHERE listing LIKE '%blocklist%'",
  );
  assert.deepEqual(
    events.rows.map((e) => [e.customer_id, e.type]),
    [[A.customerId, 'entity.listed']],
  );
  assert.match(String(events.rows[0].change_id), /^chg_[0-9a-f]{32}$/);

  // The owner: in the default set, nameable, with its version in the header.
  const mine = await get('/screen/email/mole@example.net', bearer(A));
  const env = mine.body as { flagged: boolean; sanctioned: boolean; lists_checked: string[]; matches: Obj[] };
  assert.deepEqual(
    [env.flagged, env.sanctioned, env.lists_checked.at(-1), env.matches.map((m) => [m.list, m.list_type])],
    [true, false, slug, [[slug, 'crime']]],
  );
  assert.match(mine.headers.get('x-list-versions')!, new RegExp(`,${slug.replace('.', '\\.')}=[0-9a-f]{16}$`));
  assert.equal(
    ((await get(`/screen/crypto/${addr}?lists=${slug}`, bearer(A))).body as { flagged: boolean }).flagged,
    true,
  );
  assert.deepEqual(
    ((await get('/account/lists', bearer(A))).body as Obj[]).map((l) => [l.slug, l.kind, l.total]),
    [[slug, 'private_list', 2]],
  );
  assert.deepEqual(
    ((await get(`/account/lists/${slug}/entities`, bearer(A))).body as { entities: Obj[] }).entities.map(
      (e) => e.value,
    ),
    ['mole@example.net', addr],
  );
  const ownFeed = (await get(`/account/lists/${slug}/changes`, bearer(A))).body as { changes: Obj[] };
  assert.deepEqual(
    ownFeed.changes.map((c) => [c.kind, c.value, c.change_id]),
    [
      ['listed', 'mole@example.net', events.rows[0].change_id],
      ['listed', addr, ownFeed.changes[1]?.change_id],
    ],
  );

  // Another customer: not screened, unknown when named (400 on every endpoint taking lists=), 404 under /account/lists.
  const theirs = (await get('/screen/email/mole@example.net', bearer(B))).body as {
    flagged: boolean;
    lists_checked: string[];
  };
  assert.deepEqual([theirs.flagged, theirs.lists_checked.includes(slug)], [false, false]);
  const unknown = { detail: `unknown list: ${slug} (see /api/v1/screen/lists)` };
  for (const path of [
    `/screen/crypto/${addr}?lists=${slug}`,
    `/screen/email/mole@example.net?lists=${slug}`,
    `/screen/website?address=example.net&lists=${slug}`,
    `/screen/id/AB123456?lists=${slug}`,
    `/screen/country/IR?lists=${slug}`,
  ]) {
    const r = await get(path, bearer(B));
    assert.deepEqual([r.status, r.body], [400, unknown], path);
  }
  const trpc = await fetch(
    `${svc.url}/trpc/screen.email?input=${encodeURIComponent(JSON.stringify({ email: 'mole@example.net', lists: slug }))}`,
    { headers: bearer(B) },
  );
  assert.equal(trpc.status, 400, 'the tRPC transport refuses it too');
  assert.match(JSON.stringify(await trpc.json()), new RegExp(`unknown list: ${slug.replace('.', '\\.')}`));
  const batch = await fetch(url('/screen/batch'), {
    method: 'POST',
    headers: { ...bearer(B), 'content-type': 'application/json' },
    body: JSON.stringify({ items: [{ type: 'email', value: 'mole@example.net' }], lists: slug }),
  });
  assert.deepEqual([batch.status, await batch.json()], [400, unknown]);
  for (const path of [
    `/search?q=mole@example.net&lists=${slug}`,
    `/delisted?lists=${slug}`,
    `/changes?lists=${slug}`,
  ]) {
    const r = await get(path);
    assert.equal(r.status, 400, path);
    assert.match((r.body as { detail: string }).detail, new RegExp(`^unknown list: ${slug.replace('.', '\\.')}`), path);
  }
  for (const [method, path] of [
    ['GET', `/account/lists/${slug}/entities`],
    ['GET', `/account/lists/${slug}/changes`],
    ['DELETE', `/account/lists/${slug}`],
  ]) {
    assert.equal((await call(method, path, bearer(B))).status, 404, `${method} ${path}`);
  }
  assert.equal(
    (await upload(`/account/lists/${slug}/upload`, bearer(B), 'text/csv', 'entity_type,value\n')).status,
    404,
  );
  assert.deepEqual((await get('/account/lists', bearer(B))).body, []);

  // Public endpoints never show it.
  assert.equal(
    ((await get('/screen/lists')).body as Obj[]).some((l) => String(l.slug).includes('blocklist')),
    false,
  );
  assert.equal(
    Object.keys(((await get('/stats')).body as { sources: Obj }).sources).some((s) => s.includes('blocklist')),
    false,
  );
  assert.equal((await get(`/screen/lists/${slug}/entities`)).status, 404);
  assert.deepEqual((await get('/search?q=mole@example.net')).body, []);
  const publicFeed = (await get('/changes?limit=1000')).body as { changes: Obj[] };
  assert.equal(
    publicFeed.changes.some((c) => String(c.list).includes('blocklist') || c.value === 'mole@example.net'),
    false,
  );
  assert.equal((await (await fetch(`${svc.url}/metrics`)).text()).includes('blocklist'), false);

  // Limits per customer: lists and rows.
  assert.equal(
    (
      await call('POST', '/account/lists', bearer(A), {
        name: 'second',
        display_name: 'Second',
        list_type: 'risk',
        entity_types: ['name'],
      })
    ).status,
    200,
  );
  const third = await call('POST', '/account/lists', bearer(A), {
    name: 'third',
    display_name: 'Third',
    list_type: 'risk',
    entity_types: ['name'],
  });
  assert.deepEqual([third.status, third.body], [403, { detail: 'a customer may have at most 2 private lists' }]);
  const rows = `entity_type,value\n${Array.from({ length: 1999 }, (_, i) => `name,Person ${i}`).join('\n')}\n`;
  const overLimit = await upload(`/account/lists/c${A.customerId}.second/upload`, bearer(A), 'text/csv', rows);
  assert.deepEqual(
    [overLimit.status, overLimit.body],
    [413, { detail: "the upload holds more than 1998 rows: a customer's private lists hold at most 2000 rows in all" }],
  );

  // Deleted: delisted for the owner's monitors, gone from screening.
  const removed = await call('DELETE', `/account/lists/${slug}`, bearer(A));
  assert.deepEqual(counts(only(removed.body)), ['new_version', 0, 2, 0, 0]);
  assert.equal((await get(`/screen/email/mole@example.net?lists=${slug}`, bearer(A))).status, 400);
  const after = await svc.service.db.query<{ customer_id: number; type: string }>(
    "SELECT customer_id, type FROM webhook_events WHERE listing LIKE '%blocklist%' ORDER BY type",
  );
  assert.deepEqual(
    after.rows.map((e) => [e.customer_id, e.type]),
    [
      [A.customerId, 'entity.delisted'],
      [A.customerId, 'entity.listed'],
    ],
  );
  // Its delistings stay private too.
  assert.equal(
    ((await get('/delisted')).body as Obj[]).some(
      (d) => d.value === 'mole@example.net' || String(d.list).includes('blocklist'),
    ),
    false,
  );
  assert.equal(
    ((await get('/changes?limit=1000')).body as { changes: Obj[] }).changes.some((c) =>
      String(c.list).includes('blocklist'),
    ),
    false,
  );
  // The owner still reads the deleted list's history; nobody else does.
  assert.deepEqual(
    ((await get(`/account/lists/${slug}/changes`, bearer(A))).body as { changes: Obj[] }).changes.map((c) => c.kind),
    ['listed', 'listed', 'delisted', 'delisted'],
  );
  assert.equal((await get(`/account/lists/${slug}/changes`, bearer(B))).status, 404);
  assert.equal((await get(`/account/lists/${slug}/entities`, bearer(A))).status, 404);
});

test('refresh on demand: a list checked now from a directory, counts of the new version, a second refresh while one runs is a 409', async () => {
  const dir = join(scratch, 'source');
  mkdirSync(join(dir, 'web'), { recursive: true });
  const original = readFileSync(join(SHARED_DATA, 'web', 'ofac-sdn-websites-and-emails.txt'), 'utf8');
  writeFileSync(
    join(dir, 'web', 'ofac-sdn-websites-and-emails.txt'),
    `${original.trimEnd()}\nrefresh-test-domain.example\n`,
  );
  const r = await call('POST', '/admin/lists/ofac_sdn_web/refresh', ADMIN, { source_dir: dir });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(counts(only(r.body)), ['new_version', 1, 0, 0, 1548]);
  assert.equal(
    ((await get('/screen/website?address=refresh-test-domain.example', bearer(A))).body as { flagged: boolean })
      .flagged,
    true,
  );
  assert.deepEqual(
    counts(only((await call('POST', '/admin/lists/ofac_sdn_web/refresh', ADMIN, { source_dir: dir })).body)),
    ['unchanged', 0, 0, 0, 1548],
  );
  const failed = await call('POST', '/admin/lists/ofac_sdn_web/refresh', ADMIN, {
    source_dir: join(scratch, 'missing'),
  });
  assert.equal(only(failed.body).result, 'failed');
  assert.match(String(only(failed.body).error), /not found in SOURCE_DIR/);

  assert.equal((await call('POST', '/admin/lists/nope/refresh', ADMIN)).status, 404);
  await call('POST', '/admin/lists', ADMIN, {
    slug: 'ops_norefresh',
    display_name: 'Uploaded',
    list_type: 'risk',
    entity_types: ['email'],
  });
  assert.deepEqual((await call('POST', '/admin/lists/ops_norefresh/refresh', ADMIN)).body, {
    detail: 'list ops_norefresh is filled by upload: it has no source to check',
  });
  assert.equal(
    (await call('POST', '/admin/lists/ofac_sdn_web/refresh', ADMIN, { source_dir: 'relative/dir' })).status,
    422,
  );

  // The primary list from a changed copy takes a parse of 30k records: a refresh of it sent while
  // it runs is refused.
  const sdn = join(scratch, 'sdn');
  cpSync(join(SHARED_DATA, 'ofac'), join(sdn, 'ofac'), { recursive: true });
  const sdnCsv = readFileSync(join(sdn, 'ofac', 'sdn.csv'), 'utf8');
  const eof = sdnCsv.indexOf('\u001a');
  const body = eof >= 0 ? sdnCsv.slice(0, eof) : sdnCsv;
  writeFileSync(
    join(sdn, 'ofac', 'sdn.csv'),
    `${body}99999999,"REFRESH TEST PARTY",-0- ,"SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n${eof >= 0 ? sdnCsv.slice(eof) : ''}`,
  );
  const running = await call('POST', '/admin/lists/ofac_sdn/refresh?wait=0', ADMIN, { source_dir: sdn });
  assert.equal(running.status, 202);
  const second = await call('POST', '/admin/lists/ofac_sdn/refresh', ADMIN, { source_dir: sdn });
  assert.equal(second.status, 409);
  let job: Job;
  do job = (await get(`/admin/lists/jobs/${(running.body as Job).id}`, ADMIN)).body as Job;
  while (job.status !== 'done');
  // Listed: the party record and its name.
  assert.deepEqual(
    job.results.map((x) => [x.result, x.listed]),
    [['new_version', 2]],
  );

  const all = await call('POST', '/admin/lists/refresh', ADMIN);
  assert.equal(all.status, 200);
  assert.equal((all.body as Job).list, null);
  assert.deepEqual(
    (all.body as Job).results.map((x) => x.list),
    [
      'ofac_sdn',
      'ofac_consolidated',
      'un_sc',
      'eu_fsf',
      'uk_sanctions',
      'ofac_crypto',
      'ofac_sdn_web',
      'ofac_countries',
      'eth_phishing',
      'cryptoscamdb',
      'disposable_email',
      'tornado_pools',
      'tornado_recipients',
    ],
  );
});

test('/stats follows every new list generation: an operator list created, filled, replaced, deleted', async () => {
  type Stats = { sources: Record<string, { total: number; by_entity_type: Record<string, number> }>; delisted: number };
  const stats = async () => {
    const first = (await get('/stats')).body as Stats;
    // Asked again with nothing changed in between: the same answer.
    assert.deepEqual((await get('/stats')).body, first);
    return first;
  };
  const before = await stats();
  assert.equal(before.sources.ops_stats, undefined);
  only(
    (
      await call('POST', '/admin/lists', ADMIN, {
        slug: 'ops_stats',
        display_name: 'Stats',
        list_type: 'risk',
        entity_types: ['email'],
      })
    ).body,
  );
  const created = await stats();
  assert.deepEqual(created.sources.ops_stats, { ...created.sources.ops_stats, total: 0, by_entity_type: {} });
  const emails = (names: string[]) => `entity_type,value\n${names.map((n) => `email,${n}@example.org\n`).join('')}`;
  only((await upload('/admin/lists/ops_stats/upload', ADMIN, 'text/csv', emails(['a', 'b', 'c']))).body);
  const filled = await stats();
  assert.deepEqual([filled.sources.ops_stats.total, filled.sources.ops_stats.by_entity_type], [3, { email: 3 }]);
  assert.equal(filled.delisted, before.delisted);
  only((await upload('/admin/lists/ops_stats/upload', ADMIN, 'text/csv', emails(['a']))).body);
  const replaced = await stats();
  assert.deepEqual([replaced.sources.ops_stats.total, replaced.sources.ops_stats.by_entity_type], [1, { email: 1 }]);
  assert.equal(replaced.delisted, before.delisted + 2);
  only((await call('DELETE', '/admin/lists/ops_stats', ADMIN)).body);
  assert.equal((await stats()).sources.ops_stats, undefined);
});
