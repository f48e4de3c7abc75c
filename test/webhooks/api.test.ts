import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { copyInitialisedPglite } from '../../harness/cache.js';
import type { AnyEndpoint, RequestContext } from '../../src/core/endpoint.js';
import { monitoringEndpoints } from '../../src/api/endpoints/monitoring.js';
import { buildOpenApiDocument, buildTrpcRouter } from '../../src/api/trpc.js';
import type { Gate } from '../../src/core/gate.js';
import { HttpError, ValidationFailed } from '../../src/core/errors.js';
import { parseInput, type RawInput } from '../../src/core/validation.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { WebhookStore } from '../../src/webhooks/store.js';
import { KINDS } from '../../src/core/kinds.js';

/**
 * The monitoring endpoints as the pipeline runs them: input parsed from path, query and body with
 * the endpoint's schema, the handler called with a customer's context, the answer checked against
 * the output schema; plus their place in the OpenAPI document.
 */

const log = pino({ level: 'silent' });
let dir = '';
let db: Db;
let endpoints: AnyEndpoint[];
let customerA = 0;
let customerB = 0;

const ep = (id: string) => endpoints.find((e) => e.id === id)!;
const ctx = (customerId: number) =>
  ({ caller: { kind: 'customer', customerId, tokenId: 1 }, log, now: Date.now, meta: {} }) as unknown as RequestContext;

