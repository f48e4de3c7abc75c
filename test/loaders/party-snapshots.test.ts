import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Engine } from '../../engine/engine.js';
import type { EntityRecord, PartyMetadata } from '../../engine/model.js';
import { loadConfig } from '../../src/config.js';
import { ListManager } from '../../loaders/manager.js';
import type { ChangeSink, ListChange } from '../../loaders/diff.js';
import type { FetchedFiles, ListDefinition } from '../../loaders/types.js';

/**
 * Party records go through versions like any other record: the snapshot and the history keep
 * them with their metadata, a restart loads them back without parsing (the party is screened by
 * name again), and a party that leaves the list is a `delisted` change carrying the party.
 * The source is a JSON array of parties of our own; each party also emits its names with its id.
 */
interface SourceParty {
  id: string;
  name: string;
  aliases: string[];
  birth: string;
}

let parses = 0;
async function* parseParties(files: FetchedFiles): AsyncIterable<EntityRecord> {
  parses++;
  const parties = JSON.parse(await readFile(files.main, 'utf8')) as SourceParty[];
  for (const p of parties) {
    const metadata: PartyMetadata = {
      name: p.name,
      party_type: 'person',
      aliases: p.aliases.map((name) => ({ name, type: 'a.k.a.', weak: false })),
      birth_dates: [p.birth],
      countries: ['RU'],
      identifiers: [],
      programs: ['TEST'],
    };
    const base = { list: 'test-parties', source_url: 'https://example.org/p.json', listed_at: null, removed_at: null };
    yield { ...base, entity_type: 'party', value: p.id, metadata };
    for (const name of [p.name, ...p.aliases])
      yield { ...base, entity_type: 'name', value: name, metadata: { party_id: p.id, programs: ['TEST'] } };
  }
}

const list: ListDefinition = {
  slug: 'test-parties',
  display_name: 'Test parties',
  list_type: 'sanctions',
  kind: 'sanctions_list',
  cadence: 'daily',
  enabled: true,
  in_default_set: true,
  primary: true,
  source: {
    type: 'files',
    files: [{ key: 'main', url: 'https://example.org/p.json', sourceDirPath: 'test/p.json' }],
    parse: parseParties,
  },
};

const log = pino({ level: 'silent' });
let dataDir = '';
let sourceDir = '';
let clock = new Date('2026-03-01T10:00:00.000Z');
const received: ListChange[][] = [];
const sink: ChangeSink = {
  async write(changes) {
    received.push(changes);
  },
};
const IVAN: SourceParty = {
  id: 'P-1',
  name: 'Ivan Sergeyevich Petrov',
  aliases: ['Ivan Petroff'],
  birth: '1961-02-03',
};
const OLGA: SourceParty = { id: 'P-2', name: 'Olga Nikolaevna Smirnova', aliases: [], birth: '1975' };
const writeSource = (parties: SourceParty[]) => writeFile(join(sourceDir, 'test', 'p.json'), JSON.stringify(parties));
const manager = (engine: Engine) =>
  new ListManager({
    config: loadConfig({ DATA_DIR: dataDir, SOURCE_DIR: sourceDir }),
    engine,
    sinks: [sink],
    log,
    now: () => clock,
    lists: [list],
  });
const screen = (engine: Engine, name: string) =>
  engine.screenName({ name, lists: ['test-parties'], threshold: 0.7, limit: 5 });

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'party-data-'));
  sourceDir = await mkdtemp(join(tmpdir(), 'party-src-'));
  await mkdir(join(sourceDir, 'test'));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(sourceDir, { recursive: true, force: true });
});

test('party records: snapshot, restart without parsing, delisting as a change, history', async () => {
  const engine = await Engine.create({ shards: 1 });
  const restarted = await Engine.create({ shards: 1 });
  try {
    await writeSource([IVAN, OLGA]);
    const m = manager(engine);
    await m.start();
    await m.idle();
    const [hit] = await screen(engine, 'Ivan Petroff');
    assert.deepEqual(
      [hit.entity.entity_type, hit.entity.value, hit.name, hit.score],
      ['party', 'P-1', 'Ivan Petroff', 1],
    );

    clock = new Date('2026-03-02T10:00:00.000Z');
    await writeSource([OLGA]);
    const [done] = await m.refresh('test-parties');
    assert.equal(done.result, 'new_version');
    const changes = received.flat().filter((c) => c.record.entity_type === 'party');
    assert.deepEqual(
      changes.map((c) => [c.kind, c.record.value, (c.record.metadata as PartyMetadata).name, c.record.removed_at]),
      [['delisted', 'P-1', 'Ivan Sergeyevich Petrov', '2026-03-02T10:00:00.000Z']],
    );
    received.length = 0;
    assert.deepEqual(await screen(engine, 'Ivan Petroff'), []);

    // Listed again: a new listing period, screened now; as of the delisting, nothing.
    clock = new Date('2026-03-03T10:00:00.000Z');
    await writeSource([IVAN, OLGA]);
    await m.refresh('test-parties');
    const [again] = await screen(engine, 'Ivan Petroff');
    assert.deepEqual([again.entity.value, again.entity.removed_at, again.score], ['P-1', null, 1]);
    const asOf = (at: string) =>
      engine.screenName({
        name: 'Ivan Petroff',
        lists: ['test-parties'],
        threshold: 0.7,
        limit: 5,
        asOf: Date.parse(at),
      });
    assert.deepEqual(
      (await asOf('2026-03-02T12:00:00.000Z')).map((h) => h.entity.value),
      [],
    );
    assert.deepEqual(
      (await asOf('2026-03-01T12:00:00.000Z')).map((h) => [h.entity.value, h.entity.removed_at]),
      [['P-1', '2026-03-02T10:00:00.000Z']],
    );
    assert.deepEqual(
      (await asOf('2026-03-03T12:00:00.000Z')).map((h) => [h.entity.value, h.entity.removed_at]),
      [['P-1', null]],
    );
    await writeSource([OLGA]);
    clock = new Date('2026-03-04T10:00:00.000Z');
    await m.refresh('test-parties');
    await m.stop();

    // A restart reads the committed snapshot and history, not the source.
    await writeSource([]);
    const before = parses;
    const m2 = manager(restarted);
    await m2.start();
    await m2.idle();
    assert.equal(parses, before);
    const [olga] = await screen(restarted, 'Olga Smirnova');
    assert.equal(olga.entity.value, 'P-2');
    assert.deepEqual(olga.entity.metadata, {
      name: 'Olga Nikolaevna Smirnova',
      party_type: 'person',
      aliases: [],
      birth_dates: ['1975'],
      countries: ['RU'],
      identifiers: [],
      programs: ['TEST'],
    });
    const gone = restarted.delisted(['test-parties'], 10).filter((e) => e.entity_type === 'party');
    assert.deepEqual(
      gone.map((e) => [e.value, (e.metadata as PartyMetadata).aliases, e.removed_at]),
      [['P-1', [{ name: 'Ivan Petroff', type: 'a.k.a.', weak: false }], '2026-03-04T10:00:00.000Z']],
    );
    await m2.stop();
  } finally {
    await engine.close();
    await restarted.close();
  }
});
