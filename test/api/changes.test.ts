import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { settled } from '../../harness/list-jobs.js';
import { xorshift32 } from '../../harness/random.js';
import { OpenApiChecker } from '../support/openapi.js';

/**
 * The changes feed (issue #22 §1): keyset pages over the ingest sequence, read while new
 * versions are ingested, never overlap or skip; filters, CSV and refusals.
 */
let svc: TestService;
let api: OpenApiChecker;
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };

before(async () => {
  svc = await startTestService({ SEARCH_BURST: '100000', SEARCH_RATE_PER_SECOND: '100000' });
  api = await OpenApiChecker.load(svc.url);
  for (const slug of ['feed_a', 'feed_b']) {
    const r = await settled(
      svc.url,
      await api.fetchJson(`${svc.url}/api/v1/admin/lists`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({
          slug,
          display_name: slug,
          list_type: 'risk',
          entity_types: ['email', 'crypto_address'],
        }),
      }),
      ADMIN,
    );
    assert.equal(r.status, 200);
  }
});
after(async () => {
  await svc?.close();
});

type Change = {
  change_id: string;
  kind: string;
  list: string;
  list_version: string;
  entity_type: string;
  value: string;
  at: string;
  metadata: Record<string, unknown>;
  source_url: string | null;
};
type Page = { changes: Change[]; next_cursor: string; has_more: boolean };
const feed = async (query: string) => {
  const r = await api.fetchJson(`${svc.url}/api/v1/changes?${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as Page;
};

/** A version of a feed list: a random subset of a pool of values, so each version lists and delists some. */
function versionRows(next: () => number, round: number) {
  const random = () => next() / 2 ** 32;
  const rows = [];
  for (let i = 0; i < 40; i++) {
    if (random() < 0.5)
      rows.push(
        i % 3 === 0
          ? { entity_type: 'crypto_address', value: `0x${String(i).padStart(40, 'a')}` }
          : { entity_type: 'email', value: `member${i}@round-pool.example` },
      );
  }
  rows.push({ entity_type: 'email', value: `only-in-round-${round}@example.org` });
  return rows;
}

test('pages read while versions are ingested: every change exactly once, in ingest order', async () => {
  const random = xorshift32(22);
  let producing = true;
  const producer = (async () => {
    for (let round = 0; round < 12; round++) {
      const slug = round % 2 === 0 ? 'feed_a' : 'feed_b';
      const r = await settled(
        svc.url,
        await api.fetchJson(`${svc.url}/api/v1/admin/lists/${slug}/upload`, {
          method: 'POST',
          headers: { ...ADMIN, 'content-type': 'application/json' },
          body: JSON.stringify(versionRows(random, round)),
        }),
        ADMIN,
      );
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    producing = false;
  })();

  const read: Change[] = [];
  let cursor = '';
  let pages = 0;
  for (;;) {
    const done = !producing;
    const page = await feed(`lists=feed_a,feed_b&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    pages++;
    assert.ok(page.changes.length <= 7);
    read.push(...page.changes);
    if (page.changes.length === 0)
      assert.equal(page.next_cursor, cursor || page.next_cursor, 'an empty page keeps the cursor');
    cursor = page.next_cursor;
    // Caught up after the producer finished: nothing more will come.
    if (done && !page.has_more) break;
  }
  await producer;
  assert.ok(pages > 12, `${pages} pages`);

  const whole = await feed('lists=feed_a,feed_b&limit=1000');
  assert.equal(whole.has_more, false);
  assert.ok(whole.changes.length > 100, `${whole.changes.length} changes`);
  assert.deepEqual(
    read.map((c) => c.change_id),
    whole.changes.map((c) => c.change_id),
    'no change skipped, none twice, same order',
  );
  assert.equal(new Set(read.map((c) => c.change_id)).size, read.length);
  // Ingest order: versions in commit order, a version's listings before its delistings.
  for (let i = 1; i < read.length; i++) assert.ok(read[i - 1].at <= read[i].at, `${read[i - 1].at} <= ${read[i].at}`);
  assert.ok(
    read.filter((c) => c.value.startsWith('only-in-round-')).every((c, i, all) => i === 0 || c.at >= all[i - 1].at),
  );

  // Polling from the last cursor returns nothing new; a new version is exactly what comes next.
  assert.deepEqual((await feed(`lists=feed_a,feed_b&cursor=${cursor}`)).changes, []);
  await settled(
    svc.url,
    await api.fetchJson(`${svc.url}/api/v1/admin/lists/feed_a/upload`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/x-ndjson' },
      body: '{"entity_type":"email","value":"late@example.org"}\n',
    }),
    ADMIN,
  );
  const late = await feed(`lists=feed_a,feed_b&cursor=${cursor}`);
  assert.ok(late.changes.some((c) => c.kind === 'listed' && c.value === 'late@example.org'));
  assert.ok(late.changes.every((c) => c.list === 'feed_a'));
});

test('filters, the CSV page and refusals', async () => {
  const all = (await feed('lists=feed_a,feed_b&limit=1000')).changes;
  const delistedEmails = (await feed('lists=feed_b&kinds=delisted&entity_types=email&limit=1000')).changes;
  assert.deepEqual(
    delistedEmails.map((c) => c.change_id),
    all
      .filter((c) => c.list === 'feed_b' && c.kind === 'delisted' && c.entity_type === 'email')
      .map((c) => c.change_id),
  );
  assert.ok(delistedEmails.length > 0);
  const since = all[Math.floor(all.length / 2)].at;
  assert.deepEqual(
    (await feed(`lists=feed_a,feed_b&since=${encodeURIComponent(since)}&limit=1000`)).changes.map((c) => c.change_id),
    all.filter((c) => c.at >= since).map((c) => c.change_id),
  );
  for (const c of all) {
    assert.match(c.change_id, /^chg_[0-9a-f]{32}$/);
    assert.match(c.list_version, /^[0-9a-f]{16}$/);
  }

  const csv = await fetch(`${svc.url}/api/v1/changes?lists=feed_a&limit=5&format=csv`);
  assert.equal(csv.status, 200);
  assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  const json = await feed('lists=feed_a&limit=5');
  assert.equal(csv.headers.get('x-next-cursor'), json.next_cursor);
  assert.equal(csv.headers.get('x-has-more'), String(json.has_more));
  const lines = (await csv.text()).trimEnd().split('\r\n');
  assert.equal(lines[0], 'change_id,kind,list,list_version,entity_type,value,metadata,source_url,at');
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(',')[0]),
    json.changes.map((c) => c.change_id),
  );

  // The whole public feed holds the registry lists' changes too: those of the two lists are among them, in order.
  const publicIds = new Set((await feed('limit=1000')).changes.map((c) => c.change_id));
  assert.ok(all.every((c) => publicIds.has(c.change_id)));

  const refused = async (query: string, status: number, loc?: string) => {
    const r = await api.fetchJson(`${svc.url}/api/v1/changes?${query}`);
    assert.equal(r.status, status, query);
    if (loc) assert.deepEqual((r.body as { detail: { loc: string[] }[] }).detail[0].loc, ['query', loc], query);
  };
  await refused('cursor=nonsense', 422, 'cursor');
  await refused(`cursor=${Buffer.from('s:12x').toString('base64url')}`, 422, 'cursor');
  await refused('kinds=listed,moved', 422, 'kinds');
  await refused('entity_types=ship', 422, 'entity_types');
  await refused('since=yesterday', 422, 'since');
  await refused('limit=0', 422, 'limit');
  await refused('limit=1001', 422, 'limit');
  await refused('format=xml', 422, 'format');
  await refused('lists=nope', 400);
});
