/**
 * Audit insert throughput into embedded ClickHouse (chDB) through the service's BatchWriter:
 * `node --import tsx bench/audit.ts [rows] [batch]` (defaults 300000 rows, batches of 10000).
 * Pushes rows as the gate does (one request's rows at a time), closes the writer (flush), then
 * counts the stored rows: the run fails if any row is missing. Prints rows/s as JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { openAuditStore } from '../src/audit/store.js';
import type { AuditMatchRow } from '../src/audit/rows.js';

const total = Number(process.argv[2] ?? 300_000);
const batch = Number(process.argv[3] ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
const store = await openAuditStore(loadConfig({ DATA_DIR: dir, AUDIT_BATCH_ROWS: String(batch), AUDIT_FLUSH_MS: '200' }));
const lists = ['ofac_sdn', 'un_sc', 'eu_fsf', 'uk_hmt', 'crypto_scam'];
const base = Date.now();

const t0 = performance.now();
for (let i = 0; i < total; i += 2) {
  const requestId = `req-${i}`;
  const rows: AuditMatchRow[] = [0, 1].map((k) => ({
    time: base + i,
    customer_id: 1 + (i % 50),
    payer: '',
    request_id: requestId,
    endpoint: 'screen.crypto',
    screened_value: `0x${(i + k).toString(16).padStart(40, '0')}`,
    matched_value: `0x${(i + k).toString(16).padStart(40, '0')}`,
    list: lists[(i + k) % lists.length],
    list_type: 'sanctions',
    match: 'exact',
  }));
  store.matches.push(rows);
  // Let inserts progress as they would between requests.
  if (i % batch === 0) await new Promise((r) => setImmediate(r));
}
await store.matches.flush();
const seconds = (performance.now() - t0) / 1000;
const rs = await store.client.query({ query: 'SELECT toUInt32(count()) AS n FROM screening.audit_matches', format: 'JSONEachRow' });
const stored = ((await rs.json()) as { n: number }[])[0].n;
await store.close();
rmSync(dir, { recursive: true, force: true });
const result = { rows: total, batch, seconds: Number(seconds.toFixed(3)), rows_per_second: Math.round(total / seconds), stored, dropped: total - stored };
console.log(JSON.stringify(result));
if (stored !== total) process.exitCode = 1;
