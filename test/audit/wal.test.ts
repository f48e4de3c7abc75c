import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileAuditStore } from '../support/audit-store.js';
import { streamInsert } from '../../src/audit/clickhouse.js';
import { auditMatchLines, settlementLines, usageLines } from '../../src/audit/formats.js';
import { LoggedWriter } from '../../src/audit/logged-writer.js';
import type { AuditMatchRow, UsageRow } from '../../src/audit/rows.js';
import { storedKeys } from '../../src/audit/store.js';
import { AuditLog } from '../../src/audit/wal.js';
import type { InsertLines } from '../../src/audit/writer.js';

/**
 * The audit log of AUDIT_STRICT against a real embedded ClickHouse: rows are on disk when `write`
 * resolves, and a log abandoned at any point (a crash) is replayed by the next one, each row
 * stored exactly once. ClickHouse here is the store's; the logs live in their own directories.
 */
const storeOf = fileAuditStore('audit-wal-test-');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function logDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'audit-wal-'));
  dirs.push(d);
  return d;
}

const USAGE = 'screening.usage';
const MATCHES = 'screening.audit_matches';

function openLog(dir: string, insert?: InsertLines): AuditLog {
  const client = storeOf().client;
  return new AuditLog({
    dir,
    tables: new Map([
      [USAGE, usageLines.columns],
      [MATCHES, auditMatchLines.columns],
      ['screening.x402_settlements', settlementLines.columns],
    ]),
    insert: insert ?? streamInsert(client),
    stored: storedKeys(client),
    flushMs: 60_000,
  });
}

const T0 = Date.parse('2026-03-01T12:00:00Z');

function usage(i: number, customer: number): UsageRow {
  return {
    time: T0 + i,
    customer_id: customer,
    payer: '',
    request_id: `r\t${customer}-${i}`,
    endpoint: 'screen.crypto',
    status: 200,
    credits: 1,
    method: 'quota',
    amount: '0',
    tx_hash: '',
    network: '',
  };
}

function match(i: number, customer: number): AuditMatchRow {
  return {
    time: T0 + i,
    customer_id: customer,
    payer: '',
    request_id: `r\t${customer}-${i}`,
    endpoint: 'screen.crypto',
    screened_value: 'v',
    matched_value: 'v',
    list: 'ofac_sdn',
    list_type: 'sanctions',
    match: 'exact',
    list_version: '1',
    as_of: null,
    evidence: {},
  };
}

async function count(table: string, customer: number): Promise<number> {
  const rs = await storeOf().client.query({
    query: `SELECT toUInt32(count()) AS n FROM ${table} WHERE customer_id = ${customer}`,
    format: 'JSONEachRow',
  });
  return ((await rs.json()) as { n: number }[])[0].n;
}

/** Writes `n` requests' rows (a usage row and two identical audit rows each) and waits for their fsync. */
async function writeRequests(log: AuditLog, customer: number, n: number): Promise<void> {
  const u = new LoggedWriter(log, USAGE, usageLines);
  const m = new LoggedWriter(log, MATCHES, auditMatchLines);
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      Promise.all([u.write([usage(i, customer)]), m.write([match(i, customer), match(i, customer)])]),
    ),
  );
}

