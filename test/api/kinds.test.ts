import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KindRule } from '../../engine/kinds.js';
import { TYPE_INDEX } from '../../engine/model.js';
import { ValueProblem } from '../../engine/normalize/validate.js';
import { normalizeWebsite } from '../../engine/normalize/website.js';
import { KINDS, type PublishedKind } from '../../src/core/kinds.js';
import { createCustomerToken, startTestService, type TestService } from '../../harness/service.js';
import { settled } from '../../harness/list-jobs.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

/**
 * A kind added through the table of kinds (src/core/kinds.ts) reaches every place a kind is
 * published: its screening route and OpenAPI operation, the batch's item types, the monitored
 * entity types, and the webhook events of a monitored value of it. The kind here, `host`, is a
 * bare host name (no scheme, port or path) matched exactly against listed websites: unlike
 * `website`, a listed domain does not match its subdomains.
 */

const NOT_A_HOST = new ValueProblem('not a bare host name: no scheme, port or path');
const HOST_RULE: KindRule = {
  name: 'host',
  prepare(value) {
    const v = value.trim();
    if (!/^[A-Za-z0-9.-]+$/.test(v)) return NOT_A_HOST;
    return normalizeWebsite(v) ?? NOT_A_HOST;
  },
  probe(probes, prepared) {
    probes.add(TYPE_INDEX.website, prepared as string, 'exact');
  },
  fuzzyIds: false,
  listed: [],
};
const HOST: PublishedKind = {
  rule: HOST_RULE,
  param: { name: 'host', in: 'path', description: 'A bare host name.' },
  summary: 'Screen a host name exactly',
  description: 'A listed website matches its own host only.',
  monitor: 'web_host',
  tool: 'screen_host',
  ens: false,
};

let svc: TestService;
let receiver: Receiver;
let auth: Record<string, string>;
let slug: string;

before(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ WEBHOOK_ALLOW_LOOPBACK: 'true' }, { kinds: KINDS.with(HOST) });
  const customer = await createCustomerToken(svc.url, 1000);
  auth = { authorization: `Bearer ${customer.token}` };
  slug = `c${customer.customerId}.hosts`;
});
after(async () => {
  await svc?.close();
  await receiver?.close();
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}/api/v1${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text.split('\n')[0]) as unknown };
};

const LISTED = 'listed-host.example';
const MATCH = {
  list: '',
  list_name: 'Blocked hosts',
  list_type: 'crime',
  match: 'exact',
  value: LISTED,
  source_url: null,
  metadata: { explanation_text: 'The website listed-host.example is listed on Blocked hosts.' },
};
const detailOf = (body: unknown) => (body as { detail: { loc: unknown[]; msg: string }[] }).detail;

