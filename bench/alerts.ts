/**
 * The alert list over a large customer: ROWS alerts (default 1M) of one customer, plus 100,000
 * of another, generated inside the control-plane database with the service's own tables
 * (migration 070). Then `AlertQueries.list` (the query behind GET /account/alerts) is timed,
 * sequential calls, for the first page, a deep keyset page and each filter: p50 / p95 / max
 * against the 200 ms target. Each call alternates with the same query as one statement, the
 * planner's choice alone (`new AlertQueries(db, false)`): the table gives both, same moments.
 *
 *   node --import tsx bench/alerts.ts [rows] [--runs N] [--explain] [--keep DIR]
 *
 * --keep DIR: the PGlite database lives in DIR and stays; a DIR already filled is used as it is
 * (filling 1.1M alerts takes 5 to 25 minutes on this machine).
 * --explain: after the table, each query's plan as EXPLAIN (ANALYZE, BUFFERS) gives it (which
 * index, how many buffers): to tell a slow plan from a loaded machine.
 *
 * DATABASE_URL: a PostgreSQL database to fill (its alerts are added to); else embedded PGlite in
 * a temporary directory. Prints a markdown section on stdout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { AlertQueries, type AlertListRequest } from '../src/alerts/queries.js';
import { migrate } from '../src/store/migrate.js';
import { openPglite } from '../src/store/pglite.js';
import { openPostgres } from '../src/store/postgres.js';
import type { Db } from '../src/store/db.js';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 50;
const EXPLAIN = args.includes('--explain');
const keepAt = args.indexOf('--keep');
const KEEP = keepAt >= 0 ? args[keepAt + 1] : undefined;
const ROWS = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--runs') ?? 1_000_000);

const LISTS = ['ofac_sdn', 'un_sc', 'eu_fsf', 'uk_hmt', 'ofac_crypto', 'ca_sema', 'au_dfat', 'ch_seco'];
const KINDS = ['exact', 'fuzzy', 'domain', 'subdomain'];
const STATUSES = ['open', 'open', 'open', 'escalated', 'confirmed', 'false_positive', 'closed'];

async function fill(db: Db, customerId: number, rows: number): Promise<void> {
  // One statement per 100,000 alerts: `last_seen` spread over 90 days, ids in no time order, scores
  // spread over 0.5..1 in no order either.
  for (let start = 0; start < rows; start += 100_000) {
    const n = Math.min(100_000, rows - start);
    await db.query(
      `INSERT INTO alerts (customer_id, screened_value, matched_value, list, list_type, match, list_version,
         endpoint, request_id, status, occurrences, first_seen, last_seen, listed_key, score)
       SELECT $1, 'subject ' || (g::bigint * 7919 % $3), 'Listed Party ' || g, ($4::text[])[1 + g % 8], 'sanctions',
         ($5::text[])[1 + g % 4], 'v1', 'screen.name', 'req-' || g, ($6::text[])[1 + g % 7], 1 + g % 5,
         now() - interval '90 days', now() - ((g * 2654435761::bigint % 7776000) || ' seconds')::interval,
         'party-' || g, 0.5 + (g::bigint * 40503 % 5001) / 10000.0
       FROM generate_series($2::int, $2::int + $7::int - 1) AS g`,
      [customerId, start, rows, LISTS, KINDS, STATUSES, n],
    );
  }
}

/** `db`, with the plan of each query it runs kept in `plans` (the query itself still answers). */
function explaining(db: Db, plans: string[]): Db {
  return {
    ...db,
    query: async <T>(sql: string, params?: unknown[]) => {
      // The list's own estimates (EXPLAIN of a filter) run as they are.
      if (sql.trimStart().startsWith('EXPLAIN')) return db.query<T>(sql, params);
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      plans.push(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
      return db.query<T>(sql, params);
    },
  };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const dir = process.env.DATABASE_URL ? null : (KEEP ?? mkdtempSync(join(tmpdir(), 'bench-alerts-')));
  const db = dir ? await openPglite(dir) : await openPostgres(process.env.DATABASE_URL!);
  try {
    await migrate(db);
    const filled = await db.query<{ id: number }>("SELECT id FROM customers WHERE name = 'bench alerts'");
    const customer = async (name: string) =>
      (
        await db.query<{ id: number }>('INSERT INTO customers (name, monthly_quota) VALUES ($1, 1) RETURNING id', [
          name,
        ])
      ).rows[0].id;
    const t0 = performance.now();
    let big = filled.rows[0]?.id;
    if (big === undefined || !KEEP) {
      big = await customer('bench alerts');
      const other = await customer('bench alerts, other');
      await fill(db, big, ROWS);
      await fill(db, other, 100_000);
      await db.query('ANALYZE alerts');
    }
    const fillSeconds = (performance.now() - t0) / 1000;

    const store = new AlertQueries(db);
    const planner = new AlertQueries(db, false);
    const deepPage = async (r: Omit<AlertListRequest, 'limit'>) => {
      let cursor: string | undefined;
      for (let i = 0; i < 20; i++)
        cursor = (await store.list(big, { ...r, limit: 500, cursor })).next_cursor ?? undefined;
      return cursor;
    };
    const deepTime = await deepPage({});
    const deepScore = await deepPage({ sort: 'score' });
    const week = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const cases: [string, AlertListRequest][] = [
      ['first page, limit 50', { limit: 50 }],
      ['page after 10,000 alerts (cursor), limit 50', { limit: 50, cursor: deepTime }],
      ['oldest first (order asc)', { limit: 50, order: 'asc' }],
      ['limit 500', { limit: 500 }],
      ['status escalated', { limit: 50, status: 'escalated' }],
      ['list un_sc', { limit: 50, list: 'un_sc' }],
      ['kind fuzzy', { limit: 50, kind: 'fuzzy' }],
      ['last 7 days', { limit: 50, since: week }],
      ['score ≥ 0.95', { limit: 50, min_score: 0.95 }],
      ['score 0.800–0.801', { limit: 50, min_score: 0.8, max_score: 0.801 }],
      ['sort score', { limit: 50, sort: 'score' }],
      ['sort score asc', { limit: 50, sort: 'score', order: 'asc' }],
      ['sort score, page after 10,000 alerts', { limit: 50, sort: 'score', cursor: deepScore }],
      ['sort score, status open', { limit: 50, sort: 'score', status: 'open' }],
      ['sort score, last 7 days', { limit: 50, sort: 'score', since: week }],
      [
        'open, un_sc, score ≥ 0.9, sort score',
        { limit: 50, status: 'open', list: 'un_sc', min_score: 0.9, sort: 'score' },
      ],
      ['text "party 12345"', { limit: 50, text: 'party 12345' }],
      ['text "subject 4242"', { limit: 50, text: 'subject 4242' }],
      ['text "party 1" (1 in 9 alerts)', { limit: 50, text: 'party 1' }],
      ['text "party 12" (1 in 90)', { limit: 50, text: 'party 12' }],
      ['text "party 123" (1 in 900)', { limit: 50, text: 'party 123' }],
      ['text "zzz" (none)', { limit: 50, text: 'zzz' }],
      ['text "party 12345", sort score', { limit: 50, text: 'party 12345', sort: 'score' }],
      ['text "party 12345", status escalated', { limit: 50, text: 'party 12345', status: 'escalated' }],
      ['text "subject 1", sort score asc', { limit: 50, text: 'subject 1', sort: 'score', order: 'asc' }],
      ['text "party 99999", page after 10,000 alerts', { limit: 50, text: 'party 99999', cursor: deepTime }],
      ['text "listed 12" (none; every word common)', { limit: 50, text: 'listed 12' }],
    ];
    const out = [
      `## Alert list, ${ROWS.toLocaleString('en')} alerts of one customer (${db.kind})`,
      '',
      `Filled in ${fillSeconds.toFixed(1)} s. ${RUNS} sequential calls of AlertQueries.list each, alternating with the`,
      `planner's choice alone (one statement); load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at the start.`,
      '',
      '| Query | p50 ms | p95 ms | max ms | rows | planner alone: p50 ms | p95 ms | p50 ÷ planner alone |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const [name, f] of cases) {
      const times: number[] = [];
      const alone: number[] = [];
      let rows = 0;
      const timed = async (q: AlertQueries, into: number[]) => {
        const s = performance.now();
        const ids = (await q.list(big, f)).items.map((a) => a.id).join(',');
        into.push(performance.now() - s);
        return ids;
      };
      for (let i = 0; i < RUNS; i++) {
        // Each goes first every other call; the two must give the same page.
        let a: string, b: string;
        if (i % 2 === 0) {
          a = await timed(store, times);
          b = await timed(planner, alone);
        } else {
          b = await timed(planner, alone);
          a = await timed(store, times);
        }
        if (a !== b) throw new Error(`${name}: the band path and the planner's choice answer different pages`);
        rows = a === '' ? 0 : a.split(',').length;
      }
      times.sort((a, b) => a - b);
      alone.sort((a, b) => a - b);
      out.push(
        `| ${name} | ${pct(times, 50).toFixed(1)} | ${pct(times, 95).toFixed(1)} | ${times[times.length - 1].toFixed(1)} | ${rows} | ${pct(alone, 50).toFixed(1)} | ${pct(alone, 95).toFixed(1)} | ${(pct(times, 50) / pct(alone, 50)).toFixed(2)} |`,
      );
    }
    out.push(
      '',
      `Load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}.`,
    );
    // The table first: the plans below take minutes more.
    console.log(out.join('\n'));
    if (EXPLAIN) {
      for (const [name, f] of cases) {
        const plans: string[] = [];
        await new AlertQueries(explaining(db, plans)).list(big, f);
        console.log(['', `### ${name}`, '', '```', ...plans, '```'].join('\n'));
      }
    }
  } finally {
    await db.close();
    if (dir && !KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
