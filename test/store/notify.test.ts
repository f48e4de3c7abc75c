import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Engine } from '../../engine/engine.js';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import { ListManager } from '../../loaders/manager.js';
import type { FetchedFiles, ListDefinition } from '../../loaders/types.js';
import { loadConfig } from '../../src/config.js';
import { pgNotifier } from '../../src/store/notify.js';
import { COMMITS_CHANNEL, ListOperations } from '../../src/lists/operations.js';
import { ListJobs } from '../../src/lists/jobs.js';
import { migrate } from '../../src/store/migrate.js';
import { openPostgres } from '../../src/store/postgres.js';
import { closeBackends, freshPostgresUrl } from './backends.js';

/**
 * Several nodes on one PostgreSQL server: the leader announces each commit (NOTIFY) and a
 * follower reloads at once, not at its next poll of the snapshot store (here ten minutes away);
 * a refresh asked of a follower is run by the leader as a job the follower waits for or hands
 * back to poll.
 */
const log = pino({ level: 'silent' });
after(closeBackends);

async function* parse(files: FetchedFiles): AsyncIterable<EntityRecord> {
  for (const line of (await readFile(files.main, 'utf8')).split('\n').filter(Boolean)) {
    const [type, value] = line.split(',');
    yield {
      list: 'shared',
      entity_type: type as EntityType,
      value,
      metadata: {},
      source_url: null,
      listed_at: null,
      removed_at: null,
    };
  }
}
const list: ListDefinition = {
  slug: 'shared',
  display_name: 'Shared',
  list_type: 'sanctions',
  kind: 'sanctions_list',
  cadence: 'daily',
  enabled: true,
  in_default_set: true,
  primary: true,
  source: { type: 'files', files: [{ key: 'main', url: 'https://example.org/s.csv', sourceDirPath: 's.csv' }], parse },
};

test('a follower serves the leader’s commit as soon as it is announced', async () => {
  const url = await freshPostgresUrl();
  const dataDir = await mkdtemp(join(tmpdir(), 'notify-data-'));
  const sourceDir = await mkdtemp(join(tmpdir(), 'notify-src-'));
  await mkdir(sourceDir, { recursive: true });
  await writeFile(join(sourceDir, 's.csv'), 'email,first@example.org\n');
  const config = loadConfig({ DATA_DIR: dataDir, SOURCE_DIR: sourceDir, LIST_REFRESH_ENABLED: 'false' });
  const leaderSignals = pgNotifier(url, log);
  const followerSignals = pgNotifier(url, log);
  const engine = await Engine.create({ shards: 1 });
  const leader = new ListManager({
    config,
    engine: null,
    log,
    lists: [list],
    committed: (slug) => void leaderSignals.notify(COMMITS_CHANNEL, slug),
  });
  const follower = new ListManager({ config, engine, log, lists: [list], follower: true, followerPollMs: 600_000 });
  let announced = 0;
  followerSignals.listen(COMMITS_CHANNEL, () => {
    announced++;
    void follower.reload();
  });
  try {
    await leader.refresh();
    await follower.start();
    assert.equal(engine.screenExact({ kind: 'email', value: 'first@example.org', lists: ['shared'] })!.length, 1);
    // The LISTEN connection is up once a first signal went through.
    while (announced === 0) {
      await leaderSignals.notify(COMMITS_CHANNEL, 'probe');
      await new Promise((r) => setTimeout(r, 50));
    }
    await writeFile(join(sourceDir, 's.csv'), 'email,first@example.org\nemail,second@example.org\n');
    await leader.refresh();
    while (engine.screenExact({ kind: 'email', value: 'second@example.org', lists: ['shared'] })!.length === 0)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(follower.ready(), true);
  } finally {
    await follower.stop();
    await leaderSignals.close();
    await followerSignals.close();
    await engine.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(sourceDir, { recursive: true, force: true });
  }
});

