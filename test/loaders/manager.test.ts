import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Engine } from '../../engine/engine.js';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import { loadConfig } from '../../src/config.js';
import { ListManager } from '../../loaders/manager.js';
import { changeId, entityKey, type ChangeSink, type ListChange } from '../../loaders/diff.js';
import type { FetchedFiles, ListDefinition } from '../../loaders/types.js';

/**
 * A tiny list in a CSV format of our own (`entity_type,value,program`), read through SOURCE_DIR,
 * with a parser that rejects a malformed line naming file and line, as the real parsers do.
 */
let parses = 0;
async function* parseCsv(files: FetchedFiles): AsyncIterable<EntityRecord> {
  parses++;
  const path = files.main;
  const lines = (await readFile(path, 'utf8')).split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === '') continue;
    const cells = lines[i].split(',');
    if (cells.length !== 3) throw new Error(`${path}:${i + 1}: expected 3 fields, found ${cells.length}`);
    yield {
      list: 'test-csv',
      entity_type: cells[0] as EntityType,
      value: cells[1],
      metadata: { programs: [cells[2]] },
      source_url: 'https://example.org/t.csv',
      listed_at: null,
      removed_at: null,
    };
  }
}

const csvList: ListDefinition = {
  slug: 'test-csv',
  display_name: 'Test CSV list',
  list_type: 'sanctions',
  kind: 'sanctions_list',
  cadence: 'daily',
  enabled: true,
  in_default_set: true,
  primary: true,
  source: {
    type: 'files',
    files: [{ key: 'main', url: 'https://example.org/t.csv', sourceDirPath: 'test/t.csv' }],
    parse: parseCsv,
  },
};
const mixerList: ListDefinition = {
  slug: 'test-mixer',
  display_name: 'Test mixer pools',
  list_type: 'risk',
  kind: 'onchain_events',
  cadence: 'hourly',
  enabled: true,
  in_default_set: true,
  source: { type: 'chain', role: 'depositor_relayer' },
};
const disabledList: ListDefinition = {
  ...csvList,
  slug: 'test-disabled',
  enabled: false,
  in_default_set: false,
  primary: false,
};

const A = '0xAbC0000000000000000000000000000000000001';
const log = pino({ level: 'silent' });
let dataDir = '';
let sourceDir = '';
let engine: Engine;
let clock = new Date('2026-03-01T10:00:00.000Z');
const now = () => clock;
const received: ListChange[][] = [];
let sinkFails = 0;
const sink: ChangeSink = {
  async write(changes) {
    if (sinkFails > 0) {
      sinkFails--;
      throw new Error('sink down');
    }
    received.push(changes);
  },
};

const writeSource = (lines: string[]) => writeFile(join(sourceDir, 'test', 't.csv'), lines.join('\n') + '\n');
const config = (extra: Record<string, string> = {}) =>
  loadConfig({ DATA_DIR: dataDir, SOURCE_DIR: sourceDir, PRIMARY_CHECK_MINUTES_UTC: '5,35', ...extra });
const manager = () =>
  new ListManager({
    config: config(),
    engine,
    sinks: [sink],
    log,
    now,
    lists: [csvList, mixerList, disabledList],
    redeliverMs: 20,
  });
const values = (list: string) => engine.entities(list, { limit: 100 }).entities.map((e) => [e.value, e.listed_at]);
const removed = (list: string) => engine.delisted([list], 100).map((e) => [e.value, e.removed_at]);

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'manager-data-'));
  sourceDir = await mkdtemp(join(tmpdir(), 'manager-src-'));
  await mkdir(join(sourceDir, 'test'));
  engine = await Engine.create({ shards: 1 });
});
after(async () => {
  await engine.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(sourceDir, { recursive: true, force: true });
});

