/**
 * Audit insert throughput into embedded ClickHouse (chDB) through the service's writers:
 * `node dist/bench/audit.js [matchRows] [batch]` after `node scripts/build.mjs` (defaults 300000
 * audit match rows, batches of 10000). Each simulated request pushes as the gate does: its usage
 * row (`usage.push([row])`) and its two match rows (`matches.push(rows)`). Then the writers are
 * flushed and both tables counted: the run fails if any row is missing. Prints JSON: stored rows
 * per second (both tables, and the match rows alone), the mean time of one request's two `push`
 * calls, and the main thread's busy time per row over the whole run (building the rows, pushing,
 * inserting, GC).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { openAuditStore } from '../src/audit/store.js';
import type { AuditMatchRow, UsageRow } from '../src/audit/rows.js';

const matchRows = Number(process.argv[2] ?? 300_000);
const batch = Number(process.argv[3] ?? 10_000);
const matchesPerRequest = 2;
const requests = Math.ceil(matchRows / matchesPerRequest);
const dir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
const store = await openAuditStore(loadConfig({ DATA_DIR: dir, AUDIT_BATCH_ROWS: String(batch), AUDIT_FLUSH_MS: '200' }));
const lists = ['ofac_sdn', 'un_sc', 'eu_fsf', 'uk_hmt', 'crypto_scam'];
const base = Date.now();
// Values as the gate gets them: parsed from the request and read from the loaded lists (strings
// that exist before the row does).
const values: string[] = JSON.parse(JSON.stringify(Array.from({ length: 65_536 }, (_, i) => `0x${(i * 2_654_435_761).toString(16).padStart(40, '0')}`)));

const requestsPerYield = Math.max(1, Math.floor(batch / matchesPerRequest));
let pushMs = 0;
const elu0 = performance.eventLoopUtilization();
const t0 = performance.now();
for (let r = 0; r < requests; r++) {
  const requestId = `req-${r}`;
  const time = base + r;
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
  const matches: AuditMatchRow[] = [0, 1].map((k) => ({
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
  }));
  const p0 = performance.now();
  store.usage.push([usage]);
  store.matches.push(matches);
  pushMs += performance.now() - p0;
  // Let inserts progress as they would between requests.
  if (r % requestsPerYield === 0) await new Promise((resolve) => setImmediate(resolve));
}
await Promise.all([store.usage.flush(), store.matches.flush()]);
const seconds = (performance.now() - t0) / 1000;
const busyMs = performance.eventLoopUtilization(elu0).active;

async function count(table: string): Promise<number> {
  const rs = await store.client.query({ query: `SELECT toUInt32(count()) AS n FROM screening.${table}`, format: 'JSONEachRow' });
  return ((await rs.json()) as { n: number }[])[0].n;
}
const stored = { matches: await count('audit_matches'), usage: await count('usage') };
await store.close();
rmSync(dir, { recursive: true, force: true });
const rows = requests * matchesPerRequest + requests;
const result = {
  requests,
  rows,
  batch,
  seconds: Number(seconds.toFixed(3)),
  rows_per_second: Math.round(rows / seconds),
  match_rows_per_second: Math.round((requests * matchesPerRequest) / seconds),
  request_push_us: Number(((pushMs * 1000) / requests).toFixed(2)),
  main_thread_us_per_row: Number(((busyMs * 1000) / rows).toFixed(2)),
  stored,
  missing: rows - stored.matches - stored.usage,
};
console.log(JSON.stringify(result));
if (stored.matches !== requests * matchesPerRequest || stored.usage !== requests) process.exitCode = 1;