test('a refresh asked of a follower node runs on the leader: waited for, or handed back as a job to poll; a second one meanwhile is a 409', async () => {
  const url = await freshPostgresUrl();
  const dataDir = await mkdtemp(join(tmpdir(), 'notify-jobs-'));
  const sourceDir = await mkdtemp(join(tmpdir(), 'notify-jobs-src-'));
  await writeFile(join(sourceDir, 's.csv'), 'email,first@example.org\n');
  const config = loadConfig({ DATA_DIR: dataDir, SOURCE_DIR: sourceDir, LIST_REFRESH_ENABLED: 'false' });
  const leaderDb = await openPostgres(url, 2);
  const followerDb = await openPostgres(url, 2);
  await migrate(leaderDb);
  const leaderSignals = pgNotifier(url, log);
  const followerSignals = pgNotifier(url, log);
  const engine = await Engine.create({ shards: 1 });
  const leaderManager = new ListManager({
    config,
    engine: null,
    log,
    lists: [list],
    committed: (slug) => void leaderSignals.notify(COMMITS_CHANNEL, slug),
  });
  const followerManager = new ListManager({
    config,
    engine,
    log,
    lists: [list],
    follower: true,
    followerPollMs: 600_000,
  });
  followerSignals.listen(COMMITS_CHANNEL, () => void followerManager.reload());
  const limits = { listsPerCustomer: 1, rowsPerCustomer: 1 };
  const leaderOps = new ListOperations({
    jobs: new ListJobs(leaderDb, { node: 'leader', log }),
    manager: () => leaderManager,
    isLeader: () => true,
    notifier: leaderSignals,
    dataDir,
    log,
    limits,
    pollMs: 500,
  });
  const followerJobs = new ListJobs(followerDb, { node: 'follower', log, pollMs: 50 });
  const followerOps = new ListOperations({
    jobs: followerJobs,
    manager: () => followerManager,
    isLeader: () => false,
    notifier: followerSignals,
    dataDir,
    log,
    limits,
  });
  try {
    await leaderManager.refresh();
    await followerManager.start();
    await leaderOps.start();
    await writeFile(join(sourceDir, 's.csv'), 'email,first@example.org\nemail,second@example.org\n');
    const waited = await followerOps.submit('refresh', 'shared', undefined, {}, 60_000);
    assert.deepEqual(
      [waited.status, waited.results.map((r) => [r.slug, r.result, r.listed])],
      ['done', [['shared', 'new_version', 1]]],
    );
    while (engine.screenExact({ kind: 'email', value: 'second@example.org', lists: ['shared'] })!.length === 0)
      await new Promise((r) => setTimeout(r, 20));

    // wait=0: the follower answers with the queued job (the 202), and a poll finds it done.
    await leaderOps.stop();
    await writeFile(join(sourceDir, 's.csv'), 'email,second@example.org\n');
    const queued = await followerOps.submit('refresh', 'shared', undefined, {}, 0);
    assert.equal(queued.status, 'queued');
    await assert.rejects(
      followerOps.submit('refresh', 'shared', undefined, {}, 0),
      (err: Error & { status?: number }) =>
        err.status === 409 && /already running \(job \d+, refresh\)/.test(err.message),
    );
    await leaderOps.start();
    const polled = await followerJobs.wait(queued.id, 60_000);
    assert.deepEqual(
      [polled.status, polled.results.map((r) => [r.result, r.delisted])],
      ['done', [['new_version', 1]]],
    );
    while (engine.screenExact({ kind: 'email', value: 'first@example.org', lists: ['shared'] })!.length !== 0)
      await new Promise((r) => setTimeout(r, 20));
  } finally {
    await leaderOps.stop();
    await followerManager.stop();
    await leaderSignals.close();
    await followerSignals.close();
    await leaderDb.close();
    await followerDb.close();
    await engine.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(sourceDir, { recursive: true, force: true });
  }
});
