import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import {
  prepareDataDir,
  spawnService,
  startTestService,
  TEST_ADMIN_KEY,
  testEnv,
  type TestService,
} from '../../harness/service.js';
import { OpenApiChecker } from '../support/openapi.js';

/** The public endpoints on the real lists: shapes, limits, CSV, search modes and the burst limit. */
let svc: TestService;
let api: OpenApiChecker;
/** A second service with regex off and a tiny burst, in its own process (chDB is one per process). */
let strict: { url: string; child: ChildProcess; dataDir: string };

before(async () => {
  const dataDir = await prepareDataDir();
  const spawned = spawnService(
    testEnv(dataDir, {
      SEARCH_REGEX_ENABLED: 'false',
      SEARCH_BURST: '3',
      SEARCH_RATE_PER_SECOND: '1',
      LOG_LEVEL: 'info',
    }),
  );
  svc = await startTestService();
  api = await OpenApiChecker.load(svc.url);
  const { child, port } = await spawned;
  strict = { url: `http://127.0.0.1:${port}`, child, dataDir };
});
after(async () => {
  await svc?.close();
  if (strict) {
    strict.child.kill('SIGTERM');
    if (strict.child.exitCode === null) await once(strict.child, 'exit');
    rmSync(strict.dataDir, { recursive: true, force: true });
  }
});

const get = (path: string, base = svc.url) => api.fetchJson(`${base}/api/v1${path}`);
type Obj = Record<string, unknown>;