describe('audit log (write-ahead, AUDIT_STRICT)', () => {
  test('write resolves once the rows are in a segment; the flush inserts them and removes it', async () => {
    const dir = logDir();
    const log = openLog(dir);
    await writeRequests(log, 101, 50);
    assert.equal(readdirSync(dir).length, 1, 'one segment holds the rows');
    assert.equal(await count(USAGE, 101), 0, 'not inserted before the segment is sealed');
    await log.close();
    assert.equal(await count(USAGE, 101), 50);
    assert.equal(await count(MATCHES, 101), 100);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a crash between the fsync and the insert: the next start inserts every row once', async () => {
    const dir = logDir();
    await writeRequests(openLog(dir), 102, 40);
    const replay = openLog(dir);
    await replay.flush();
    assert.equal(await count(USAGE, 102), 40);
    assert.equal(await count(MATCHES, 102), 80);
    assert.equal(replay.skipped, 0);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a crash after one table was inserted, before the other: nothing counted twice, nothing lost', async () => {
    const dir = logDir();
    const real = streamInsert(storeOf().client);
    let firstStored!: () => void;
    const stored = new Promise<void>((resolve) => (firstStored = resolve));
    let inserts = 0;
    // The process "dies" right after its first insert returned: the segment is never removed.
    const dying: InsertLines = async (table, columns, lines) => {
      if (inserts++ > 0) return new Promise<void>(() => undefined);
      await real(table, columns, lines);
      firstStored();
      return new Promise<void>(() => undefined);
    };
    const log = openLog(dir, dying);
    await writeRequests(log, 103, 30);
    void log.flush();
    await stored;
    const replay = openLog(dir);
    await replay.flush();
    assert.equal(await count(USAGE, 103), 30);
    assert.equal(await count(MATCHES, 103), 60, 'two identical rows per request, both kept');
    assert.ok(
      replay.skipped === 30 || replay.skipped === 60,
      `the inserted table's rows were skipped (${replay.skipped})`,
    );
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a torn tail (a write cut short) is ignored; the whole frames before it are inserted', async () => {
    const dir = logDir();
    await writeRequests(openLog(dir), 104, 20);
    const [segment] = readdirSync(dir);
    appendFileSync(join(dir, segment), Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 5]));
    const replay = openLog(dir);
    await replay.flush();
    assert.equal(await count(USAGE, 104), 20);
    assert.equal(await count(MATCHES, 104), 40);
  });

  test('a failed insert keeps the segment on disk; the next start inserts it', async () => {
    const dir = logDir();
    const log = openLog(dir, () => Promise.reject(new Error('clickhouse down')));
    await writeRequests(log, 105, 10);
    await assert.rejects(log.close(), /kept for the next start/);
    assert.equal(readdirSync(dir).length, 1);
    const replay = openLog(dir);
    await replay.close();
    assert.equal(await count(USAGE, 105), 10);
    assert.equal(await count(MATCHES, 105), 20);
  });

  test('a segment of the release before the evidence column replays; its rows get an empty evidence', async () => {
    const dir = logDir();
    const earlier = auditMatchLines.columns.slice(0, -1) as [string, ...string[]];
    const previous = new AuditLog({
      dir,
      tables: new Map([[MATCHES, earlier]]),
      insert: () => Promise.reject(new Error('stopped before its insert')),
      stored: storedKeys(storeOf().client),
      flushMs: 60_000,
    });
    // That release's lines: this one's without the last field.
    const lines = [match(0, 106), match(1, 106)].map((r) => auditMatchLines.line(r).replace(/\t[^\t]*\n$/, '\n'));
    previous.append(MATCHES, lines.join(''));
    await previous.sync();
    await assert.rejects(previous.close(), /kept for the next start/);

    const log = openLog(dir);
    const evidence = { value: 'v', list: 'ofac_sdn', metadata: { note: 'tab\there, "quoted" \\' } };
    await new LoggedWriter(log, MATCHES, auditMatchLines).write([{ ...match(2, 106), evidence }]);
    await log.close();
    const rs = await storeOf().client.query({
      query: `SELECT request_id, list_version, evidence FROM ${MATCHES} WHERE customer_id = 106 ORDER BY request_id`,
      format: 'JSONEachRow',
    });
    assert.deepEqual(await rs.json(), [
      { request_id: 'r\t106-0', list_version: '1', evidence: '' },
      { request_id: 'r\t106-1', list_version: '1', evidence: '' },
      { request_id: 'r\t106-2', list_version: '1', evidence: JSON.stringify(evidence) },
    ]);
    assert.deepEqual(readdirSync(dir), []);
  });
});
