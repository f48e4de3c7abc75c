import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { loadConfig } from '../../src/config.js';
import { openAuditStore, type AuditStore } from '../../src/audit/store.js';
import {
  AnalyticsQueries,
  DEFAULT_BOUNDS,
  rollupBlocks,
  type Scope,
  type TopValue,
} from '../../src/audit/analytics.js';
import { renderDdl, ROLLUPS } from '../../src/audit/schema.js';
import { fillRollups, migrateClickHouse } from '../../src/audit/clickhouse.js';
import type { AuditMatchRow } from '../../src/audit/rows.js';
import type { DateRange } from '../../src/audit/queries.js';

/**
 * The most matched values come from the `value_matches` rollup: the same answer as the query
 * over the rows themselves, for every scope and range, including the edges of days and blocks.
 */
const dir = mkdtempSync(join(tmpdir(), 'top-values-test-'));
let store: AuditStore;
const DAY = 86_400_000;
// 2025-01-02 is day 20090 since 1970-01-01: not the first day of any block longer than 2 days.
const first = Date.parse('2025-01-02T00:00:00Z');
const DAYS = 70;

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 6,000 matches of three customers over 70 days: skewed values, some the same text on two lists, times on the first and last millisecond of days. */
function generated(): AuditMatchRow[] {
  const rnd = random(7);
  const lists = ['ofac_sdn', 'eu_fsf', 'disposable_email'];
  return Array.from({ length: 6000 }, (_, i) => {
    const day = Math.floor(rnd() * DAYS);
    const edge = rnd();
    const inDay = edge < 0.15 ? 0 : edge < 0.3 ? DAY - 1 : Math.floor(rnd() * DAY);
    const value = Math.floor(1 / (rnd() * 0.98 + 0.02)) % 40;
    return {
      time: first + day * DAY + inDay,
      customer_id: 1 + (i % 3 === 0 ? 1 : i % 7 === 0 ? 2 : 0),
      payer: '',
      request_id: `r${i}`,
      endpoint: 'screen.crypto',
      screened_value: `s${i}`,
      matched_value: `0xv${value % 25}`,
      list: lists[value % 3],
      list_type: 'sanctions',
      match: 'exact',
      list_version: '',
      as_of: null,
      evidence: {},
    };
  });
}

/** The answer read from the rows alone (no projection, no rollup), ranked and ordered as topValues ranks and orders. */
async function fromRows(
  client: ClickHouseClient,
  database: string,
  scope: Scope,
  r: DateRange,
  limit: number,
): Promise<TopValue[]> {
  const rs = await client.query({
    query: `SELECT matched_value, list, toUInt64(count()) AS matches, toUnixTimestamp64Milli(max(time)) AS last_ms
              FROM \`${database}\`.audit_matches
             WHERE toDate(time) >= {from:Date} AND toDate(time) <= {to:Date} ${scope.customerId === null ? '' : 'AND customer_id = {customer:UInt32}'}
             GROUP BY list, matched_value ORDER BY matches DESC, cityHash64(list, matched_value) LIMIT {limit:UInt32}
             SETTINGS optimize_use_projections = 0`,
    query_params: {
      from: new Date(r.from).toISOString().slice(0, 10),
      to: new Date(r.to - DAY).toISOString().slice(0, 10),
      customer: scope.customerId ?? 0,
      limit,
    },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ matched_value: string; list: string; matches: number; last_ms: number }>())
    .map((x) => ({
      matched_value: x.matched_value,
      list: x.list,
      matches: Number(x.matches),
      last_match_at: new Date(Number(x.last_ms)).toISOString(),
    }))
    .sort(
      (a, b) => b.matches - a.matches || a.list.localeCompare(b.list) || a.matched_value.localeCompare(b.matched_value),
    );
}

/** Ranges of 1 to 80 days from before the rows to their last day, starting on odd days, on an even one and on the first day of a 32-day block (2025-01-06). */
function ranges(): DateRange[] {
  const out: DateRange[] = [];
  for (const offset of [-3, 0, 1, 6, 37, 69]) {
    for (const days of [1, 2, 9, 16, 33, 80])
      out.push({ from: first + offset * DAY, to: first + (offset + days) * DAY });
  }
  return out;
}

