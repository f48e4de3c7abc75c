import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import { request } from 'node:http';
import { batchLoad, screeningLoad } from '../../harness/load.js';
import { prepareDataDir, spawnService, testEnv, TEST_ADMIN_KEY } from '../../harness/service.js';
import { loadConfig } from '../../src/config.js';
import { openClickHouse } from '../../src/audit/clickhouse.js';
import { openAuditStore } from '../../src/audit/store.js';

/**
 * The service as a separate process under load: SIGTERM stops accepting, finishes what is in
 * flight, flushes usage and audit rows and exits 0; SIGKILL with AUDIT_STRICT loses no row of a
 * request that was answered. Rows are counted afterwards in the process's own embedded ClickHouse.
 */
const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

async function tokenFor(url: string): Promise<{ id: number; token: string }> {
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
  const c = (await (
    await fetch(`${url}/api/v1/admin/customers`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'load', monthly_quota: 1_000_000 }),
    })
  ).json()) as { id: number };
  const t = (await (
    await fetch(`${url}/api/v1/admin/customers/${c.id}/tokens`, { method: 'POST', headers: admin, body: '{}' })
  ).json()) as { token: string };
  return { id: c.id, token: t.token };
}

/** Screenings from `concurrency` clients until stopped; a lost connection is retried. */
const load = (url: string, token: string, concurrency: number) =>
  screeningLoad(url, `/api/v1/screen/crypto/${XBT}?lists=ofac_sdn`, token, { concurrency, onLostConnection: 'retry' });

/** Batches of `items` listed values from `concurrency` clients until stopped. */
const batchLoadOf = (url: string, token: string, concurrency: number, items: number) =>
  batchLoad(url, token, { value: XBT, lists: 'ofac_sdn', items, concurrency });

/**
 * Inserts what the stopped process left in its audit log (AUDIT_STRICT), as its next start would:
 * the store replays the segments and its close waits for their inserts.
 */
async function replayAuditLog(dataDir: string): Promise<void> {
  const store = await openAuditStore(loadConfig(testEnv(dataDir, { AUDIT_STRICT: 'true' })));
  await store.close();
}

async function query<T>(dataDir: string, sql: string): Promise<T[]> {
  const client = openClickHouse(loadConfig(testEnv(dataDir)));
  try {
    return await (await client.query({ query: sql, format: 'JSONEachRow' })).json<T>();
  } finally {
    await client.close();
  }
}

/**
 * A customer's usage rows, credits charged, audit rows and usage rows stored more than once (same
 * request id and time), read from the stopped process's embedded ClickHouse.
 */
async function countRows(
  dataDir: string,
  customerId: number,
): Promise<{ usage: number; credits: number; audit: number; twice: number }> {
  const [r] = await query<{ usage: number; credits: number; audit: number; twice: number }>(
    dataDir,
    `SELECT count() AS usage, sum(credits) AS credits, uniqExact(request_id, time) AS keys, usage - keys AS twice,
       (SELECT count() FROM screening.audit_matches WHERE customer_id = ${customerId}) AS audit
     FROM screening.usage WHERE customer_id = ${customerId}`,
  );
  return { usage: Number(r.usage), credits: Number(r.credits), audit: Number(r.audit), twice: Number(r.twice) };
}

/** Credits and audit rows per request of a customer's batches. */
async function perRequest(
  dataDir: string,
  customerId: number,
): Promise<Map<string, { credits: number; audit: number }>> {
  const rows = await query<{ request_id: string; credits: number; audit: number }>(
    dataDir,
    `SELECT request_id, sum(credits) AS credits,
       (SELECT count() FROM screening.audit_matches AS a WHERE a.customer_id = ${customerId} AND a.request_id = u.request_id) AS audit
     FROM screening.usage AS u WHERE customer_id = ${customerId} GROUP BY request_id`,
  );
  return new Map(rows.map((r) => [r.request_id, { credits: Number(r.credits), audit: Number(r.audit) }]));
}

