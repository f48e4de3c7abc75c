import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { copyInitialisedPglite } from '../../harness/cache.js';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import { changeId, entityKey, type ChangeSink, type ListChange } from '../../loaders/diff.js';
import { ListManager } from '../../loaders/manager.js';
import type { FetchedFiles, ListDefinition } from '../../loaders/types.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { createWebhookDelivery } from '../../src/webhooks/delivery.js';
import { eventId } from '../../src/webhooks/events.js';
import { createWebhookSink } from '../../src/webhooks/sink.js';
import { WebhookStore } from '../../src/webhooks/store.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * Listing events end to end: a small list read through SOURCE_DIR by the real ListManager, its
 * diffs handed to the webhook sink, the outbox delivered by the worker to a receiver on
 * 127.0.0.1 that verifies every signature itself.
 */

async function* parseCsv(files: FetchedFiles): AsyncIterable<EntityRecord> {
  for (const line of (await readFile(files.main, 'utf8')).split('\n')) {
    if (line === '') continue;
    const [type, value, program] = line.split(',');
    yield {
      list: 'watch',
      entity_type: type as EntityType,
      value,
      metadata: { programs: [program] },
      source_url: 'https://example.org/watch.csv',
      listed_at: null,
      removed_at: null,
    };
  }
}

const watchList: ListDefinition = {
  slug: 'watch',
  display_name: 'Test watch list',
  list_type: 'sanctions',
  kind: 'sanctions_list',
  cadence: 'daily',
  enabled: true,
  in_default_set: true,
  primary: true,
  source: {
    type: 'files',
    files: [{ key: 'main', url: 'https://example.org/watch.csv', sourceDirPath: 'watch/watch.csv' }],
    parse: parseCsv,
  },
};

const ADDRESS = '0x7F367cC41522cE07553e823bf3be79A889DEbe1B';
const BASELINE = ['name,Somebody Else,SDGT', 'website,unrelated.example.org,CYBER2'];
const LISTED = [
  `crypto_address,${ADDRESS},CYBER2`,
  'website,phish.example.com,CYBER2',
  'country,Crimea,UKRAINE-EO13685',
  'email_domain,tempbox.example,DISPOSABLE',
  'government_id,AB 1234568,SDGT',
];
const T1 = '2026-04-01T10:00:00.000Z';
const T2 = '2026-04-02T10:00:00.000Z';
const T3 = '2026-04-03T10:00:00.000Z';
const T4 = '2026-04-04T10:00:00.000Z';

const log = pino({ level: 'silent' });
let dir = '';
let db: Db;
let receiver: Receiver;
let clock = new Date(T1);
const recorded: ListChange[][] = [];
const recorder: ChangeSink = {
  async write(changes) {
    recorded.push(changes);
  },
};

const policy = { allowLoopback: true, allowPrivate: false };