test('/screen/lists: every list of the registry with its counts', async () => {
  const { status, body } = await get('/screen/lists');
  assert.equal(status, 200);
  const lists = body as Obj[];
  assert.deepEqual(
    lists.map((l) => l.slug),
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
  for (const l of lists)
    assert.deepEqual(Object.keys(l), [
      'slug',
      'display_name',
      'list_type',
      'kind',
      'cadence',
      'enabled',
      'total',
      'last_updated',
    ]);
  const stats = (await get('/stats')).body as { sources: Record<string, { total: number }> };
  for (const l of lists) assert.equal(l.total, stats.sources[l.slug as string]?.total ?? 0, String(l.slug));
  const sdn = lists[0];
  assert.equal(sdn.kind, 'sanctions_list');
  assert.equal(sdn.cadence, 'scheduled');
  assert.equal(lists.find((l) => l.slug === 'eu_fsf')?.last_updated, null);
});

test('/screen/lists/{slug}/entities: JSON page, total of the whole list, limits, 404', async () => {
  const stats = (await get('/stats')).body as { sources: Record<string, { total: number }> };
  const page = (await get('/screen/lists/un_sc/entities?limit=3')).body as {
    total: number;
    entities: Obj[];
    list: string;
    list_type: string;
    list_name: string;
  };
  assert.equal(page.list, 'un_sc');
  assert.equal(page.list_type, 'sanctions');
  assert.equal(page.list_name, 'UN Security Council Consolidated List');
  assert.equal(page.total, stats.sources.un_sc.total);
  assert.equal(page.entities.length, 3);
  for (const e of page.entities)
    assert.deepEqual(Object.keys(e), ['entity_type', 'value', 'metadata', 'source_url', 'listed_at']);
  const whole = (await get('/screen/lists/ofac_sdn/entities')).body as { entities: unknown[]; total: number };
  assert.equal(whole.entities.length, 5000);
  assert.ok(whole.total > 5000);
  const all = (await get('/screen/lists/ofac_sdn/entities?limit=100000')).body as {
    entities: unknown[];
    total: number;
  };
  assert.equal(all.entities.length, all.total);
  const nf = await get('/screen/lists/nope/entities');
  assert.equal(nf.status, 404);
  assert.deepEqual(nf.body, { detail: 'List not found: nope' });
  // A list without data here (no EU file in ../shared/data) is a 503 in either format, as screening and search answer it.
  for (const format of ['json', 'csv']) {
    const offline = await fetch(`${svc.url}/api/v1/screen/lists/eu_fsf/entities?format=${format}`);
    assert.equal(offline.status, 503);
    assert.equal(offline.headers.get('retry-after'), '60');
    assert.deepEqual(await offline.json(), { detail: 'list not loaded yet: eu_fsf (see /api/v1/stats)' });
  }
  assert.equal((await get('/search?q=maduro&lists=eu_fsf')).status, 503);
  assert.deepEqual((await get('/screen/lists/un_sc/entities?limit=0')).body, {
    detail: [
      {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        input: '0',
        ctx: { ge: 1 },
      },
    ],
  });
  assert.deepEqual((await get('/screen/lists/un_sc/entities?limit=100001')).body, {
    detail: [
      {
        type: 'less_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 100000',
        input: '100001',
        ctx: { le: 100000 },
      },
    ],
  });
  assert.deepEqual((await get('/screen/lists/un_sc/entities?format=xml')).body, {
    detail: [
      {
        type: 'string_pattern_mismatch',
        loc: ['query', 'format'],
        msg: "String should match pattern '^(json|csv)$'",
        input: 'xml',
        ctx: { pattern: '^(json|csv)$' },
      },
    ],
  });
});

test('CSV download: header row, one row per entity, filename, quoting', async () => {
  const res = await fetch(`${svc.url}/api/v1/screen/lists/ofac_sdn/entities?format=csv&limit=2500`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(res.headers.get('content-disposition'), 'attachment; filename="ofac_sdn.csv"');
  const text = await res.text();
  const json = (await get('/screen/lists/ofac_sdn/entities?limit=2500')).body as {
    entities: { value: string; entity_type: string }[];
    total: number;
  };
  assert.equal(res.headers.get('x-total-count'), String(json.total));
  const lines = text.split('\r\n');
  assert.equal(lines[0], 'entity_type,value,listed_at,source_url,metadata');
  assert.equal(lines.length, 2500 + 2);
  assert.equal(lines[2501], '');
  const first = json.entities[0];
  assert.ok(
    lines[1].startsWith(`${first.entity_type},${first.value.includes(',') ? `"${first.value}"` : first.value},`),
  );
});

test('/stats names no server path or configuration in a list’s error; the operator’s list status keeps the detail', async () => {
  const body = JSON.stringify((await get('/stats')).body);
  assert.doesNotMatch(body, /SOURCE_DIR|MIXER_RPC_URL|\/eu\//);
  const status = (await (
    await fetch(`${svc.url}/api/v1/admin/lists/status`, { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } })
  ).json()) as { slug: string; last_error: string | null }[];
  assert.match(status.find((l) => l.slug === 'eu_fsf')?.last_error ?? '', /\/eu\/.*: not found in SOURCE_DIR$/);
});

test('/stats: per-list counts that add up, designations, delistings, the primary schedule', async () => {
  const s = (await get('/stats')).body as {
    sources: Record<
      string,
      { total: number; by_entity_type: Record<string, number>; last_error: string | null; list_type: string }
    >;
    countries: number;
    delisted: number;
    primary_refresh: { check_minutes_utc: number[]; next_check_at: string };
  };
  for (const [slug, src] of Object.entries(s.sources)) {
    assert.equal(
      Object.values(src.by_entity_type).reduce((a, b) => a + b, 0),
      src.total,
      slug,
    );
  }
  assert.equal(s.countries, 8);
  assert.equal(s.sources.ofac_countries.by_entity_type.country, 8);
  assert.equal(s.delisted, 0);
  assert.equal(s.sources.eu_fsf.last_error, 'not available on this service');
  assert.equal(s.sources.ofac_sdn.last_error, null);
  assert.deepEqual(s.primary_refresh.check_minutes_utc, [5, 35]);
  const next = new Date(s.primary_refresh.next_check_at).getTime();
  assert.ok(next > Date.now() && next <= Date.now() + 31 * 60_000);
  assert.ok([5, 35].includes(new Date(next).getUTCMinutes()));
});

test('/delisted: empty for a first version, limits validated, unknown list 400', async () => {
  assert.deepEqual((await get('/delisted')).body, []);
  assert.equal((await get('/delisted?limit=501')).status, 422);
  assert.equal((await get('/delisted?limit=500')).status, 200);
  assert.deepEqual((await get('/delisted?lists=nope')).body, {
    detail: 'unknown list: nope (see /api/v1/screen/lists)',
  });
});

test('/search fuzzy: names with typos and reordering, identifiers and addresses, list filter, limit', async () => {
  const hits = (await get(`/search?q=${encodeURIComponent('Jong Un Kim')}`)).body as {
    value: string;
    match: string;
    similarity: number;
    list: string;
    list_type: string;
    removed_at: null;
  }[];
  assert.ok(hits.length > 0 && hits.length <= 10);
  assert.ok(
    hits.some((h) => h.value === 'KIM, Jong Un' && h.list === 'ofac_sdn'),
    JSON.stringify(hits.slice(0, 3)),
  );
  for (const h of hits) {
    assert.equal(h.match, 'fuzzy');
    assert.ok(h.similarity >= 0.6 && h.similarity <= 1);
    assert.equal(h.removed_at, null);
  }
  const addr = (await get('/search?q=12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h')).body as {
    value: string;
    entity_type: string;
    match: string;
    similarity: number;
  }[];
  assert.deepEqual(addr.map((h) => [h.entity_type, h.value, h.match, h.similarity]).slice(0, 2), [
    ['crypto_address', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', 'exact', 1],
    ['crypto_address', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', 'exact', 1],
  ]);
  const only = (await get('/search?q=AB850901&lists=un_sc&limit=1')).body as { list: string; value: string }[];
  assert.deepEqual(
    only.map((h) => [h.list, h.value]),
    [['un_sc', 'AB850901']],
  );
});

test('/search regex: case-insensitive, linear-time engine, invalid pattern 422, limits', async () => {
  const hits = (await get(`/search?mode=regex&q=${encodeURIComponent('^kim, jong u')}&lists=ofac_sdn`)).body as {
    value: string;
    match: string;
  }[];
  assert.ok(hits.some((h) => h.value === 'KIM, Jong Un'));
  for (const h of hits) assert.equal(h.match, 'regex');
  const bad = await get(`/search?mode=regex&q=${encodeURIComponent('(unclosed')}`);
  assert.equal(bad.status, 422);
  const detail = (bad.body as { detail: { loc: string[]; type: string; input: string }[] }).detail[0];
  assert.deepEqual([detail.loc, detail.type, detail.input], [['query', 'q'], 'value_error', '(unclosed']);
  const catastrophic = await get(`/search?mode=regex&q=${encodeURIComponent('(a+)+$')}`);
  assert.equal(catastrophic.status, 200);
});

test('/search limits: q 3..100, limit 1..25, mode fuzzy|regex, q required', async () => {
  assert.equal((await get('/search?q=abc')).status, 200);
  assert.equal((await get(`/search?q=${'a'.repeat(100)}`)).status, 200);
  assert.equal((await get('/search?q=abc&limit=25')).status, 200);
  assert.deepEqual((await get('/search')).body, {
    detail: [{ type: 'missing', loc: ['query', 'q'], msg: 'Field required', input: null }],
  });
  assert.deepEqual((await get(`/search?q=${'a'.repeat(101)}`)).body, {
    detail: [
      {
        type: 'string_too_long',
        loc: ['query', 'q'],
        msg: 'String should have at most 100 characters',
        input: 'a'.repeat(101),
        ctx: { max_length: 100 },
      },
    ],
  });
  assert.deepEqual((await get('/search?q=abc&limit=0')).body, {
    detail: [
      {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        input: '0',
        ctx: { ge: 1 },
      },
    ],
  });
  assert.deepEqual((await get('/search?q=abc&mode=exact')).body, {
    detail: [
      {
        type: 'literal_error',
        loc: ['query', 'mode'],
        msg: "Input should be 'fuzzy' or 'regex'",
        input: 'exact',
        ctx: { expected: "'fuzzy' or 'regex'" },
      },
    ],
  });
});

test('regex switched off → 400; burst limit per client IP → 429 with Retry-After', async () => {
  const off = await get('/search?q=abc&mode=regex', strict.url);
  assert.equal(off.status, 400);
  assert.deepEqual(off.body, { detail: 'regex search is disabled' });
  let limited;
  for (let i = 0; i < 5 && !limited; i++) {
    const r = await get('/search?q=abcdef', strict.url);
    if (r.status === 429) limited = r;
  }
  assert.ok(limited, 'no 429 within 5 requests for a burst of 3');
  assert.deepEqual(limited.body, { detail: 'Too many requests: the search is burst-limited per client IP' });
  assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
});

test('every answer above matched the OpenAPI document', () => {
  assert.ok(api.checked >= 25, `checked ${api.checked}`);
});
