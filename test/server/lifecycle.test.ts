import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
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
  const c = (await (await fetch(`${url}/api/v1/admin/customers`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'load', monthly_quota: 1_000_000 }) })).json()) as { id: number };
  const t = (await (await fetch(`${url}/api/v1/admin/customers/${c.id}/tokens`, { method: 'POST', headers: admin, body: '{}' })).json()) as { token: string };
  return { id: c.id, token: t.token };
}

/** Keeps `concurrency` screening requests in flight until stopped; counts 200 answers. */
function load(url: string, token: string, concurrency: number) {
  let ok = 0;
  let failed = 0;
  let running = true;
  const worker = async () => {
    while (running) {
      try {
        const res = await fetch(`${url}/api/v1/screen/crypto/${XBT}?lists=ofac_sdn`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status === 200) ok++;
        else failed++;
      } catch {
        failed++;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    stop: async () => {
      running = false;
      await Promise.all(workers);
      return { ok, failed };
    },
    get ok() {
      return ok;
    },
  };
}

async function countRows(dataDir: string, customerId: number): Promise<{ usage: number; audit: number }> {
  const client = openClickHouse(loadConfig(testEnv(dataDir)));
  const one = async (table: string) =>
    Number(((await (await client.query({ query: `SELECT count() AS n FROM screening.${table} WHERE customer_id = ${customerId}`, format: 'JSONEachRow' })).json()) as { n: number }[])[0].n);
  const result = { usage: await one('usage'), audit: await one('audit_matches') };
  await client.close();
  return result;
}

test('SIGTERM under load: in-flight requests finish, every answered request has its rows, exit code 0', async () => {
  const dataDir = await prepareDataDir();
  try {
    const { child, port } = await spawnService(testEnv(dataDir, { AUDIT_FLUSH_MS: '60000', LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${port}`;
    const { id, token } = await tokenFor(url);
    const l = load(url, token, 16);
    while (l.ok < 200) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    const { ok } = await l.stop();
    assert.equal(code, 0);
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
    const { ok } = await l.stop();
    const rows = await countRows(dataDir, id);
    assert.ok(rows.usage >= ok, `usage rows ${rows.usage} < answered ${ok}`);
    assert.ok(rows.audit >= ok, `audit rows ${rows.audit} < answered ${ok}`);
    assert.ok(rows.usage <= ok + 16, 'at most the requests in flight were recorded without being answered');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
