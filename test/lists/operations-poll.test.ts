import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { copyInitialisedPglite } from '../../harness/cache.js';
import type { ListManager } from '../../loaders/manager.js';
import { ListOperations } from '../../src/lists/operations.js';
import { ListJobs } from '../../src/lists/jobs.js';
import type { Db } from '../../src/store/db.js';
import { localNotifier } from '../../src/store/notify.js';
import { openPglite } from '../../src/store/pglite.js';
import { migrate } from '../../src/store/migrate.js';

/**
 * The leader's look for queued jobs: with an embedded database (one process) every job is queued
 * here and starts the leader, so an idle leader sends no claim; with a shared one it looks every
 * `pollMs` for jobs other nodes queued.
 */
const dir = await mkdtemp(join(tmpdir(), 'ops-poll-'));
const db = await openPglite(await copyInitialisedPglite(join(dir, 'pglite')));
await migrate(db);
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** A leader over `db` whose transactions (the claims) are counted. */
function leader(pollMs: number | null | undefined) {
  const claims = { n: 0 };
  const counting: Db = { ...db, transaction: (fn) => (claims.n++, db.transaction(fn)) };
  const ops = new ListOperations({
    jobs: new ListJobs(counting, { node: 'here', log: pino({ level: 'silent' }) }),
    manager: () => assert.fail('no job runs') as ListManager,
    isLeader: () => true,
    notifier: localNotifier(),
    dataDir: dir,
    log: pino({ level: 'silent' }),
    limits: { listsPerCustomer: 1, rowsPerCustomer: 1 },
    pollMs,
  });
  return { ops, claims };
}

const idle = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('an idle leader without a poll (embedded database) claims once at start and never again', async () => {
  const { ops, claims } = leader(null);
  await ops.start();
  await idle(1500);
  assert.equal(claims.n, 1);
  await ops.stop();
});

test('with a poll (shared database) an idle leader looks for jobs queued on other nodes again', async () => {
  const { ops, claims } = leader(100);
  await ops.start();
  await idle(1500);
  assert.ok(claims.n >= 2, `${claims.n} claims`);
  await ops.stop();
});
