import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/service.js';
import { nodeIdentity } from '../../src/store/node-identity.js';
import { createCustomerToken, prepareDataDir, testEnv } from '../../harness/service.js';

/**
 * Issue #39: a node that restarts fails the imports it was running (their spooled body and the work
 * in memory died with it) and removes their spools; another node's running import is not its to fail.
 */
test('a restarted node fails its own running imports and removes their spools; another node’s stay running', async () => {
  const dataDir = await prepareDataDir();
  try {
    const config = loadConfig(testEnv(dataDir));
    const first = await createService(config);
    const port = await first.listen();
    const c = await createCustomerToken(`http://127.0.0.1:${port}`, 10, 'Restart');
    const node = nodeIdentity(dataDir, undefined);
    // What a crash mid-import leaves: its job running under this node, its spooled body.
    const { rows } = await first.db.query<{ id: string }>(
      `INSERT INTO subject_jobs (customer_id, kind, node_id, rows_read, taken) VALUES
         ($1, 'import', $2, 5000, 5000), ($1, 'import', 'another-node', 10, 10) RETURNING id::text AS id`,
      [c.customerId, node],
    );
    const [mine, theirs] = rows.map((r) => Number(r.id));
    mkdirSync(join(dataDir, 'subject-imports'), { recursive: true });
    const spool = join(dataDir, 'subject-imports', `subject-import-${node}-left.body`);
    const otherSpool = join(dataDir, 'subject-imports', 'subject-import-another-node-left.body');
    writeFileSync(spool, '{}\n');
    writeFileSync(otherSpool, '{}\n');
    await first.close();

    const second = await createService(config);
    try {
      const base = `http://127.0.0.1:${await second.listen()}/api/v1/account/subjects/imports`;
      const auth = { authorization: `Bearer ${c.token}` };
      const failed = (await (await fetch(`${base}/${mine}`, { headers: auth })).json()) as Record<string, unknown>;
      assert.deepEqual(
        [failed.state, failed.error, failed.rows_read, failed.taken],
        ['failed', `interrupted: node ${node} restarted during the import`, 5000, 5000],
      );
      assert.equal(typeof failed.finished_at, 'string');
      const running = (await (await fetch(`${base}/${theirs}`, { headers: auth })).json()) as Record<string, unknown>;
      assert.deepEqual([running.state, running.error], ['running', null]);
      assert.equal(existsSync(spool), false);
      assert.equal(existsSync(otherSpool), true);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