async function customer(name: string): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO customers (name, monthly_quota) VALUES ($1, 1000) RETURNING id',
    [name],
  );
  return rows[0].id;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhooks-events-'));
  await mkdir(join(dir, 'src', 'watch'), { recursive: true });
  db = await openPglite(await copyInitialisedPglite(join(dir, 'pglite')));
  await migrate(db);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('listing events from real loader diffs', () => {
  let manager: ListManager;
  let store: WebhookStore;
  let customerA = 0;
  let customerB = 0;
  const monitors: Record<string, number> = {};
  const sink = () =>
    createWebhookSink({
      db,
      log,
      list: (slug) => [watchList].find((d) => d.slug === slug),
      now: () => clock.getTime(),
    });
  /** Runs the worker until nothing is due (each run takes at most 4 deliveries per endpoint). */
  const deliverAll = async () => {
    const worker = createWebhookDelivery({ db, log, policy, timeoutMs: 2000 });
    let total = 0;
    for (let n = await worker.runOnce(); n > 0; n = await worker.runOnce()) total += n;
    return total;
  };
  const refresh = async (at: string, lines: string[]) => {
    clock = new Date(at);
    await writeFile(join(dir, 'src', 'watch', 'watch.csv'), lines.join('\n') + '\n');
    const [outcome] = await manager.refresh('watch');
    return outcome;
  };
  const version = () => manager.status().watch.version!;
  let v3 = '';
  const eventsFor = (path: string) => receiver.received.filter((r) => r.path === path);

  test('setup: two customers monitoring, one endpoint, the list baseline', async () => {
    store = new WebhookStore(db, { policy, now: () => clock.getTime() });
    customerA = await customer('Monitor A');
    customerB = await customer('Monitor B');
    const ep = await store.createEndpoint(customerA, { url: receiver.url('/a') });
    assert.match(ep.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    receiver.secrets.set('/a', ep.secret);
    // Entered as customers type them: other case, a URL with a path, a country name, spacing.
    monitors.crypto = (
      await store.createMonitor(customerA, {
        entity_type: 'onchain_address',
        value: ADDRESS.toLowerCase(),
        label: 'Treasury wallet',
      })
    ).id;
    monitors.website = (
      await store.createMonitor(customerA, {
        entity_type: 'website',
        value: 'https://Login.Phish.Example.com/account?x=1',
      })
    ).id;
    monitors.country = (
      await store.createMonitor(customerA, { entity_type: 'country', value: 'Ukraine', label: 'UA ops' })
    ).id;
    monitors.email = (
      await store.createMonitor(customerA, { entity_type: 'email', value: 'Someone@mail.TempBox.example' })
    ).id;
    monitors.id = (await store.createMonitor(customerA, { entity_type: 'government_id', value: 'ab-1234567' })).id;
    monitors.unrelated = (await store.createMonitor(customerA, { entity_type: 'website', value: 'example.com' })).id;
    monitors.cryptoB = (await store.createMonitor(customerB, { entity_type: 'onchain_address', value: ADDRESS })).id;

    manager = new ListManager({
      config: loadConfig({ DATA_DIR: join(dir, 'data'), SOURCE_DIR: join(dir, 'src') }),
      engine: null,
      sinks: [sink(), recorder],
      log,
      now: () => clock,
      lists: [watchList],
    });
    await manager.open();
    const first = await refresh(T1, BASELINE);
    assert.equal(first.result, 'new_version');
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events');
    assert.equal(rows[0].n, 0);
  });

  test('a listing version gives one event per (customer, monitored entity, change), matched as screening would', async () => {
    const outcome = await refresh(T2, [...BASELINE, ...LISTED]);
    assert.equal(outcome.changes, 5);
    const v2 = version();
    const { rows } = await db.query<{
      customer_id: number;
      type: string;
      monitored_entity_id: number;
      listing: string;
    }>(
      'SELECT customer_id, type, monitored_entity_id, listing FROM webhook_events ORDER BY customer_id, monitored_entity_id',
    );
    assert.deepEqual(
      rows.map((r) => [r.customer_id, r.monitored_entity_id, r.type, JSON.parse(r.listing).value]),
      [
        [customerA, monitors.crypto, 'entity.listed', ADDRESS],
        [customerA, monitors.website, 'entity.listed', 'phish.example.com'],
        [customerA, monitors.country, 'entity.listed', 'Crimea'],
        [customerA, monitors.email, 'entity.listed', 'tempbox.example'],
        [customerA, monitors.id, 'entity.listed', 'AB 1234568'],
        [customerB, monitors.cryptoB, 'entity.listed', ADDRESS],
      ],
    );
    const { rows: deliveries } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
    assert.equal(deliveries[0].n, 5, 'customer B has no endpoint: its event is stored, nothing is queued');

    // The loaders deliver at least once: the same changes again create nothing.
    await sink().write(recorded.at(-1)!);
    const again = await db.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM webhook_events)::int + (SELECT count(*) FROM webhook_deliveries)::int AS n',
    );
    assert.equal(again.rows[0].n, 11);

    assert.equal(await deliverAll(), 5);
    const got = eventsFor('/a');
    assert.equal(got.length, 5);
    assert.ok(got.every((r) => r.verified && r.answered === 200));
    const crypto = got.find((r) => (r.body.monitored_entity as { id: number }).id === monitors.crypto)!;
    assert.deepEqual(crypto.body, {
      id: eventId({
        customerId: customerA,
        monitoredEntityId: monitors.crypto,
        list: 'watch',
        entityType: 'crypto_address',
        canonicalValue: ADDRESS.toLowerCase(),
        kind: 'listed',
        version: v2,
        at: T2,
      }),
      type: 'entity.listed',
      created_at: T2,
      change_id: changeId('watch', v2, T2, 'listed', entityKey({ entity_type: 'crypto_address', value: ADDRESS })),
      monitored_entity: {
        id: monitors.crypto,
        entity_type: 'onchain_address',
        value: ADDRESS.toLowerCase(),
        label: 'Treasury wallet',
      },
      listing: {
        list: 'watch',
        list_name: 'Test watch list',
        list_type: 'sanctions',
        value: ADDRESS,
        source_url: 'https://example.org/watch.csv',
        metadata: { programs: ['CYBER2'] },
      },
    });
    assert.equal(crypto.headers['content-type'], 'application/json');
    assert.equal(crypto.headers['user-agent'], 'Service-Webhooks/1.0');
    assert.match(crypto.headers['x-service-signature'] as string, /^t=\d+,v1=[0-9a-f]{64}$/);
    const byMonitor = (id: number) => got.find((r) => (r.body.monitored_entity as { id: number }).id === id)!.body;
    assert.deepEqual(byMonitor(monitors.website).monitored_entity, {
      id: monitors.website,
      entity_type: 'website',
      value: 'https://Login.Phish.Example.com/account?x=1',
      label: null,
    });
    assert.deepEqual(byMonitor(monitors.country).listing, {
      list: 'watch',
      list_name: 'Test watch list',
      list_type: 'sanctions',
      value: 'Crimea',
      source_url: 'https://example.org/watch.csv',
      metadata: { programs: ['UKRAINE-EO13685'] },
    });
    assert.equal(byMonitor(monitors.email).type, 'entity.listed');
    assert.equal(byMonitor(monitors.id).type, 'entity.listed');
    assert.equal(new Set(got.map((r) => r.body.id)).size, 5);
  });

  test('delisted, then relisted: the same monitored value gives three events with distinct ids', async () => {
    const withoutAddress = [...BASELINE, ...LISTED.slice(1)];
    assert.equal((await refresh(T3, withoutAddress)).changes, 1);
    v3 = version();
    assert.equal((await refresh(T4, [...BASELINE, ...LISTED])).changes, 1);
    const v4 = version();
    assert.equal(await deliverAll(), 2);
    const crypto = eventsFor('/a').filter((r) => (r.body.monitored_entity as { id: number }).id === monitors.crypto);
    assert.deepEqual(
      crypto.map((r) => [r.body.type, r.body.created_at]),
      [
        ['entity.listed', T2],
        ['entity.delisted', T3],
        ['entity.relisted', T4],
      ],
    );
    const listing = {
      list: 'watch',
      list_name: 'Test watch list',
      list_type: 'sanctions',
      value: ADDRESS,
      source_url: 'https://example.org/watch.csv',
      metadata: { programs: ['CYBER2'] },
    };
    const entity = {
      id: monitors.crypto,
      entity_type: 'onchain_address',
      value: ADDRESS.toLowerCase(),
      label: 'Treasury wallet',
    };
    const id = (kind: string, version: string, at: string) =>
      eventId({
        customerId: customerA,
        monitoredEntityId: monitors.crypto,
        list: 'watch',
        entityType: 'crypto_address',
        canonicalValue: ADDRESS.toLowerCase(),
        kind,
        version,
        at,
      });
    const change = (kind: 'delisted' | 'relisted', version: string, at: string) =>
      changeId('watch', version, at, kind, entityKey({ entity_type: 'crypto_address', value: ADDRESS }));
    assert.deepEqual(crypto[1].body, {
      id: id('delisted', v3, T3),
      type: 'entity.delisted',
      created_at: T3,
      change_id: change('delisted', v3, T3),
      monitored_entity: entity,
      listing,
    });
    assert.deepEqual(crypto[2].body, {
      id: id('relisted', v4, T4),
      type: 'entity.relisted',
      created_at: T4,
      change_id: change('relisted', v4, T4),
      monitored_entity: entity,
      listing,
    });
    assert.equal(new Set(crypto.map((r) => r.body.id)).size, 3);
    assert.ok(crypto.every((r) => r.verified));
  });

  test('a deleted monitored entity keeps its queued events, delivered with id null', async () => {
    const withoutAddress = [...BASELINE, ...LISTED.slice(1)];
    const before = eventsFor('/a').length;
    // The same content as at T3 (the same version label): a new change all the same.
    await refresh('2026-04-05T10:00:00.000Z', withoutAddress);
    assert.equal(version(), v3);
    assert.deepEqual(await store.deleteMonitor(customerA, monitors.crypto).then((m) => m?.id), monitors.crypto);
    assert.equal(await deliverAll(), 1);
    const last = eventsFor('/a').slice(before);
    assert.equal(last.length, 1);
    assert.deepEqual(last[0].body.monitored_entity, {
      id: null,
      entity_type: 'onchain_address',
      value: ADDRESS.toLowerCase(),
      label: 'Treasury wallet',
    });
    assert.equal(last[0].body.type, 'entity.delisted');
  });
});
