import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { prepareDataDir, spawnService, testEnv, TEST_ADMIN_KEY } from '../../harness/service.js';
import { freshPostgresUrl } from '../store/backends.js';

/**
 * Issue #36 item 4: the service SIGKILLed while it commits a large operator upload, then started
 * again on the same DATA_DIR and database. Before, the restarted node (named by its new pid) did
 * not recognise its own job: it stayed `running`, a new upload was a 409 until the heartbeat
 * expired, and the commit's temporary files stayed in the list's directory. With PostgreSQL the
 * restarted node takes the lead again (the dead one's advisory lock went with its connection).
 */
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const SLUG = 'crash_watch';
const ROWS = 300_000;

interface Job {
  id: number;
  status: string;
  error: string | null;
  results: { result: string; listed: number; total: number }[];
}

const tmpFiles = (dir: string) => readdirSync(dir).filter((n) => /\.tmp-/.test(n));
const bytesOf = (dir: string, names: string[]) =>
  names.reduce((sum, n) => sum + (statSync(join(dir, n), { throwIfNoEntry: false })?.size ?? 0), 0);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of ['pglite', 'postgres'] as const)
  test(`${backend}: SIGKILL during an upload: after the restart the job is failed, its files are gone and a new upload is taken at once`, async (t) => {
    const dataDir = await prepareDataDir();
    const env = testEnv(dataDir, {
      LOG_LEVEL: 'info',
      ...(backend === 'postgres' ? { DATABASE_URL: await freshPostgresUrl() } : {}),
    });
    const listDir = join(dataDir, 'lists', SLUG);
    try {
      const first = await spawnService(env);
      const url = `http://127.0.0.1:${first.port}/api/v1`;
      const created = await fetch(`${url}/admin/lists`, {
        method: 'POST',
        headers: { ...ADMIN, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: SLUG, display_name: 'Crash', list_type: 'risk', entity_types: ['email'] }),
      });
      assert.equal(created.status, 200, await created.text());

      const rows = Array.from({ length: ROWS }, (_, i) => `email,user${i}@crash.example.org`);
      const accepted = await fetch(`${url}/admin/lists/${SLUG}/upload?wait=0`, {
        method: 'POST',
        headers: { ...ADMIN, 'content-type': 'text/csv' },
        body: `entity_type,value\n${rows.join('\n')}\n`,
      });
      const job = (await accepted.json()) as Job;
      assert.equal(accepted.status, 202, JSON.stringify(job));

      // The kill lands once the commit has written a MiB of the version's files: watched, not timed.
      let leftovers: string[] = [];
      for (;;) {
        leftovers = tmpFiles(listDir);
        if (bytesOf(listDir, leftovers) >= 1 << 20) break;
        const now = (await (await fetch(`${url}/admin/lists/jobs/${job.id}`, { headers: ADMIN })).json()) as Job;
        assert.ok(now.status !== 'done' && now.status !== 'failed', `the upload ended before the kill: ${now.status}`);
        await pause(5);
      }
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      leftovers = tmpFiles(listDir);
      assert.ok(leftovers.length > 0, 'the kill left the commit’s temporary files');
      t.diagnostic(`left by the kill: ${leftovers.join(', ')} (${bytesOf(listDir, leftovers)} bytes)`);

      const second = await spawnService(env);
      try {
        const again = `http://127.0.0.1:${second.port}/api/v1`;
        const failed = (await (await fetch(`${again}/admin/lists/jobs/${job.id}`, { headers: ADMIN })).json()) as Job;
        assert.equal(failed.status, 'failed');
        const nodeFiles = readdirSync(join(dataDir, 'node-id'));
        assert.equal(nodeFiles.length, 1);
        const node = readFileSync(join(dataDir, 'node-id', nodeFiles[0]), 'utf8').trim();
        assert.equal(failed.error, `interrupted: node ${node} restarted during the upload`);
        assert.deepEqual(tmpFiles(listDir), [], 'the interrupted commit’s files are removed');
        t.diagnostic(/[^\n]*removed the temporary files[^\n]*/.exec(second.output())?.[0] ?? 'no removal logged');
        assert.deepEqual(
          readdirSync(join(dataDir, 'uploads')).filter((n) => n.startsWith(`job-${job.id}.`)),
          [],
          'the interrupted job’s staged upload is removed',
        );

        const next = await fetch(`${again}/admin/lists/${SLUG}/upload`, {
          method: 'POST',
          headers: { ...ADMIN, 'content-type': 'text/csv' },
          body: 'entity_type,value\nemail,a@crash.example.org\nemail,b@crash.example.org\n',
        });
        const done = (await next.json()) as Job;
        assert.equal(next.status, 200, JSON.stringify(done));
        assert.equal(done.status, 'done');
        assert.deepEqual(
          done.results.map((r) => [r.result, r.listed, r.total]),
          [['new_version', 2, 2]],
          'the interrupted version was never committed: the list held none of its rows',
        );
        const health = (await (await fetch(`${again}/admin/health`, { headers: ADMIN })).json()) as { node: string };
        assert.equal(health.node, node, 'the restarted node has the same identity');
      } finally {
        second.child.kill('SIGTERM');
        await once(second.child, 'exit');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