before(async () => {
  store = await openAuditStore(loadConfig({ DATA_DIR: join(dir, 'data') }));
  const rows = generated();
  // Several inserts: the view sees each insert on its own, and merges combine their rows.
  for (let i = 0; i < rows.length; i += 1000) await store.matches.write(rows.slice(i, i + 1000));
});
after(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('top values from the rollup', () => {
  test('a range is covered by aligned blocks, each day once', () => {
    for (const r of ranges()) {
      const days: number[] = [];
      for (const [span, start] of rollupBlocks(r)) {
        const d = Date.parse(`${start}T00:00:00Z`) / DAY;
        assert.equal(d % span, 0, `${start} begins a block of ${span} days`);
        for (let i = 0; i < span; i++) days.push(d + i);
      }
      assert.deepEqual(
        days,
        Array.from({ length: (r.to - r.from) / DAY }, (_, i) => r.from / DAY + i),
      );
    }
    // 30 days (the dashboard's default) are a handful of blocks.
    assert.deepEqual(
      rollupBlocks({ from: Date.parse('2026-10-28T00:00:00Z'), to: Date.parse('2026-11-27T00:00:00Z') }),
      [
        [2, '2026-10-28'],
        [4, '2026-10-30'],
        [8, '2026-11-03'],
        [16, '2026-11-11'],
      ],
    );
  });

  test('the same answer as the rows, for a customer, every customer and any range', async () => {
    const q = new AnalyticsQueries(store.client, 'screening', { ...DEFAULT_BOUNDS, requireProjections: true });
    let compared = 0;
    for (const scope of [{ customerId: 1 }, { customerId: 2 }, { customerId: null }] as Scope[]) {
      for (const r of ranges()) {
        for (const limit of [3, 100]) {
          const expected = await fromRows(store.client, 'screening', scope, r, limit);
          assert.deepEqual(
            await q.topValues(scope, r, limit),
            expected,
            `${JSON.stringify(scope)} ${new Date(r.from).toISOString()} + ${(r.to - r.from) / DAY} days, limit ${limit}`,
          );
          if (expected.length > 0) compared++;
        }
      }
    }
    assert.ok(compared > 150, `${compared} non-empty answers compared`);
    assert.deepEqual(await q.topValues({ customerId: 9 }, { from: first, to: first + DAYS * DAY }, 10), []);
  });

  test('a day is its own: a match at 23:59:59.999 is not counted on the next day', async () => {
    const q = new AnalyticsQueries(store.client, 'screening');
    const day = Date.parse('2025-06-01T00:00:00Z');
    const row = (time: number, value: string): AuditMatchRow => ({
      ...generated()[0],
      customer_id: 4,
      time,
      matched_value: value,
      request_id: value,
    });
    await store.matches.write([
      row(day - 1, 'before'),
      row(day, 'first'),
      row(day + DAY - 1, 'last'),
      row(day + DAY, 'after'),
    ]);
    const top = await q.topValues({ customerId: 4 }, { from: day, to: day + DAY }, 10);
    assert.deepEqual(
      top.map((v) => [v.matched_value, v.last_match_at]),
      [
        ['first', '2025-06-01T00:00:00.000Z'],
        ['last', '2025-06-01T23:59:59.999Z'],
      ],
    );
  });
});

test('a rollup created after the rows were stored counts them (and the projection it replaces is dropped)', async () => {
  // The database as an earlier release left it: no rollups, audit_matches with values_by_day.
  const oldDdl = renderDdl('before_rollup')
    .filter((ddl) => !ROLLUPS.some((r) => ddl.includes(`\`${r.name}\``)))
    .map((ddl) =>
      ddl.replace(
        '  PROJECTION by_day (SELECT customer_id, toDate(time), endpoint, list,',
        '  PROJECTION values_by_day (SELECT customer_id, toDate(time), cityHash64(list, matched_value), count(), max(time) GROUP BY customer_id, toDate(time), cityHash64(list, matched_value)),\n$&',
      ),
    );
  for (const query of oldDdl) await store.client.command({ query });
  const cfg = { CLICKHOUSE_DATABASE: 'before_rollup', CLICKHOUSE_CLUSTER: undefined };
  /** A start: the tables migrated, then the rollups filled (in the service, once it serves: test/audit/rollup-fill.test.ts). */
  const start = async () =>
    assert.equal(await fillRollups(store.client, cfg, await migrateClickHouse(store.client, cfg)), true);
  const createQuery = async () =>
    (
      await (
        await store.client.query({
          query:
            "SELECT create_table_query AS q FROM system.tables WHERE database = 'before_rollup' AND name = 'audit_matches'",
          format: 'JSONEachRow',
        })
      ).json<{ q: string }>()
    )[0].q;
  assert.match(await createQuery(), /PROJECTION values_by_day/);
  await store.client.command({
    query: 'INSERT INTO before_rollup.audit_matches SELECT * FROM screening.audit_matches',
  });

  await start();
  assert.doesNotMatch(await createQuery(), /values_by_day/);
  const q = new AnalyticsQueries(store.client, 'before_rollup');
  for (const scope of [{ customerId: 1 }, { customerId: null }] as Scope[]) {
    for (const r of [
      { from: first, to: first + DAYS * DAY },
      { from: first + 5 * DAY, to: first + 36 * DAY },
    ]) {
      assert.deepEqual(await q.topValues(scope, r, 10), await fromRows(store.client, 'before_rollup', scope, r, 10));
    }
  }
  // Started again: the rollup is filled already and is not filled a second time.
  assert.deepEqual(await migrateClickHouse(store.client, cfg), []);
  const all = { from: first, to: first + DAYS * DAY };
  assert.deepEqual(
    await q.topValues({ customerId: null }, all, 10),
    await fromRows(store.client, 'before_rollup', { customerId: null }, all, 10),
  );
  // A filling stopped half-way (the process killed) is not marked filled: the next start empties it and fills it again.
  await store.client.command({ query: "ALTER TABLE before_rollup.value_matches MODIFY COMMENT ''" });
  await store.client.command({
    query:
      'INSERT INTO before_rollup.value_matches SELECT 1, 0, days, start, hash, matches, last_time FROM before_rollup.value_matches WHERE all_customers = 1',
  });
  assert.notDeepEqual(
    await q.topValues({ customerId: null }, all, 10),
    await fromRows(store.client, 'before_rollup', { customerId: null }, all, 10),
  );
  await start();
  assert.deepEqual(
    await q.topValues({ customerId: null }, all, 10),
    await fromRows(store.client, 'before_rollup', { customerId: null }, all, 10),
  );
});
