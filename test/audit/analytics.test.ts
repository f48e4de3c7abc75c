import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openAuditStore, type AuditStore } from '../../src/audit/store.js';
import { AnalyticsBoundExceeded, AnalyticsQueries, DEFAULT_BOUNDS } from '../../src/audit/analytics.js';
import { renderDdl } from '../../src/audit/schema.js';
import { migrateClickHouse } from '../../src/audit/clickhouse.js';

/** The analytics queries against embedded ClickHouse: served by the projections, bounded. */
const dir = mkdtempSync(join(tmpdir(), 'analytics-test-'));
let store: AuditStore;
const DAY = 86_400_000;
const start = Date.parse('2025-02-01T00:00:00Z');
const range = { from: start, to: start + 3 * DAY };

before(async () => {
  store = await openAuditStore(loadConfig({ DATA_DIR: join(dir, 'fresh') }));
  await store.matches.write(
    [0, 1, 2].map((d) => ({
      time: start + d * DAY + 1000,
      customer_id: 5,
      payer: '',
      request_id: `r${d}`,
      endpoint: 'screen.email',
      screened_value: 'x@y.io',
      matched_value: 'y.io',
      list: 'disposable_email',
      list_type: 'risk',
      match: 'domain',
      list_version: '',
      as_of: null,
      evidence: {},
    })),
  );
  await store.usage.write(
    [0, 1, 2].map((d) => ({
      time: start + d * DAY,
      customer_id: 5,
      payer: '',
      request_id: `r${d}`,
      endpoint: 'screen.email',
      status: 200,
      credits: 1,
      method: 'quota' as const,
      amount: '0',
      tx_hash: '',
      network: '',
    })),
  );
});
after(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('analytics queries', () => {
  test('each is answered from an aggregate projection', async () => {
    const q = new AnalyticsQueries(store.client, 'screening', { ...DEFAULT_BOUNDS, requireProjections: true });
    const scope = { customerId: 5 };
    assert.deepEqual(
      (await q.daily(scope, range)).map((d) => [d.requests, d.matches]),
      [
        [1, 1],
        [1, 1],
        [1, 1],
      ],
    );
    assert.equal((await q.endpoints(scope, range))[0].matches, 3);
    assert.equal((await q.lists({ customerId: null }, range))[0].matches, 3);
    assert.deepEqual(
      (await q.topValues(scope, range, 5)).map((v) => [v.matched_value, v.list, v.matches, v.last_match_at]),
      [['y.io', 'disposable_email', 3, '2025-02-03T00:00:01.000Z']],
    );
    assert.equal((await q.customers(range, 5))[0].requests, 3);
  });

  test('a query over its row bound stops with AnalyticsBoundExceeded', async () => {
    const q = new AnalyticsQueries(store.client, 'screening', { maxSeconds: 10, maxRows: 1 });
    await assert.rejects(q.daily({ customerId: 5 }, range), AnalyticsBoundExceeded);
    await assert.rejects(q.topValues({ customerId: null }, range, 1), /narrow the date range/);
  });
});

test('tables created before the projections get them, built for the rows already stored', async () => {
  // chDB serves one data directory per process: the old tables are another database of it.
  const withoutProjections = (ddl: string) =>
    ddl
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('PROJECTION '))
      .join('\n')
      .replace(/,\n\)/g, '\n)');
  for (const ddl of renderDdl('legacy')) await store.client.command({ query: withoutProjections(ddl) });
  await store.client.command({
    query: `INSERT INTO legacy.usage (time, customer_id, payer, request_id, endpoint, status, credits, method, amount, tx_hash, network)
            VALUES ('2025-02-01 10:00:00', 9, '', 'old', 'screen.id', 200, 1, 'quota', 0, '', '')`,
  });
  const created = async () =>
    (
      (await (
        await store.client.query({
          query: "SELECT create_table_query FROM system.tables WHERE database = 'legacy' AND name = 'usage'",
          format: 'JSONEachRow',
        })
      ).json()) as {
        create_table_query: string;
      }[]
    )[0].create_table_query;
  assert.ok(!(await created()).includes('PROJECTION'));
  await migrateClickHouse(store.client, { CLICKHOUSE_DATABASE: 'legacy', CLICKHOUSE_CLUSTER: undefined });
  assert.match(await created(), /PROJECTION by_day \(/);
  const q = new AnalyticsQueries(store.client, 'legacy', { ...DEFAULT_BOUNDS, requireProjections: true });
  let rows: unknown[] = [];
  // The stored part's projection is built by a background mutation.
  for (let i = 0; i < 300 && rows.length === 0; i++) {
    rows = await q.customers(range, 5).catch(() => []);
    if (rows.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(rows, [{ customer_id: 9, requests: 1, credits: 1, paid_requests: 0 }]);
});
