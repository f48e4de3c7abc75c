import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { prepareDataDir, spawnService, testEnv, TEST_ADMIN_KEY } from '../../harness/service.js';
import { loadConfig } from '../../src/config.js';
import { openClickHouse } from '../../src/audit/clickhouse.js';

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

/**
 * Keeps `concurrency` screening requests in flight on keep-alive connections until stopped:
 * counts 200 answers, 503s (each must close its connection) and any answer >= 500 other than
 * those; a failed connection (the process is gone) is retried after a pause.
 */
function load(url: string, token: string, concurrency: number) {
  let ok = 0;
  let refused = 0;
  const errors: string[] = [];
  let running = true;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const one = () =>
    new Promise<void>((resolve) => {
      const req = request(
        `${url}/api/v1/screen/crypto/${XBT}?lists=ofac_sdn`,
        { agent, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => {
            if (res.statusCode === 200) ok++;
            else if (res.statusCode === 503 && res.headers.connection === 'close') refused++;
            else errors.push(`${res.statusCode} ${res.headers.connection ?? ''} ${body}`);
            resolve();
          });
          res.on('error', () => resolve());
        },
      );
      req.on('error', () => setTimeout(resolve, 5));
      req.end();
    });
  const worker = async () => {
    while (running) await one();
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    stop: async () => {
      running = false;
      await Promise.all(workers);
      agent.destroy();
      return { ok, refused, errors };
    },
    get ok() {
      return ok;
    },
  };
}

/** A customer's usage rows, credits charged and audit rows, read from the stopped process's embedded ClickHouse. */
async function countRows(
  dataDir: string,
  customerId: number,
): Promise<{ usage: number; credits: number; audit: number }> {
  const client = openClickHouse(loadConfig(testEnv(dataDir)));
  const q = async (sql: string) =>
    Number(((await (await client.query({ query: sql, format: 'JSONEachRow' })).json()) as { n: number }[])[0].n);
  const result = {
    usage: await q(`SELECT count() AS n FROM screening.usage WHERE customer_id = ${customerId}`),
    credits: await q(`SELECT sum(credits) AS n FROM screening.usage WHERE customer_id = ${customerId}`),
    audit: await q(`SELECT count() AS n FROM screening.audit_matches WHERE customer_id = ${customerId}`),
  };
  await client.close();
  return result;
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

test('SIGKILL under load with AUDIT_STRICT: no answered request is missing its rows', async () => {
  const dataDir = await prepareDataDir();
  try {
    const { child, port } = await spawnService(testEnv(dataDir, { AUDIT_STRICT: 'true', LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    const l = load(url, token, 16);
    while (l.ok < 200) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await once(child, 'exit');
    const { ok, errors } = await l.stop();
    assert.deepEqual(errors, []);
    const rows = await countRows(dataDir, id);
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