test('a kind added to the table is screened, batched, monitored and reported like the others', async () => {
  // Published: its operation, and its monitored type beside the others.
  const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, { get?: { operationId?: string; summary?: string } }>;
    components: { schemas: Record<string, { enum?: string[] }> };
  };
  assert.equal(doc.paths['/api/v1/screen/host/{host}']?.get?.summary, 'Screen a host name exactly');
  assert.deepEqual(doc.components.schemas.MonitoredEntityType.enum, [
    'onchain_address',
    'email',
    'website',
    'government_id',
    'country',
    'web_host',
  ]);

  // A private list of websites, and a webhook endpoint on loopback.
  const created = await call('POST', '/account/lists', {
    name: 'hosts',
    display_name: 'Blocked hosts',
    list_type: 'crime',
    entity_types: ['website'],
  });
  assert.equal(created.status, 200, created.text);
  const hook = await call('POST', '/account/webhooks', { url: receiver.url('/hook') });
  assert.equal(hook.status, 200, hook.text);
  receiver.secrets.set('/hook', (hook.body as { secret: string }).secret);

  // Monitored as its own type, its value checked by its own validator.
  const refused = await call('POST', '/account/monitored-entities', {
    entity_type: 'web_host',
    value: `https://${LISTED}/`,
  });
  assert.equal(refused.status, 422);
  assert.deepEqual(
    detailOf(refused.body).map((d) => [d.loc, d.msg]),
    [[['body', 'value'], `Value error, ${NOT_A_HOST.message}`]],
  );
  const monitored = await call('POST', '/account/monitored-entities', {
    entity_type: 'web_host',
    value: 'Listed-Host.example',
    label: 'watched host',
  });
  assert.equal(monitored.status, 200, monitored.text);
  const monitor = monitored.body as { id: number; entity_type: string; last_event: unknown };
  assert.equal(monitor.entity_type, 'web_host');
  assert.equal(monitor.last_event, null);

  // Listing the host makes an event for the monitored value, delivered signed.
  const upload = await settled(
    svc.url,
    await call('POST', `/account/lists/${slug}/upload`, [{ entity_type: 'website', value: LISTED }]),
    auth,
  );
  assert.equal(upload.status, 200, JSON.stringify(upload.body));
  const deadline = Date.now() + 30_000;
  while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const [got] = receiver.received;
  assert.ok(got, 'no delivery within 30 s');
  assert.equal(got.verified, true);
  assert.equal(got.body.type, 'entity.listed');
  assert.deepEqual(got.body.monitored_entity, {
    id: monitor.id,
    entity_type: 'web_host',
    value: 'Listed-Host.example',
    label: 'watched host',
  });
  const { match: _match, ...listing } = MATCH;
  // A listing event carries the list's metadata, not an answer's explanation.
  assert.deepEqual(got.body.listing, { ...listing, list: slug, metadata: {} });
  const listedNow = await call('GET', '/account/monitored-entities');
  assert.deepEqual(
    (listedNow.body as { entity_type: string; last_event: unknown }[]).map((m) => [m.entity_type, m.last_event]),
    [['web_host', { type: 'entity.listed', list: slug, at: got.body.created_at }]],
  );

  // Its route: the host exactly (the listed key is the host without `www.`), never a subdomain.
  const hit = await call('GET', `/screen/host/LISTED-HOST.example?lists=${slug}`);
  assert.equal(hit.status, 200, hit.text);
  assert.deepEqual(hit.body, {
    value: 'LISTED-HOST.example',
    flagged: true,
    sanctioned: false,
    lists_checked: [slug],
    matches: [{ ...MATCH, list: slug }],
  });
  const sub = await call('GET', `/screen/host/shop.${LISTED}?lists=${slug}`);
  assert.deepEqual(sub.body, {
    value: `shop.${LISTED}`,
    flagged: false,
    sanctioned: false,
    lists_checked: [slug],
    matches: [],
  });
  const website = await call('GET', `/screen/website?address=shop.${LISTED}&lists=${slug}`);
  assert.deepEqual(
    (website.body as { matches: { match: string }[] }).matches.map((m) => m.match),
    ['subdomain'],
  );
  const port = await call('GET', `/screen/host/${LISTED}:8080?lists=${slug}`);
  assert.equal(port.status, 422);
  assert.deepEqual(
    detailOf(port.body).map((d) => [d.loc, d.msg]),
    [[['path', 'host'], `Value error, ${NOT_A_HOST.message}`]],
  );

  // A batch item of the kind, valid and invalid, beside an item of a built-in kind.
  const batch = await call('POST', '/screen/batch', {
    items: [
      { type: 'host', value: `www.${LISTED}` },
      { type: 'host', value: `http://${LISTED}` },
      { type: 'website', value: `shop.${LISTED}` },
    ],
    lists: slug,
  });
  assert.equal(batch.status, 200, batch.text);
  const lines = batch.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
  assert.deepEqual(lines[0], {
    value: `www.${LISTED}`,
    flagged: true,
    sanctioned: false,
    lists_checked: [slug],
    matches: [{ ...MATCH, list: slug }],
  });
  assert.deepEqual(
    detailOf(lines[1]).map((d) => [d.loc, d.msg]),
    [[['body', 'items', 1, 'value'], `Value error, ${NOT_A_HOST.message}`]],
  );
  assert.deepEqual(
    (lines[2] as { matches: { match: string }[] }).matches.map((m) => m.match),
    ['subdomain'],
  );
});

test('a table refuses a kind whose name, monitored type or tool is taken', () => {
  assert.throws(() => KINDS.with({ ...HOST, rule: { ...HOST_RULE, name: 'crypto' } }), /kind crypto twice/);
  assert.throws(() => KINDS.with({ ...HOST, monitor: 'email' }), /monitored type email twice/);
  assert.throws(() => KINDS.with({ ...HOST, tool: 'screen_crypto' }), /tool screen_crypto twice/);
  assert.throws(() => KINDS.with({ ...HOST, rule: { ...HOST_RULE, name: 'name' } }), /kind name twice/);
});
