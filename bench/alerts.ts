/**
 * The alert list over a large customer: ROWS alerts (default 1M) of one customer, plus 100,000
 * of another, generated inside the control-plane database with the service's own tables
 * (migration 070). Then `AlertStore.list` (the query behind GET /account/alerts) is timed,
 * sequential calls, for the first page, a deep keyset page and each filter: p50 / p95 / max
 * against the 200 ms target.
 *
 *   node --import tsx bench/alerts.ts [rows] [--runs N]
 *
 * DATABASE_URL: a PostgreSQL database to fill (its alerts are added to); else embedded PGlite in
 * a temporary directory. Prints a markdown section on stdout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import pino from 'pino';
import { AlertStore, type AlertFilter } from '../src/alerts/store.js';
import { migrate } from '../src/store/migrate.js';
import { openPglite } from '../src/store/pglite.js';
import { openPostgres } from '../src/store/postgres.js';
import type { Db } from '../src/store/db.js';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 50;
const ROWS = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--runs') ?? 1_000_000);

const LISTS = ['ofac_sdn', 'un_sc', 'eu_fsf', 'uk_hmt', 'ofac_crypto', 'ca_sema', 'au_dfat', 'ch_seco'];
const KINDS = ['exact', 'fuzzy', 'domain', 'subdomain'];
const STATUSES = ['open', 'open', 'open', 'escalated', 'confirmed', 'false_positive', 'closed'];

async function fill(db: Db, customerId: number, rows: number): Promise<void> {
  // One statement per 100,000 alerts: `last_seen` spread over 90 days, ids in no time order.
  for (let start = 0; start < rows; start += 100_000) {
    const n = Math.min(100_000, rows - start);
    await db.query(
      `INSERT INTO alerts (customer_id, screened_value, matched_value, list, list_type, match, list_version,
         endpoint, request_id, status, occurrences, first_seen, last_seen)
       SELECT $1, 'subject ' || (g::bigint * 7919 % $3), 'Listed Party ' || g, ($4::text[])[1 + g % 8], 'sanctions',
         ($5::text[])[1 + g % 4], 'v1', 'screen.name', 'req-' || g, ($6::text[])[1 + g % 7], 1 + g % 5,
         now() - interval '90 days', now() - ((g * 2654435761::bigint % 7776000) || ' seconds')::interval
       FROM generate_series($2::int, $2::int + $7::int - 1) AS g`,
      [customerId, start, rows, LISTS, KINDS, STATUSES, n],
    );
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const dir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'bench-alerts-'));
  const db = dir ? await openPglite(dir) : await openPostgres(process.env.DATABASE_URL!);
  try {
    await migrate(db);
    const customer = async (name: string) =>
      (
        await db.query<{ id: number }>('INSERT INTO customers (name, monthly_quota) VALUES ($1, 1) RETURNING id', [
          name,
        ])
      ).rows[0].id;
    const big = await customer('bench alerts');
    const other = await customer('bench alerts, other');
    const t0 = performance.now();
    await fill(db, big, ROWS);
    await fill(db, other, 100_000);
    await db.query('ANALYZE alerts');
    const fillSeconds = (performance.now() - t0) / 1000;

    // Only the list is timed: no decision is made, so none reaches the audit trail.
    const store = new AlertStore(db, {
      decisions: { push() {}, write: async () => {} },
      log: pino({ level: 'silent' }),
    });
    let deep: string | undefined;
    for (let i = 0; i < 20; i++) deep = (await store.list(big, { limit: 500, cursor: deep })).next_cursor ?? undefined;
    const cases: [string, AlertFilter][] = [
      ['first page, limit 50', { limit: 50 }],
      ['page after 10,000 alerts (cursor), limit 50', { limit: 50, cursor: deep }],
      ['limit 500', { limit: 500 }],
      ['status escalated', { limit: 50, status: 'escalated' }],
      ['list un_sc', { limit: 50, list: 'un_sc' }],
      ['kind fuzzy', { limit: 50, kind: 'fuzzy' }],
      ['last 7 days', { limit: 50, since: new Date(Date.now() - 7 * 86_400_000).toISOString() }],
      ['text "party 12345"', { limit: 50, text: 'party 12345' }],
    ];
    const out = [
      `## Alert list, ${ROWS.toLocaleString('en')} alerts of one customer (${db.kind})`,
      '',
      `Filled in ${fillSeconds.toFixed(1)} s. ${RUNS} sequential calls of AlertStore.list each; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}.`,
      '',
      '| Query | p50 ms | p95 ms | max ms | rows |',
      '| --- | ---: | ---: | ---: | ---: |',
    ];
    for (const [name, f] of cases) {
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        rows = (await store.list(big, f)).items.length;
        times.push(performance.now() - s);
      }
      times.sort((a, b) => a - b);
      out.push(
        `| ${name} | ${pct(times, 50).toFixed(1)} | ${pct(times, 95).toFixed(1)} | ${times[times.length - 1].toFixed(1)} | ${rows} |`,
      );
    }
    console.log(out.join('\n'));
  } finally {
    await db.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
