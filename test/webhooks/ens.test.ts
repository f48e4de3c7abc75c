import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { getAddress, namehash, type Address } from 'viem';
import { copyInitialisedPglite } from '../../harness/cache.js';
import { Engine } from '../../engine/engine.js';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import { ListManager } from '../../loaders/manager.js';
import type { FetchedFiles, ListDefinition } from '../../loaders/types.js';
import { loadConfig } from '../../src/config.js';
import { EnsResolver } from '../../src/ens/resolver.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { createWebhookDelivery } from '../../src/webhooks/delivery.js';
import { createEnsMonitor, ensNameResolver } from '../../src/webhooks/ens.js';
import { createWebhookSink } from '../../src/webhooks/sink.js';
import { WebhookStore } from '../../src/webhooks/store.js';
import { startChain, type LocalChain } from '../support/chain.js';
import { FIXTURES } from '../../harness/paths.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * A monitored ENS name on a local Hardhat chain with the test Universal Resolver: matched through
 * its resolution, re-resolved on schedule, a new resolution to a listed address reported as
 * `entity.listed`, and a later delisting of that address reported for the name.
 */

async function* parseCsv(files: FetchedFiles): AsyncIterable<EntityRecord> {
  for (const line of (await readFile(files.main, 'utf8')).split('\n')) {
    if (line === '') continue;
    const [type, value, program] = line.split(',');
    yield {
      list: 'ens-watch',
      entity_type: type as EntityType,
      value,
      metadata: { programs: [program] },
      source_url: null,
      listed_at: null,
      removed_at: null,
    };
  }
}

const list: ListDefinition = {
  slug: 'ens-watch',
  display_name: 'ENS watch list',
  list_type: 'crime',
  kind: 'sanctions_list',
  cadence: 'daily',
  enabled: true,
  in_default_set: true,
  primary: true,
  source: {
    type: 'files',
    files: [{ key: 'main', url: 'https://example.org/ens.csv', sourceDirPath: 'ens/list.csv' }],
    parse: parseCsv,
  },
};

const CLEAN: Address = '0x1111111111111111111111111111111111111111';
const LISTED: Address = '0xAbCdEf0000000000000000000000000000000002';
const log = pino({ level: 'silent' });
let dir = '';
let db: Db;
let chain: LocalChain;
let engine: Engine;
let receiver: Receiver;
let resolver: { address: Address; abi: readonly unknown[] };
let clock = new Date('2026-05-01T00:00:00.000Z');

async function setAddr(name: string, a: Address): Promise<void> {
  const wallet = chain.walletClient(chain.accounts[0]);
  const hash = await wallet.writeContract({
    address: resolver.address,
    abi: resolver.abi as never,
    functionName: 'setAddr' as never,
    args: [namehash(name), getAddress(a.toLowerCase())] as never,
    account: chain.accounts[0],
    chain: chain.chain,
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhooks-ens-'));
  await mkdir(join(dir, 'src', 'ens'), { recursive: true });
  [chain, db, engine, receiver] = await Promise.all([
    startChain(),
    copyInitialisedPglite(join(dir, 'pglite')).then(openPglite),
    Engine.create({ shards: 1 }),
    startReceiver(),
  ]);
  await migrate(db);
  const source = await readFile(join(FIXTURES, 'contracts', 'TestUniversalResolver.sol'), 'utf8');
  resolver = await chain.deploy(source, 'TestUniversalResolver');
});
after(async () => {
  await Promise.all([chain?.stop(), engine?.close(), receiver?.close(), db?.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('monitored ENS names', () => {
  test('a new resolution to a listed address gives entity.listed; a delisting of it is reported for the name', async () => {
    const ens = new EnsResolver({ rpcUrl: chain.rpcUrl, universalResolver: resolver.address, ttlSeconds: 0 });
    const names = ensNameResolver(ens);
    const policy = { allowLoopback: true, allowPrivate: false };
    const store = new WebhookStore(db, { policy, names, now: () => clock.getTime() });
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO customers (name, monthly_quota) VALUES ('ens', 10) RETURNING id`,
    );
    const c = rows[0].id;
    const ep = await store.createEndpoint(c, { url: receiver.url('/ens') });
    receiver.secrets.set('/ens', ep.secret);

    const writeList = (lines: string[]) => writeFile(join(dir, 'src', 'ens', 'list.csv'), lines.join('\n') + '\n');
    const manager = new ListManager({
      config: loadConfig({ DATA_DIR: join(dir, 'data'), SOURCE_DIR: join(dir, 'src') }),
      engine,
      sinks: [createWebhookSink({ db, log, list: (slug) => [list].find((d) => d.slug === slug) })],
      log,
      now: () => clock,
      lists: [list],
    });
    await writeList([`crypto_address,${LISTED},RANSOMWARE`]);
    await manager.refresh();

    await setAddr('watch.eth', CLEAN);
    const monitor = await store.createMonitor(c, {
      entity_type: 'onchain_address',
      value: 'watch.eth',
      label: 'Partner',
    });
    assert.deepEqual([monitor.value, monitor.resolved_address], ['watch.eth', CLEAN.toLowerCase()]);

    const monitorEns = createEnsMonitor({
      db,
      log,
      names,
      lists: [list],
      intervalSeconds: 0,
      now: () => clock.getTime(),
      listings: (address) =>
        engine.screenExact({ kind: 'crypto', value: address, lists: ['ens-watch'] })!.map((h) => h.entity),
    });
    assert.equal(await monitorEns.runOnce(), 0, 'unchanged resolution: nothing');

    await setAddr('watch.eth', LISTED);
    clock = new Date('2026-05-01T01:00:00.000Z');
    assert.equal(await monitorEns.runOnce(), 1);
    assert.equal(await monitorEns.runOnce(), 0, 'the same resolution again: no second event');
    assert.deepEqual((await store.listMonitors(c))[0].resolved_address, getAddress(LISTED));

    clock = new Date('2026-05-02T00:00:00.000Z');
    await writeList(['name,Someone Else,RANSOMWARE']);
    assert.equal((await manager.refresh())[0].changes, 2);

    const w = createWebhookDelivery({ db, log, policy, timeoutMs: 2000 });
    assert.equal(await w.runOnce(), 2);
    const got = receiver.received.filter((r) => r.path === '/ens');
    assert.ok(got.every((r) => r.verified));
    const entity = { id: monitor.id, entity_type: 'onchain_address', value: 'watch.eth', label: 'Partner' };
    const listing = {
      list: 'ens-watch',
      list_name: 'ENS watch list',
      list_type: 'crime',
      value: LISTED,
      source_url: null,
      metadata: { programs: ['RANSOMWARE'] },
    };
    const bodies = got.map((r) => r.body).sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
    assert.match(bodies[0].id, /^evt_[0-9a-f]{32}$/);
    // A new resolution is no list change (change_id null); the delisting is one.
    assert.deepEqual(bodies[0], {
      id: bodies[0].id,
      type: 'entity.listed',
      created_at: '2026-05-01T01:00:00.000Z',
      change_id: null,
      monitored_entity: entity,
      listing,
    });
    assert.match(String(bodies[1].change_id), /^chg_[0-9a-f]{32}$/);
    assert.deepEqual(bodies[1], {
      id: bodies[1].id,
      type: 'entity.delisted',
      created_at: '2026-05-02T00:00:00.000Z',
      change_id: bodies[1].change_id,
      monitored_entity: entity,
      listing,
    });
    await manager.stop();
  });
});
