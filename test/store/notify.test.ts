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
import { COMMITS_CHANNEL } from '../../src/lists/operations.js';
import { closeBackends, freshPostgresUrl } from './backends.js';

/**
 * Several nodes on one PostgreSQL server: the leader announces each commit (NOTIFY) and a
 * follower reloads at once, not at its next poll of the snapshot store (here ten minutes away).
 */
const log = pino({ level: 'silent' });
after(closeBackends);

async function* parse(files: FetchedFiles): AsyncIterable<EntityRecord> {
  for (const line of (await readFile(files.main, 'utf8')).split('\n').filter(Boolean)) {
    const [type, value] = line.split(',');
    yield { list: 'shared', entity_type: type as EntityType, value, metadata: {}, source_url: null, listed_at: null, removed_at: null };
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
  const leader = new ListManager({ config, engine: null, log, lists: [list], committed: (slug) => void leaderSignals.notify(COMMITS_CHANNEL, slug) });
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
    while (engine.screenExact({ kind: 'email', value: 'second@example.org', lists: ['shared'] })!.length === 0) await new Promise((r) => setTimeout(r, 20));
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
