/**
 * Audit inserts into embedded ClickHouse (chDB) through the service's writers, after
 * `node scripts/build.mjs`:
 *
 *   node dist/bench/audit.js [matchRows] [batch]
 *     Burst: as fast as possible, 300000 audit match rows by default. Each simulated request
 *     pushes as the gate does: its usage row (`usage.push([row])`) and its two match rows
 *     (`matches.push(rows)`).
 *   node dist/bench/audit.js paced [rowsPerSecond] [seconds] [batch]
 *     Paced: 75000 rows/s for 10 s by default, the rate of the service under HTTP load (one usage
 *     row and one match row per request); a 1 ms timer pushes the requests due by then, as they
 *     arrive between the HTTP callbacks, and AUDIT_FLUSH_MS is the service's.
 * `batch` is AUDIT_BATCH_ROWS, the service's default unless given. `--without-rollups` drops the
 * materialized views of the rollups (src/audit/schema.ts ROLLUPS) before the run, so that runs
 * alternated with and without it give their cost at insert (docs/clickhouse.md).
 *
 * Both flush the writers, then wait `--tail` seconds (default 3) so that the merges the inserts
 * set off are counted too, then count both tables: the run fails if any row is missing. Prints
 * JSON: stored rows per second (up to the flush), the mean time of one request's `push` calls,
 * the main thread's busy time per row (event loop utilization: building the rows, pushing,
 * inserting, GC), and CPU time per row from the first push to the end of the tail: the whole
 * process (every thread: chDB's parsers, part writers and merges included), its kernel share
 * (creating and writing the files of parts), the main thread alone, and the process net of its
 * idle CPU (measured for 2 s before the run: chDB's background threads are not free when nothing
 * is written). `threads_ms` is where the CPU went, by thread name; `parts` the active parts left
 * at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config.js';
import { openAuditStore } from '../src/audit/store.js';
import { ROLLUPS } from '../src/audit/schema.js';
import type { AuditMatchRow, UsageRow } from '../src/audit/rows.js';
import { threadTicks, TICK_US } from './proc-cpu.js';

const args = process.argv.slice(2);
const tailAt = args.indexOf('--tail');
const tailSeconds = tailAt >= 0 ? Number(args.splice(tailAt, 2)[1]) : 3;
const withoutAt = args.indexOf('--without-rollups');
const rollups = withoutAt < 0;
if (!rollups) args.splice(withoutAt, 1);
const mode = args[0] === 'paced' ? 'paced' : 'burst';
if (mode === 'paced') args.shift();
const matchRows = mode === 'burst' ? Number(args[0] ?? 300_000) : 0;
const rowsPerSecond = mode === 'paced' ? Number(args[0] ?? 75_000) : 0;
const pacedSeconds = mode === 'paced' ? Number(args[1] ?? 10) : 0;
const batchArg = args[mode === 'burst' ? 1 : 2];
const matchesPerRequest = mode === 'burst' ? 2 : 1;
const requests =
  mode === 'burst'
    ? Math.ceil(matchRows / matchesPerRequest)
    : Math.round((rowsPerSecond / (1 + matchesPerRequest)) * pacedSeconds);

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

const dir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
// The service's AUDIT_BATCH_ROWS unless given; AUDIT_FLUSH_MS the service's when paced.
const cfg = loadConfig({
  DATA_DIR: dir,
  ...(batchArg ? { AUDIT_BATCH_ROWS: batchArg } : {}),
  ...(mode === 'burst' ? { AUDIT_FLUSH_MS: '200' } : {}),
});
const batch = cfg.AUDIT_BATCH_ROWS;
const store = await openAuditStore(cfg);
if (!rollups) for (const r of ROLLUPS) await store.client.command({ query: `DROP VIEW screening.${r.name}_mv` });
const lists = ['ofac_sdn', 'un_sc', 'eu_fsf', 'uk_hmt', 'crypto_scam'];
const base = Date.now();
// Values as the gate gets them: parsed from the request and read from the loaded lists (strings
// that exist before the row does).
const values = JSON.parse(
  JSON.stringify(Array.from({ length: 65_536 }, (_, i) => `0x${(i * 2_654_435_761).toString(16).padStart(40, '0')}`)),
) as string[];

let pushMs = 0;
function request(r: number, time: number): void {
  const requestId = `req-${r}`;
  const customer = 1 + (r % 50);
  const usage: UsageRow = {
    time,
    customer_id: customer,
    payer: '',
    request_id: requestId,
    endpoint: 'screen.crypto',
    status: 200,
    credits: 1,
    method: 'quota',
    amount: '0',
    tx_hash: '',
    network: '',
  };
  const matches: AuditMatchRow[] = [];
  for (let k = 0; k < matchesPerRequest; k++) {
    matches.push({
      time,
      customer_id: customer,
      payer: '',
      request_id: requestId,
      endpoint: 'screen.crypto',
      screened_value: values[(r * matchesPerRequest + k) & 65_535],
      matched_value: values[(r * matchesPerRequest + k) & 65_535],
      list: lists[(r + k) % lists.length],
      list_type: 'sanctions',
      match: 'exact',
      list_version: '3f1c2a9b8d7e6f50',
      as_of: null,
      evidence: {},
    });
  }
  const p0 = performance.now();
  store.usage.push([usage]);
  store.matches.push(matches);
  pushMs += performance.now() - p0;
}

async function burst(): Promise<void> {
  const requestsPerYield = Math.max(1, Math.floor(batch / matchesPerRequest));
  for (let r = 0; r < requests; r++) {
    request(r, base + r);
    // Let inserts progress as they would between requests.
    if (r % requestsPerYield === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

function paced(): Promise<void> {
  const perMs = requests / (pacedSeconds * 1000);
  const start = performance.now();
  let sent = 0;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(requests, Math.floor((performance.now() - start) * perMs));
      const now = Date.now();
      for (; sent < due; sent++) request(sent, now);
      if (sent === requests) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
}

const idle0 = process.cpuUsage();
const idleT0 = performance.now();
await sleep(2000);
const idleCpuMsPerS = cpuMs(process.cpuUsage(idle0)) / ((performance.now() - idleT0) / 1000);

const threads0 = threadTicks();
const cpu0 = process.cpuUsage();
const elu0 = performance.eventLoopUtilization();
const t0 = performance.now();
await (mode === 'burst' ? burst() : paced());
await Promise.all([store.usage.flush(), store.matches.flush()]);
const seconds = (performance.now() - t0) / 1000;
const busyMs = performance.eventLoopUtilization(elu0).active;
await sleep(tailSeconds * 1000);
const windowSeconds = (performance.now() - t0) / 1000;
const processCpu = process.cpuUsage(cpu0);
const processMs = cpuMs(processCpu);
const threadMs = new Map<string, number>();
let mainMs = 0;
for (const [tid, t] of threadTicks()) {
  const ms = ((t.ticks - (threads0.get(tid)?.ticks ?? 0)) * TICK_US) / 1000;
  if (tid === process.pid) mainMs = ms;
  else threadMs.set(t.name, (threadMs.get(t.name) ?? 0) + ms);
}

async function select<T>(query: string): Promise<T[]> {
  const rs = await store.client.query({ query, format: 'JSONEachRow' });
  return rs.json<T>();
}
const count = async (table: string) =>
  (await select<{ n: number }>(`SELECT toUInt32(count()) AS n FROM screening.${table}`))[0].n;
const stored = { matches: await count('audit_matches'), usage: await count('usage') };
const parts = Object.fromEntries(
  (
    await select<{ table: string; n: number }>(
      "SELECT table, toUInt32(count()) AS n FROM system.parts WHERE database = 'screening' AND active GROUP BY table ORDER BY table",
    )
  ).map((p) => [p.table, p.n]),
);
await store.close();
rmSync(dir, { recursive: true, force: true });
const rows = requests * matchesPerRequest + requests;
const us = (ms: number) => Number(((ms * 1000) / rows).toFixed(2));
const result = {
  mode,
  rollups,
  requests,
  rows,
  batch,
  ...(mode === 'paced' ? { target_rows_per_second: rowsPerSecond } : {}),
  seconds: Number(seconds.toFixed(3)),
  rows_per_second: Math.round(rows / seconds),
  request_push_us: Number(((pushMs * 1000) / requests).toFixed(2)),
  main_thread_us_per_row: us(busyMs),
  tail_seconds: tailSeconds,
  cpu_us_per_row: us(processMs),
  system_cpu_us_per_row: us(processCpu.system / 1000),
  main_cpu_us_per_row: us(mainMs),
  net_cpu_us_per_row: us(processMs - idleCpuMsPerS * windowSeconds),
  idle_cpu_ms_per_s: Number(idleCpuMsPerS.toFixed(1)),
  threads_ms: Object.fromEntries(
    [...threadMs]
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8),
  ),
  parts,
  stored,
  missing: rows - stored.matches - stored.usage,
};
console.log(JSON.stringify(result));
if (stored.matches !== requests * matchesPerRequest || stored.usage !== requests) process.exitCode = 1;