test('SIGTERM under keep-alive load: in-flight requests finish, later ones get 503 + Connection: close, never a 500; every 200 has its rows; exit 0', async (t) => {
  const dataDir = await prepareDataDir();
  try {
    const { child, port } = await spawnService(testEnv(dataDir, { AUDIT_FLUSH_MS: '60000', LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    const l = load(url, token, 16);
    while (l.ok < 200) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    const { ok, refused, errors } = await l.stop();
    t.diagnostic(`${ok} answered, ${refused} refused with 503 after the stop`);
    assert.equal(code, 0);
    assert.deepEqual(errors, [], 'no answer >= 500 but the 503s that close their connection');
    const rows = await countRows(dataDir, id);
    assert.equal(rows.usage, ok, 'one usage row per answered request (flushed at shutdown, not at the 60 s timer)');
    assert.equal(rows.audit, ok, 'one audit row per answered request (one match each)');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGKILL under load with AUDIT_STRICT: no answered request is missing its rows, none is stored twice', async () => {
  const dataDir = await prepareDataDir();
  try {
    // Segments are sealed and inserted every 20 ms: the kill lands among fsyncs, inserts and removals.
    const { child, port } = await spawnService(
      testEnv(dataDir, { AUDIT_STRICT: 'true', AUDIT_FLUSH_MS: '20', LOG_LEVEL: 'info' }),
    );
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    const l = load(url, token, 16);
    while (l.ok < 200) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await once(child, 'exit');
    const { ok, errors } = await l.stop();
    assert.deepEqual(errors, []);
    await replayAuditLog(dataDir);
    const rows = await countRows(dataDir, id);
    assert.equal(rows.twice, 0, 'no row stored twice');
    assert.ok(rows.usage >= ok, `usage rows ${rows.usage} < answered ${ok}`);
    assert.ok(rows.audit >= ok, `audit rows ${rows.audit} < answered ${ok}`);
    assert.ok(rows.usage <= ok + 16, 'at most the requests in flight were recorded without being answered');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGTERM while a batch streams to a client that stopped reading: cut off at the deadline, charged and audited for the lines sent only', async () => {
  const dataDir = await prepareDataDir();
  try {
    const { child, port } = await spawnService(testEnv(dataDir, { SHUTDOWN_TIMEOUT_MS: '500', LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    // 10,000 listed values: about 5 MB of lines, more than the socket buffers take while the client reads nothing.
    const body = JSON.stringify({
      items: Array.from({ length: 10_000 }, () => ({ type: 'crypto', value: XBT })),
      lists: 'ofac_sdn',
    });
    let received = '';
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request(
        `${url}/api/v1/screen/batch`,
        { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
        resolve,
      );
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(response.statusCode, 200);
    response.pause();
    const ended = new Promise<void>((resolve) => {
      response.on('end', resolve);
      response.on('error', () => resolve());
      response.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    response.on('data', (d) => (received += d));
    response.resume();
    await ended;
    const lines = received.split('\n').slice(0, -1);
    assert.ok(lines.length > 0 && lines.length < 10_000, `${lines.length} lines arrived: the batch was cut off`);
    for (const l of lines) assert.equal((JSON.parse(l) as { sanctioned: boolean }).sanctioned, true);
    const charged = await countRows(dataDir, id);
    // Charged: the lines of the chunks known to have left uWS's buffer (each counted once the
    // next chunk went through). The client may have more: the last chunk counted, and the one
    // the socket took in part when the connection closed (64 KiB each).
    const perChunk = Math.ceil((64 * 1024) / Buffer.byteLength(`${lines[0]}\n`));
    assert.ok(
      charged.credits <= lines.length && charged.credits >= lines.length - 2 * perChunk,
      `credits ${charged.credits} for ${lines.length} lines delivered`,
    );
    assert.ok(charged.credits > 0);
    assert.equal(charged.audit, charged.credits, 'one audit row per charged line (one match each)');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGKILL under load in the default mode: the rows lost are measured; none is stored for an unanswered request', async (t) => {
  const dataDir = await prepareDataDir();
  try {
    const { child, port } = await spawnService(testEnv(dataDir, { AUDIT_FLUSH_MS: '1000', LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    const l = load(url, token, 16);
    const started = Date.now();
    while (l.ok < 200 || Date.now() - started < 2500) await new Promise((r) => setTimeout(r, 20));
    const before = l.ok;
    const atKill = Date.now();
    child.kill('SIGKILL');
    await once(child, 'exit');
    const { ok, errors } = await l.stop();
    assert.deepEqual(errors, []);
    const rows = await countRows(dataDir, id);
    const rate = before / ((atKill - started) / 1000);
    // The loss depends on when the last insert finished, which a busy machine delays: measured and
    // reported (docs/audit.md quotes it), not bounded by a timing assertion.
    t.diagnostic(
      `answered ${ok}, usage rows ${rows.usage}, lost ${ok - rows.usage} (${((ok - rows.usage) / rate).toFixed(2)} s of traffic at ${rate.toFixed(0)} requests/s)`,
    );
    assert.ok(rows.usage <= ok, 'no usage row for a request that was not answered');
    assert.ok(rows.audit <= ok, 'no audit row for a request that was not answered (the two tables flush apart)');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGKILL during batches with AUDIT_STRICT: every delivered line has its rows, the log replayed once', async (t) => {
  const dataDir = await prepareDataDir();
  try {
    // No segment is inserted before the kill (60 s): every row comes from the log's replay.
    const { child, port } = await spawnService(
      testEnv(dataDir, { AUDIT_STRICT: 'true', AUDIT_FLUSH_MS: '60000', LOG_LEVEL: 'info' }),
    );
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    const l = batchLoadOf(url, token, 8, 100);
    while (l.whole < 20) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await once(child, 'exit');
    const { delivered, errors } = await l.stop();
    assert.deepEqual(errors, []);
    await replayAuditLog(dataDir);
    await replayAuditLog(dataDir);
    const stored = await perRequest(dataDir, id);
    let lines = 0;
    for (const [requestId, n] of delivered) {
      lines += n;
      const rows = stored.get(requestId) ?? { credits: 0, audit: 0 };
      assert.ok(
        rows.credits >= n && rows.audit >= n,
        `${requestId}: ${n} lines delivered, ${JSON.stringify(rows)} stored`,
      );
    }
    for (const [requestId, rows] of stored) {
      assert.ok(rows.credits <= 100 && rows.audit === rows.credits, `${requestId}: ${JSON.stringify(rows)}`);
    }
    const rows = await countRows(dataDir, id);
    assert.equal(rows.twice, 0, 'no row stored twice');
    t.diagnostic(`${delivered.size} batches, ${lines} lines delivered, ${rows.credits} credits stored`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGKILL during batches in the default mode: rows lost are measured; none beyond the lines delivered', async (t) => {
  const dataDir = await prepareDataDir();
  try {
    const { child, port } = await spawnService(testEnv(dataDir, { AUDIT_FLUSH_MS: '1000', LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    const l = batchLoadOf(url, token, 8, 100);
    while (l.whole < 20) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await once(child, 'exit');
    const { delivered, errors } = await l.stop();
    assert.deepEqual(errors, []);
    const stored = await perRequest(dataDir, id);
    let lines = 0;
    for (const [requestId, rows] of stored) {
      const n = delivered.get(requestId) ?? 0;
      assert.ok(
        rows.credits <= n && rows.audit === rows.credits,
        `${requestId}: ${n} delivered, ${JSON.stringify(rows)}`,
      );
    }
    for (const n of delivered.values()) lines += n;
    const rows = await countRows(dataDir, id);
    t.diagnostic(`${lines} lines delivered, ${rows.credits} credits stored, ${lines - rows.credits} lost`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