async function call(id: string, customerId: number, raw: Partial<RawInput>): Promise<unknown> {
  const e = ep(id);
  const input = parseInput(e.input, { path: {}, query: {}, ...raw });
  const out = await e.handler(input, ctx(customerId));
  return e.output.parse(out);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhooks-api-'));
  db = await openPglite(await copyInitialisedPglite(join(dir, 'pglite')));
  await migrate(db);
  endpoints = monitoringEndpoints({
    store: new WebhookStore(db, { policy: { allowLoopback: true, allowPrivate: false } }),
    kinds: KINDS,
  });
  const ins = async (name: string) =>
    (await db.query<{ id: number }>('INSERT INTO customers (name, monthly_quota) VALUES ($1, 5) RETURNING id', [name]))
      .rows[0].id;
  customerA = await ins('api A');
  customerB = await ins('api B');
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('monitoring API', () => {
  test('monitored entities: create, list, delete; values screening cannot read are 422 on value', async () => {
    const created = (await call('account.monitors.create', customerA, {
      body: { entity_type: 'email', value: ' Ops@Example.com ', label: 'ops' },
    })) as { id: number; created_at: string };
    assert.deepEqual(await call('account.monitors.list', customerA, {}), [
      {
        id: created.id,
        entity_type: 'email',
        value: 'Ops@Example.com',
        label: 'ops',
        resolved_address: null,
        created_at: created.created_at,
        last_event: null,
      },
    ]);
    assert.deepEqual(await call('account.monitors.list', customerB, {}), []);
    for (const [entity_type, value] of [
      ['email', 'not-an-email'],
      ['country', 'Atlantis'],
      ['website', 'no host'],
      ['government_id', '--'],
      ['onchain_address', 'bad..name.eth'],
    ]) {
      await assert.rejects(
        call('account.monitors.create', customerA, { body: { entity_type, value } }),
        (e: unknown) => {
          assert.ok(e instanceof ValidationFailed);
          assert.deepEqual(e.issues[0].loc, ['body', 'value']);
          return true;
        },
        `${entity_type} ${value}`,
      );
    }
    await assert.rejects(
      call('account.monitors.create', customerA, { body: { entity_type: 'phone', value: '1' } }),
      ValidationFailed,
    );
    await assert.rejects(
      call('account.monitors.delete', customerB, { path: { monitored_entity_id: String(created.id) } }),
      (e: unknown) => e instanceof HttpError && e.status === 404,
    );
    assert.equal(
      (
        (await call('account.monitors.delete', customerA, { path: { monitored_entity_id: String(created.id) } })) as {
          id: number;
        }
      ).id,
      created.id,
    );
    assert.deepEqual(await call('account.monitors.list', customerA, {}), []);
  });

  test('webhook endpoints: the secret only at creation and rotation; owner-only; delivery log', async () => {
    const created = (await call('account.webhooks.create', customerA, {
      body: { url: 'http://127.0.0.1:9/hook' },
    })) as { id: number; secret: string; secret_prefix: string };
    assert.match(created.secret, /^whsec_/);
    const listed = (await call('account.webhooks.list', customerA, {})) as Record<string, unknown>[];
    assert.equal(listed.length, 1);
    assert.equal('secret' in listed[0], false);
    assert.equal(listed[0].secret_prefix, created.secret.slice(0, 10));
    await assert.rejects(
      call('account.webhooks.create', customerA, { body: { url: 'https://169.254.169.254/' } }),
      (e: unknown) => {
        assert.ok(e instanceof ValidationFailed);
        assert.deepEqual(
          [e.issues[0].loc, e.issues[0].msg],
          [
            ['body', 'url'],
            'Value error, the host 169.254.169.254 resolves to a cloud metadata address, which webhooks may not reach',
          ],
        );
        return true;
      },
    );
    const path = { endpoint_id: String(created.id) };
    await assert.rejects(
      call('account.webhooks.rotateSecret', customerB, { path }),
      (e: unknown) => e instanceof HttpError && e.status === 404,
    );
    const rotated = (await call('account.webhooks.rotateSecret', customerA, { path })) as { secret: string };
    assert.notEqual(rotated.secret, created.secret);

    const sent = (await call('account.webhooks.test', customerA, { path })) as {
      event: { id: string; type: string };
      delivery_id: number;
    };
    assert.equal(sent.event.type, 'test');
    const page = (await call('account.webhooks.deliveries', customerA, { path, query: { status: 'pending' } })) as {
      total: number;
      items: { id: number; event_id: string; attempts: number }[];
    };
    assert.deepEqual(
      [page.total, page.items[0].id, page.items[0].event_id, page.items[0].attempts],
      [1, sent.delivery_id, sent.event.id, 0],
    );
    await assert.rejects(
      call('account.webhooks.deliveries', customerA, { path, query: { status: 'lost' } }),
      ValidationFailed,
    );

    const disabled = (await call('account.webhooks.update', customerA, { path, body: { enabled: false } })) as {
      enabled: boolean;
    };
    assert.equal(disabled.enabled, false);
    await assert.rejects(
      call('account.webhooks.test', customerA, { path }),
      (e: unknown) => e instanceof HttpError && e.status === 409,
    );
    assert.equal(((await call('account.webhooks.delete', customerA, { path })) as { id: number }).id, created.id);
    assert.deepEqual(await call('account.webhooks.list', customerA, {}), []);
  });

  test('the endpoints appear in the OpenAPI document with their named schemas', () => {
    const gate = {} as Gate;
    const router = buildTrpcRouter(endpoints, { gate, log, now: Date.now, validateOutput: true });
    const doc = buildOpenApiDocument(router, endpoints, 'http://localhost') as unknown as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    for (const p of [
      '/api/v1/account/monitored-entities',
      '/api/v1/account/webhooks',
      '/api/v1/account/webhooks/{endpoint_id}/deliveries',
      '/api/v1/account/webhooks/{endpoint_id}/rotate-secret',
    ]) {
      assert.ok(
        Object.keys(doc.paths).some((k) => k.endsWith(p.replace('/api/v1', ''))),
        p,
      );
    }
    for (const name of [
      'MonitoredEntity',
      'WebhookEndpoint',
      'CreatedWebhookEndpoint',
      'WebhookEvent',
      'WebhookDelivery',
      'WebhookDeliveryPage',
      'WebhookTestResult',
    ]) {
      assert.ok(name in doc.components.schemas, name);
    }
  });
});