describe('ListManager', () => {
  const T1 = '2026-03-01T10:00:00.000Z';
  const T2 = '2026-03-02T10:00:00.000Z';
  const T3 = '2026-03-03T10:00:00.000Z';
  const T4 = '2026-03-04T10:00:00.000Z';
  const T5 = '2026-03-05T10:00:00.000Z';
  let m: ListManager;

  test('first version is the baseline: no changes, listed_at = ingestion time; unconfigured mixer does not block readiness', async () => {
    await writeSource([`crypto_address,${A},CYBER2`, 'email,bad@example.com,SDGT', 'name,Ivan Petrov,UKRAINE-EO13660']);
    m = manager();
    assert.equal(m.ready(), false);
    await m.start();
    await m.idle();
    assert.deepEqual(m.status(), {
      'test-csv': {
        loaded: true,
        version: m.status()['test-csv'].version,
        last_updated: T1,
        last_error: null,
        last_checked: T1,
        total: 3,
        stale: false,
      },
      'test-mixer': {
        loaded: false,
        version: null,
        last_updated: null,
        last_error: 'not configured: set MIXER_RPC_URL and MIXER_POOLS to build the mixer-pool lists',
        last_checked: null,
        total: 0,
        stale: false,
      },
    });
    assert.match(m.status()['test-csv'].version!, /^[0-9a-f]{16}$/);
    assert.equal(m.ready(), true);
    assert.deepEqual(received, []);
    assert.deepEqual(values('test-csv'), [
      [A, T1],
      ['bad@example.com', T1],
      ['Ivan Petrov', T1],
    ]);
    assert.deepEqual(m.primaryRefresh(), { check_minutes_utc: [5, 35], next_check_at: '2026-03-01T10:05:00.000Z' });
    await m.stop();
  });

  test('listed, delisted, relisted with exact timestamps and changes', async () => {
    clock = new Date(T2);
    await writeSource([
      `crypto_address,${A},CYBER2`,
      'name,Ivan Petrov,UKRAINE-EO13660',
      'website,evil.example,CYBER2',
    ]);
    const r2 = await m.refresh('test-csv');
    await m.idle();
    assert.equal(r2[0].result, 'new_version');
    assert.deepEqual([r2[0].listed, r2[0].delisted, r2[0].relisted, r2[0].total], [1, 1, 0, 3]);
    const v2 = r2[0].version!;
    const change = (
      seq: number,
      version: string,
      kind: ListChange['kind'],
      at: string,
      record: EntityRecord,
    ): ListChange => ({
      seq,
      change_id: changeId('test-csv', version, at, kind, entityKey(record)),
      list: 'test-csv',
      owner: 0,
      version,
      kind,
      at,
      record,
    });
    const record = (
      value: string,
      type: EntityType,
      program: string,
      listed_at: string | null,
      removed_at: string | null,
    ): EntityRecord => ({
      list: 'test-csv',
      entity_type: type,
      value,
      metadata: { programs: [program] },
      source_url: 'https://example.org/t.csv',
      listed_at,
      removed_at,
    });
    assert.deepEqual(received, [
      [
        change(1, v2, 'listed', T2, record('evil.example', 'website', 'CYBER2', T2, null)),
        change(2, v2, 'delisted', T2, record('bad@example.com', 'email', 'SDGT', T1, T2)),
      ],
    ]);
    assert.deepEqual(values('test-csv'), [
      [A, T1],
      ['Ivan Petrov', T1],
      ['evil.example', T2],
    ]);
    assert.deepEqual(removed('test-csv'), [['bad@example.com', T2]]);

    // The e-mail comes back re-cased (same canonical key): relisted, with the value as now published.
    clock = new Date(T3);
    await writeSource([
      `crypto_address,${A.toLowerCase()},CYBER2`,
      'email,BAD@Example.com,SDGT',
      'website,evil.example,CYBER2',
    ]);
    received.length = 0;
    const r3 = await m.refresh('test-csv');
    await m.idle();
    const v3 = r3[0].version!;
    assert.deepEqual(received, [
      [
        change(3, v3, 'relisted', T3, record('BAD@Example.com', 'email', 'SDGT', T3, null)),
        change(4, v3, 'delisted', T3, record('Ivan Petrov', 'name', 'UKRAINE-EO13660', T1, T3)),
      ],
    ]);
    assert.deepEqual(values('test-csv'), [
      [A.toLowerCase(), T1],
      ['BAD@Example.com', T3],
      ['evil.example', T2],
    ]);
    assert.deepEqual(removed('test-csv'), [['Ivan Petrov', T3]]);
    assert.deepEqual(
      engine
        .screenExact({ kind: 'email', value: 'bad@example.com', lists: ['test-csv'] })!
        .map((h) => [h.entity.value, h.match]),
      [['BAD@Example.com', 'exact']],
    );

    // Same file again: no parse, no version, no changes; only last_checked moves.
    clock = new Date(T4);
    received.length = 0;
    const before = parses;
    assert.deepEqual(await m.refresh('test-csv'), [
      { slug: 'test-csv', result: 'unchanged', version: v3, changes: 0, total: 3 },
    ]);
    assert.equal(parses, before);
    assert.deepEqual(received, []);
    assert.equal(m.status()['test-csv'].last_checked, T4);
    assert.equal(m.status()['test-csv'].last_updated, T3);
  });

  test('a corrupted source is rejected naming file and line; the previous version stays live', async () => {
    clock = new Date(T5);
    await writeSource([`crypto_address,${A},CYBER2`, 'email,new@example.com,SDGT', 'website;broken']);
    const file = join(sourceDir, 'test', 't.csv');
    const [r] = await m.refresh('test-csv');
    assert.equal(r.result, 'failed');
    assert.equal(r.error, `${file}:3: expected 3 fields, found 1`);
    const s = m.status()['test-csv'];
    assert.equal(s.last_error, `${file}:3: expected 3 fields, found 1`);
    assert.equal(s.last_checked, T4);
    assert.equal(s.last_updated, T3);
    assert.equal(s.total, 3);
    assert.deepEqual(values('test-csv'), [
      [A.toLowerCase(), T1],
      ['BAD@Example.com', T3],
      ['evil.example', T2],
    ]);
    assert.equal(engine.screenExact({ kind: 'email', value: 'new@example.com', lists: ['test-csv'] })!.length, 0);
    await assert.rejects(m.refresh('test-disabled'), { message: 'unknown or disabled list: test-disabled' });
  });

  test('restart loads the committed snapshots without parsing any source', async () => {
    const fresh = await Engine.create({ shards: 1 });
    try {
      clock = new Date('2026-03-05T10:01:00.000Z');
      const before = parses;
      const m2 = new ListManager({
        config: config(),
        engine: fresh,
        sinks: [sink],
        log,
        now,
        lists: [csvList, mixerList],
      });
      await m2.start();
      await m2.idle();
      assert.equal(parses, before);
      assert.deepEqual(m2.status()['test-csv'], m.status()['test-csv']);
      assert.deepEqual(
        fresh.entities('test-csv', { limit: 10 }).entities.map((e) => [e.value, e.listed_at]),
        values('test-csv'),
      );
      assert.deepEqual(
        fresh.delisted(['test-csv'], 10).map((e) => [e.value, e.removed_at]),
        [['Ivan Petrov', T3]],
      );
      await m2.stop();
    } finally {
      await fresh.close();
    }
  });

  test('a follower never fetches: it reloads the versions the leader commits', async () => {
    const followerEngine = await Engine.create({ shards: 1 });
    try {
      const f = new ListManager({
        config: config(),
        engine: followerEngine,
        log,
        now,
        lists: [csvList],
        follower: true,
        followerPollMs: 60_000,
      });
      await f.start();
      const before = parses;
      assert.deepEqual(await f.refresh(), []);
      clock = new Date('2026-03-05T12:00:00.000Z');
      await writeSource([
        `crypto_address,${A},CYBER2`,
        'email,BAD@Example.com,SDGT',
        'website,evil.example,CYBER2',
        'email,late@example.com,SDGT',
      ]);
      const [led] = await m.refresh('test-csv');
      assert.equal(parses, before + 1);
      assert.deepEqual(await f.refresh(), [{ slug: 'test-csv', result: 'reloaded', version: led.version, changes: 0 }]);
      assert.equal(parses, before + 1);
      assert.deepEqual(f.status()['test-csv'], m.status()['test-csv']);
      assert.equal(
        followerEngine.screenExact({ kind: 'email', value: 'late@example.com', lists: ['test-csv'] })!.length,
        1,
      );
      await f.stop();
    } finally {
      await followerEngine.close();
    }
  });

  test('changes a sink could not take stay committed and are delivered shortly after, without waiting for a check', async () => {
    clock = new Date('2026-03-06T10:00:00.000Z');
    await writeSource([`crypto_address,${A},CYBER2`, 'email,BAD@Example.com,SDGT']);
    received.length = 0;
    sinkFails = 1;
    // A running manager (the one above was stopped): it retries the sinks on its own.
    const running = manager();
    await running.open();
    const [r] = await running.refresh('test-csv');
    assert.equal(r.result, 'new_version');
    assert.equal(running.status()['test-csv'].last_updated, '2026-03-06T10:00:00.000Z');
    assert.equal(running.status()['test-csv'].last_error, null);
    assert.deepEqual(values('test-csv'), [
      [A, T1],
      ['BAD@Example.com', T3],
    ]);
    await running.idle();
    assert.deepEqual(received, []);
    const dir = join(dataDir, 'lists', 'test-csv');
    assert.ok((await readdir(dir)).includes(`changes-6.ndjson`));
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await running.idle();
    const delivered: ListChange[][] = received;
    assert.deepEqual(
      delivered.map((batch) => batch.map((c) => [c.kind, c.record.value, c.at])),
      [
        [
          ['delisted', 'evil.example', '2026-03-06T10:00:00.000Z'],
          ['delisted', 'late@example.com', '2026-03-06T10:00:00.000Z'],
        ],
      ],
    );
    assert.equal((await readdir(dir)).includes('changes-6.ndjson'), false);
    assert.equal(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')).pending_changes.length, 0);
    await running.stop();
  });
});

test('not ready while a committed version is not yet served by the engine (regression: /readyz said ready before the first generation loaded)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'manager-ready-'));
  const own = await Engine.create({ shards: 1 });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let loading = false;
  const slowEngine = {
    async load(gen: Parameters<Engine['load']>[0]) {
      loading = true;
      await gate;
      return own.load(gen);
    },
  };
  await writeSource([`crypto_address,${A},CYBER2`]);
  const m = new ListManager({
    config: loadConfig({ DATA_DIR: dir, SOURCE_DIR: sourceDir }),
    engine: slowEngine,
    log,
    now,
    lists: [csvList],
  });
  try {
    await m.start();
    while (!loading) await new Promise((r) => setTimeout(r, 10));
    assert.equal(m.status()['test-csv'].loaded, true, 'the version is committed');
    assert.equal(m.ready(), false, 'but the engine does not serve it yet');
    release();
    await m.idle();
    assert.equal(m.ready(), true);
    assert.equal(own.stats().lists['test-csv'].total, 1);
  } finally {
    await m.stop();
    await own.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** A fresh data directory and its manager on `csvList` (the source file is shared with the tests above). */
async function fresh(
  opts: Partial<ConstructorParameters<typeof ListManager>[0]> = {},
  env: Record<string, string> = {},
) {
  const dir = await mkdtemp(join(tmpdir(), 'manager-fresh-'));
  const make = (extra: Partial<ConstructorParameters<typeof ListManager>[0]> = {}) =>
    new ListManager({
      config: loadConfig({ DATA_DIR: dir, SOURCE_DIR: sourceDir, LIST_REFRESH_ENABLED: 'false', ...env }),
      engine: null,
      log,
      now,
      lists: [csvList],
      ...opts,
      ...extra,
    });
  return { dir, make, close: () => rm(dir, { recursive: true, force: true }) };
}

test('changes left undelivered when the service stopped are delivered at the next start, not at the list’s next check (regression: webhook events pending for hours after a restart)', async () => {
  const f = await fresh();
  try {
    clock = new Date('2026-04-01T00:00:00.000Z');
    await writeSource([`crypto_address,${A},CYBER2`]);
    await f.make().refresh();
    clock = new Date('2026-04-02T00:00:00.000Z');
    await writeSource([`crypto_address,${A},CYBER2`, 'email,pending@example.com,SDGT']);
    // The sinks fail while the version is committed, and the process stops.
    const down: ChangeSink = { write: async () => Promise.reject(new Error('ClickHouse is down')) };
    const before = f.make({ sinks: [down], redeliverMs: 60_000 });
    assert.equal((await before.refresh())[0].result, 'new_version');
    await before.stop();
    // The next start: no check is due (LIST_REFRESH_ENABLED=false, the list has a version), the
    // changes go out at once.
    const got: ListChange[][] = [];
    const engine = await Engine.create({ shards: 1 });
    const after = f.make({ sinks: [{ write: async (c) => void got.push(c) }], engine });
    try {
      await after.start();
      await after.idle();
      assert.deepEqual(
        got.map((b) => b.map((c) => [c.kind, c.record.value])),
        [[['listed', 'pending@example.com']]],
      );
      assert.deepEqual(
        JSON.parse(await readFile(join(f.dir, 'lists', 'test-csv', 'state.json'), 'utf8')).pending_changes,
        [],
      );
      await after.stop();
    } finally {
      await engine.close();
    }
  } finally {
    await f.close();
  }
});

test('a version committed by another process is served at the next check even when the source did not change again (regression: lists import left the service unready and stale)', async () => {
  const f = await fresh();
  const own = await Engine.create({ shards: 1 });
  try {
    clock = new Date('2026-04-03T00:00:00.000Z');
    await writeSource([`crypto_address,${A},CYBER2`]);
    const service = f.make({ engine: own });
    await service.start();
    await service.idle();
    // Another process (the CLI of old) commits a new version of the same source files.
    await writeSource([`crypto_address,${A},CYBER2`, 'email,imported@example.com,SDGT']);
    await f.make().refresh();
    assert.equal(service.ready(), true);
    const [r] = await service.refresh('test-csv');
    assert.equal(r.result, 'unchanged', 'the source is what the other process committed');
    assert.equal(service.ready(), true);
    assert.equal(own.screenExact({ kind: 'email', value: 'imported@example.com', lists: ['test-csv'] })!.length, 1);
    await service.stop();
  } finally {
    await own.close();
    await f.close();
  }
});

test('ready stays true while a newer version loads: the previous one serves until the swap', async () => {
  const f = await fresh();
  const own = await Engine.create({ shards: 1 });
  let gate: Promise<void> = Promise.resolve();
  const engine = { load: async (g: Parameters<Engine['load']>[0]) => (await gate, own.load(g)) };
  try {
    clock = new Date('2026-04-04T00:00:00.000Z');
    await writeSource([`crypto_address,${A},CYBER2`]);
    const m = f.make({ engine });
    await m.start();
    await m.idle();
    assert.equal(m.ready(), true);
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    await writeSource([`crypto_address,${A},CYBER2`, 'email,slow@example.com,SDGT']);
    const refreshing = m.refresh('test-csv');
    for (let i = 0; i < 20; i++) {
      assert.equal(m.ready(), true);
      await new Promise((r) => setTimeout(r, 5));
    }
    release();
    await refreshing;
    assert.equal(m.ready(), true);
    assert.equal(own.screenExact({ kind: 'email', value: 'slow@example.com', lists: ['test-csv'] })!.length, 1);
    await m.stop();
  } finally {
    await own.close();
    await f.close();
  }
});

test('stale: failing for longer than the cadence allows (a daily list after a day of failures)', async () => {
  const f = await fresh();
  try {
    clock = new Date('2026-04-05T00:00:00.000Z');
    await writeSource([`crypto_address,${A},CYBER2`]);
    const m = f.make();
    await m.refresh();
    await writeSource(['broken line']);
    clock = new Date('2026-04-05T12:00:00.000Z');
    assert.equal((await m.refresh())[0].result, 'failed');
    assert.deepEqual([m.status()['test-csv'].last_error !== null, m.status()['test-csv'].stale], [true, false]);
    clock = new Date('2026-04-06T00:00:01.000Z');
    assert.equal(m.status()['test-csv'].stale, true, 'no successful check for more than a day');
    await writeSource([`crypto_address,${A},CYBER2`]);
    await m.refresh();
    assert.equal(m.status()['test-csv'].stale, false);
  } finally {
    await f.close();
  }
});

test('uploaded lists: created empty, each upload a diffed version, deleted with every value delisted; definitions found on disk by a later process', async () => {
  const f = await fresh();
  try {
    clock = new Date('2026-04-07T00:00:00.000Z');
    const got: ListChange[] = [];
    const m = f.make({ sinks: [{ write: async (c) => void got.push(...c) }] });
    await m.open();
    const def = {
      slug: 'ops',
      display_name: 'Ops',
      list_type: 'risk' as const,
      kind: 'operator_list' as const,
      cadence: 'manual' as const,
      enabled: true,
      in_default_set: true,
      entity_types: ['email' as const],
    };
    assert.deepEqual(await m.createList(def), {
      slug: 'ops',
      result: 'new_version',
      version: 'e3b0c44298fc1c14',
      changes: 0,
      listed: 0,
      delisted: 0,
      relisted: 0,
      total: 0,
    });
    await assert.rejects(m.createList(def), { message: 'list ops already exists' });
    const rec = (value: string): EntityRecord => ({
      list: 'ops',
      entity_type: 'email',
      value,
      metadata: {},
      source_url: null,
      listed_at: null,
      removed_at: null,
    });
    clock = new Date('2026-04-08T00:00:00.000Z');
    const up = await m.uploadList('ops', { records: [{ records: [rec('a@x.org'), rec('b@x.org')] }], version: 'v-ab' });
    assert.deepEqual([up.result, up.listed, up.total], ['new_version', 2, 2]);
    assert.deepEqual(
      (await m.uploadList('ops', { records: [{ records: [rec('a@x.org'), rec('b@x.org')] }], version: 'v-ab' })).result,
      'unchanged',
    );
    clock = new Date('2026-04-09T00:00:00.000Z');
    const del = await m.deleteList('ops');
    assert.deepEqual([del.result, del.delisted, del.total], ['new_version', 2, 0]);
    assert.deepEqual(
      got.map((c) => [c.kind, c.record.value, c.owner]),
      [
        ['listed', 'a@x.org', 0],
        ['listed', 'b@x.org', 0],
        ['delisted', 'a@x.org', 0],
        ['delisted', 'b@x.org', 0],
      ],
    );
    await assert.rejects(m.uploadList('ops', { records: [], version: 'x' }), { message: 'no uploaded list ops' });
    await assert.rejects(m.refresh('ops'), { message: 'unknown or disabled list: ops' });
    const later = f.make();
    await later.open();
    assert.deepEqual(
      later.definitions().map((d) => [d.slug, d.source.type, d.deleted_at]),
      [
        ['test-csv', 'files', undefined],
        ['ops', 'upload', '2026-04-09T00:00:00.000Z'],
      ],
    );
    assert.deepEqual(later.history('ops'), {
      reach: '2026-04-07T00:00:00.000Z',
      compacted: false,
      versions: [
        { seq: 1, version: 'e3b0c44298fc1c14', at: '2026-04-07T00:00:00.000Z' },
        { seq: 2, version: 'v-ab', at: '2026-04-08T00:00:00.000Z' },
        { seq: 3, version: 'e3b0c44298fc1c14', at: '2026-04-09T00:00:00.000Z' },
      ],
    });
  } finally {
    await f.close();
  }
});

test("a version's keys are kept beside its snapshot for the next diff; a version from before that file existed diffs the same, a damaged one refuses the commit", async () => {
  const f = await fresh();
  try {
    clock = new Date('2026-04-10T00:00:00.000Z');
    const got: ListChange[] = [];
    const m = f.make({ sinks: [{ write: async (c) => void got.push(...c) }] });
    await m.open();
    await m.createList({
      slug: 'keyed',
      display_name: 'Keyed',
      list_type: 'risk',
      kind: 'operator_list',
      cadence: 'manual',
      enabled: true,
      in_default_set: true,
      entity_types: ['email', 'name'],
    });
    const rec = (entity_type: EntityType, value: string): EntityRecord => ({
      list: 'keyed',
      entity_type,
      value,
      metadata: {},
      source_url: null,
      listed_at: null,
      removed_at: null,
    });
    const dir = join(f.dir, 'lists', 'keyed');
    clock = new Date('2026-04-11T00:00:00.000Z');
    await m.uploadList('keyed', {
      records: [{ records: [rec('email', 'A@X.org'), rec('name', 'Ivan  Petrov'), rec('email', 'b@x.org')] }],
      version: 'v1',
    });
    assert.deepEqual((await readFile(join(dir, 'keys-2.ndjson'), 'utf8')).split('\n'), [
      JSON.stringify([entityKey(rec('email', 'a@x.org')), '2026-04-11T00:00:00.000Z']),
      JSON.stringify([entityKey(rec('name', 'Ivan Petrov')), '2026-04-11T00:00:00.000Z']),
      JSON.stringify([entityKey(rec('email', 'b@x.org')), '2026-04-11T00:00:00.000Z']),
      '',
    ]);
    // As a version committed by an earlier release: no keys file, so the records are read and keyed again.
    await rm(join(dir, 'keys-2.ndjson'));
    clock = new Date('2026-04-12T00:00:00.000Z');
    const v2 = await m.uploadList('keyed', {
      records: [{ records: [rec('email', 'a@x.org'), rec('name', 'IVAN PETROV'), rec('email', 'c@x.org')] }],
      version: 'v2',
    });
    assert.deepEqual([v2.listed, v2.delisted, v2.total], [1, 1, 3]);
    // Read from keys-3: the e-mail and the name keep their listing time, b@x.org comes back.
    clock = new Date('2026-04-13T00:00:00.000Z');
    const v3 = await m.uploadList('keyed', {
      records: [{ records: [rec('email', 'a@x.org'), rec('name', 'Ivan Petrov'), rec('email', 'b@x.org')] }],
      version: 'v3',
    });
    assert.deepEqual([v3.listed, v3.delisted, v3.relisted, v3.total], [0, 1, 1, 3]);
    assert.deepEqual(
      got.map((c) => [c.kind, c.record.value, c.record.listed_at, c.record.removed_at]),
      [
        ['listed', 'A@X.org', '2026-04-11T00:00:00.000Z', null],
        ['listed', 'Ivan  Petrov', '2026-04-11T00:00:00.000Z', null],
        ['listed', 'b@x.org', '2026-04-11T00:00:00.000Z', null],
        ['listed', 'c@x.org', '2026-04-12T00:00:00.000Z', null],
        ['delisted', 'b@x.org', '2026-04-11T00:00:00.000Z', '2026-04-12T00:00:00.000Z'],
        ['relisted', 'b@x.org', '2026-04-13T00:00:00.000Z', null],
        ['delisted', 'c@x.org', '2026-04-12T00:00:00.000Z', '2026-04-13T00:00:00.000Z'],
      ],
    );
    const listedAt = (await readFile(join(dir, 'keys-4.ndjson'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as [string, string])[1]);
    assert.deepEqual(listedAt, ['2026-04-11T00:00:00.000Z', '2026-04-11T00:00:00.000Z', '2026-04-13T00:00:00.000Z']);
    // A keys file short of the snapshot's records: the commit is refused and version 4 stays committed.
    await writeFile(
      join(dir, 'keys-4.ndjson'),
      JSON.stringify([entityKey(rec('email', 'a@x.org')), '2026-04-11T00:00:00.000Z']) + '\n',
    );
    await assert.rejects(m.uploadList('keyed', { records: [{ records: [rec('email', 'd@x.org')] }], version: 'v5' }), {
      message: /keys-4\.ndjson: 1 keys for 3 records/,
    });
    assert.equal(m.history('keyed').versions.at(-1)!.version, 'v3');
    // Nothing of the refused commit is left, its temporary files included (they were created after their removal
    // when the commit failed before they had been opened).
    assert.deepEqual((await readdir(dir)).filter((n) => /^keys-|\.tmp-/.test(n)).sort(), [
      'keys-3.ndjson',
      'keys-4.ndjson',
    ]);
  } finally {
    await f.close();
  }
});

test('an upload is served from the commit itself: the engine holds what a load of the committed files gives, and a commit that fails leaves it serving the previous version', async () => {
  const f = await fresh();
  const engine1 = await Engine.create({ shards: 2 });
  const engine2 = await Engine.create({ shards: 2 });
  try {
    clock = new Date('2026-04-20T00:00:00.000Z');
    const m = f.make({ engine: engine1 });
    await m.open();
    await writeSource([`crypto_address,${A},CYBER2`, 'name,Ivan Petrov,UKRAINE-EO13660']);
    await m.refresh('test-csv');
    await m.createList({
      slug: 'fed',
      display_name: 'Fed',
      list_type: 'risk',
      kind: 'operator_list',
      cadence: 'manual',
      enabled: true,
      in_default_set: true,
      entity_types: ['email', 'name'],
    });
    const rec = (entity_type: EntityType, value: string): EntityRecord => ({
      list: 'fed',
      entity_type,
      value,
      metadata: { n: value.length },
      source_url: null,
      listed_at: null,
      removed_at: null,
    });
    const version = (from: number, to: number) => {
      const records: EntityRecord[] = [];
      for (let i = from; i < to; i++) records.push(rec('email', `u${i}@x.org`), rec('name', `Person Number${i}`));
      // Batches of 7: a feed limit far above them, so the engine reads while the diff writes.
      const batches = [];
      for (let i = 0; i < records.length; i += 7) batches.push({ records: records.slice(i, i + 7) });
      return { records: batches, version: `v${from}-${to}` };
    };
    clock = new Date('2026-04-21T00:00:00.000Z');
    await m.uploadList('fed', version(0, 40));
    clock = new Date('2026-04-22T00:00:00.000Z');
    const v2 = await m.uploadList('fed', version(10, 50));
    assert.deepEqual([v2.listed, v2.delisted, v2.total], [20, 20, 80]);
    assert.equal(m.ready(), true);
    const seen = (e: Engine) => ({
      served: e.served(),
      fed: e.entities('fed', { limit: 1000 }).entities.map((x) => [x.entity_type, x.value, x.metadata, x.listed_at]),
      csv: e.entities('test-csv', { limit: 1000 }).entities.map((x) => [x.value, x.listed_at]),
      delisted: e.delisted(['fed'], 1000).map((x) => [x.value, x.listed_at, x.removed_at]),
      hit: e.screenExact({ kind: 'email', value: 'U45@x.org', lists: ['fed'] })!.map((h) => [h.entity.value, h.match]),
      gone: e.screenExact({ kind: 'email', value: 'u5@x.org', lists: ['fed'] })!.length,
    });
    const served = seen(engine1);
    assert.equal(served.fed.length, 80);
    assert.deepEqual(served.fed[0], ['email', 'u10@x.org', { n: 9 }, '2026-04-21T00:00:00.000Z']);
    assert.deepEqual(served.fed.at(-1), ['name', 'Person Number49', { n: 15 }, '2026-04-22T00:00:00.000Z']);
    assert.equal(served.delisted.length, 20);
    assert.deepEqual(served.hit, [['u45@x.org', 'exact']]);
    assert.equal(served.gone, 0);
    assert.deepEqual(
      served.served.map((l) => [l.slug, l.version]),
      [
        ['test-csv', m.status()['test-csv'].version],
        ['fed', 'v10-50'],
      ],
    );
    // Another process loading the committed files serves exactly the same.
    const later = f.make({ engine: engine2 });
    await later.start();
    assert.deepEqual(seen(engine2), served);
    await later.stop();

    // A commit that fails (its previous version's keys damaged) leaves the engine on version 2, ready.
    await writeFile(join(f.dir, 'lists', 'fed', 'keys-3.ndjson'), '');
    clock = new Date('2026-04-23T00:00:00.000Z');
    await assert.rejects(m.uploadList('fed', version(20, 60)), { message: /keys-3\.ndjson: 0 keys for 80 records/ });
    assert.deepEqual(seen(engine1), served);
    assert.equal(m.ready(), true);
    // Without the keys file the next upload reads the records again, and is served.
    await rm(join(f.dir, 'lists', 'fed', 'keys-3.ndjson'));
    const v3 = await m.uploadList('fed', version(20, 60));
    assert.deepEqual([v3.listed, v3.delisted, v3.total], [20, 20, 80]);
    assert.deepEqual(engine1.screenExact({ kind: 'email', value: 'u55@x.org', lists: ['fed'] })!.length, 1);
    assert.deepEqual(engine1.screenExact({ kind: 'email', value: 'u15@x.org', lists: ['fed'] })!.length, 0);
    assert.deepEqual(
      engine1.served().map((l) => [l.slug, l.version]),
      [
        ['test-csv', m.status()['test-csv'].version],
        ['fed', 'v20-60'],
      ],
    );
  } finally {
    await engine1.close();
    await engine2.close();
    await f.close();
  }
});
