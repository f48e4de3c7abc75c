import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import pino from 'pino';
import { startTestService, createCustomerToken } from '../../harness/service.js';
import { createLogger } from '../../src/server/log.js';

/**
 * The public search is never metered or audited and searched values are not stored: a unique
 * marker searched in every mode (and failing validation) is afterwards found in no log line
 * (at trace level), no ClickHouse row and no file under DATA_DIR.
 */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    const st = statSync(p);
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [p] : [];
  });
}

test('a searched marker leaves no trace in logs, ClickHouse or DATA_DIR', async () => {
  const marker = `zqmarker${Date.now().toString(36)}x`;
  const logDir = mkdtempSync(join(tmpdir(), 'search-logs-'));
  const logFile = join(logDir, 'service.log');
  const destination = pino.destination({ dest: logFile, sync: true });
  const svc = await startTestService({ LOG_LEVEL: 'trace' }, { log: createLogger('trace', destination) });
  try {
    const { token } = await createCustomerToken(svc.url, 10);
    for (const q of [marker, `${marker} kim`, `^${marker}`, `${marker}(`]) {
      for (const mode of ['fuzzy', 'regex']) {
        const res = await fetch(`${svc.url}/api/v1/search?q=${encodeURIComponent(q)}&mode=${mode}`, {
          headers: { authorization: `Bearer ${token}`, 'x-request-id': 'privacy-check' },
        });
        assert.ok([200, 422].includes(res.status), String(res.status));
        await res.arrayBuffer();
      }
    }
    await fetch(`${svc.url}/api/v1/search?q=${encodeURIComponent(marker)}&limit=999`).then((r) => r.arrayBuffer());
    await fetch(`${svc.url}/trpc/search?input=${encodeURIComponent(JSON.stringify({ q: marker }))}`).then((r) =>
      r.arrayBuffer(),
    );
    const { audit } = svc.service;
    await audit.usage.flush();
    await audit.matches.flush();
    const tables = (await (
      await audit.client.query({
        query: "SELECT name FROM system.tables WHERE database = 'screening'",
        format: 'JSONEachRow',
      })
    ).json()) as { name: string }[];
    assert.ok(tables.length >= 4);
    for (const { name } of tables) {
      const text = await (
        await audit.client.query({ query: `SELECT * FROM screening.${name}`, format: 'JSONEachRow' })
      ).text();
      assert.ok(!text.includes(marker), `ClickHouse table ${name} holds the marker`);
    }
    const usage = (await (
      await audit.client.query({
        query: "SELECT count() AS n FROM screening.usage WHERE endpoint = 'search'",
        format: 'JSONEachRow',
      })
    ).json()) as { n: number }[];
    assert.equal(Number(usage[0].n), 0, 'the search is not metered');
  } finally {
    await svc.service.close();
  }
  destination.flushSync();
  const logs = readFileSync(logFile, 'utf8');
  assert.ok(logs.split('\n').length > 10, 'trace logging produced lines');
  assert.ok(!logs.includes(marker), 'a log line holds the marker');
  for (const file of filesUnder(svc.dataDir)) {
    assert.ok(!readFileSync(file).includes(marker), `${file} holds the marker`);
  }
  rmSync(svc.dataDir, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
});
