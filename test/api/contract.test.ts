import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestService, type TestService } from '../../harness/service.js';
import { REPO_ROOT } from '../../harness/paths.js';
import { join } from 'node:path';

/**
 * The OpenAPI document against SPEC.md itself: every resource table of the spec is parsed here
 * and compared with the component of the same name — field names, JSON types, nullability and
 * the required list — and the document is validated as OpenAPI 3.1.
 */
type Schema = {
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
};
type Doc = {
  openapi: string;
  info: { version: string };
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
};

let svc: TestService;
let doc: Doc;
before(async () => {
  svc = await startTestService();
  doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as Doc;
});
after(async () => {
  await svc?.close();
});

interface SpecField {
  name: string;
  type: string;
  required: boolean;
  rules: string;
}

/** `### Name` sections whose table has the columns Field | Type | Rules. */
function specResources(): Map<string, SpecField[]> {
  const text = readFileSync(join(REPO_ROOT, '..', 'shared', 'SPEC.md'), 'utf8');
  const out = new Map<string, SpecField[]>();
  for (const section of text.split(/^### /m).slice(1)) {
    const name = /^(\w+)/.exec(section)?.[1];
    if (!name || !/\| Field \| Type \| Rules \|/.test(section)) continue;
    const rows = section.split('\n').filter((l) => l.startsWith('| ') && !/^\| (Field|---)/.test(l));
    out.set(
      name,
      rows.map((row) => {
        const [, field, type, rules] = row.split('|').map((c) => c.trim());
        return { name: field, type, required: /\bRequired\b/.test(rules), rules };
      }),
    );
  }
  return out;
}

/** The JSON types a schema admits ('null' included), following $refs. */
function jsonTypes(s: Schema): Set<string> {
  if (s.$ref) return jsonTypes(doc.components.schemas[s.$ref.split('/').pop()!]);
  if (s.anyOf || s.oneOf) return new Set((s.anyOf ?? s.oneOf)!.flatMap((x) => [...jsonTypes(x)]));
  if (Array.isArray(s.type)) return new Set(s.type);
  if (s.type) return new Set([s.type]);
  return new Set(['any']);
}

function expectedTypes(specType: string): Set<string> {
  const t = specType.toLowerCase();
  const base = t.replace(/ or null$/, '');
  const types = new Set<string>();
  if (/^array/.test(base)) types.add('array');
  else if (/^object/.test(base)) types.add('object');
  else for (const part of base.split(' or ')) types.add(part.replace(/ \(date-time\)/, '').trim());
  if (/ or null$/.test(t)) types.add('null');
  return types;
}

/** SPEC.md sections whose component carries a more telling name. */
const COMPONENT_NAMES: Record<string, string> = { Payload: 'WebhookEvent' };

/**
 * Fields beyond SPEC.md, each documented: the last refresh error per source in /stats (issue #4),
 * whether a source is stale, the change a webhook event reports (issue #22), and a PEP candidate's
 * explanation in words and its alert's review (issue #38: a PepMatch has no metadata to carry them).
 */
const DOCUMENTED_EXTRAS: Record<string, string[]> = {
  SourceStats: ['last_error', 'stale'],
  WebhookEvent: ['change_id'],
  PepMatch: ['explanation_text', 'review'],
};

test('every resource of SPEC.md is a component with the same fields, types, nullability and required list', () => {
  const resources = specResources();
  assert.ok(resources.size >= 13, `parsed ${[...resources.keys()].join(', ')}`);
  for (const [section, fields] of resources) {
    const name = COMPONENT_NAMES[section] ?? section;
    const component = doc.components.schemas[name];
    assert.ok(component, `component ${name} is missing`);
    assert.equal(component.additionalProperties, false, `${name} must be strict`);
    const props = Object.keys(component.properties ?? {});
    assert.deepEqual(
      props.filter((p) => !(DOCUMENTED_EXTRAS[name] ?? []).includes(p)).sort(),
      fields.map((f) => f.name).sort(),
      `${name}: fields`,
    );
    const required = new Set(component.required ?? []);
    // Tables that never say "Required" (the webhook payload) describe fields that are always sent.
    const speaksRequired = fields.some((f) => f.required);
    for (const f of fields) {
      if (f.required || !speaksRequired)
        assert.ok(required.has(f.name), `${name}.${f.name} is always present per SPEC.md`);
      else if (required.has(f.name))
        assert.match(
          f.rules,
          /Default/,
          `${name}.${f.name} is required here but neither Required nor defaulted in SPEC.md`,
        );
      const actual = jsonTypes(component.properties![f.name]);
      const expected = expectedTypes(f.type);
      for (const e of expected) {
        if (e === 'number' && actual.has('integer')) continue;
        assert.ok(
          actual.has(e) || actual.has('any'),
          `${name}.${f.name}: SPEC.md type "${f.type}" vs ${[...actual].join('|')}`,
        );
      }
      if (!expected.has('null'))
        assert.ok(!actual.has('null') || /Nullable/.test(f.rules), `${name}.${f.name} must not be nullable`);
      if (/date-time/.test(f.type))
        assert.equal(
          component.properties![f.name].anyOf
            ? component.properties![f.name].anyOf!.find((x) => x.type === 'string')?.format
            : component.properties![f.name].format,
          'date-time',
          `${name}.${f.name}`,
        );
    }
  }
});

test('error components, security schemes and the error responses of each operation', () => {
  for (const c of ['HTTPValidationError', 'ValidationError', 'ErrorDetail', 'PaymentRequired'])
    assert.ok(doc.components.schemas[c], c);
  assert.deepEqual(doc.components.schemas.ValidationError.required, ['loc', 'msg', 'type']);
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['adminKey', 'bearer', 'x402', 'x402v1']);
  const crypto = doc.paths['/api/v1/screen/crypto/{address}'].get;
  assert.deepEqual(
    Object.keys(crypto.responses).sort(),
    ['200', '400', '401', '402', '403', '422', '503'],
    '403: a token without the screen scope',
  );
  assert.deepEqual(crypto.security, [{ bearer: [] }, { x402: [] }, { x402v1: [] }]);
  const search = doc.paths['/api/v1/search'].get;
  assert.deepEqual(Object.keys(search.responses).sort(), ['200', '400', '422', '429', '503']);
  assert.deepEqual(search.security, []);
  assert.deepEqual(Object.keys(doc.paths['/api/v1/screen/lists/{slug}/entities'].get.responses).sort(), [
    '200',
    '404',
    '422',
    '503',
  ]);
  assert.deepEqual(Object.keys(doc.paths['/api/v1/screen/lists'].get.responses).sort(), ['200']);
  for (const path of [
    '/api/v1/screen/crypto/{address}',
    '/api/v1/screen/email/{email}',
    '/api/v1/screen/website',
    '/api/v1/screen/id/{government_id}',
    '/api/v1/screen/country/{country}',
    '/api/v1/screen/pep',
    '/api/v1/vpn',
    '/api/v1/vpn/{ip_address}',
    '/api/v1/geo',
    '/api/v1/geo/{ip_address}',
  ]) {
    assert.ok(doc.paths[path]?.get, path);
    assert.ok(doc.paths[path].get.responses['402'], `${path} documents 402`);
  }
  for (const path of [
    '/api/v1/screen/lists',
    '/api/v1/screen/lists/{slug}/entities',
    '/api/v1/stats',
    '/api/v1/delisted',
    '/api/v1/search',
  ]) {
    assert.deepEqual(doc.paths[path].get.security, [], `${path} is public`);
  }
});

test('the list operations of issue #22: the changes feed, refresh on demand, uploaded lists, as_of and the screening headers', () => {
  const op = (method: string, path: string) => {
    const o = (
      doc.paths[`/api/v1${path}`] as
        | Record<
            string,
            {
              responses: Record<string, { headers?: Record<string, unknown> }>;
              security?: unknown;
              parameters?: { name: string; in: string }[];
              requestBody?: { content: Record<string, unknown> };
            }
          >
        | undefined
    )?.[method];
    assert.ok(o, `${method.toUpperCase()} ${path} is documented`);
    return o;
  };
  const changes = op('get', '/changes');
  assert.deepEqual(changes.security, []);
  assert.deepEqual(Object.keys(changes.responses).sort(), ['200', '400', '422', '429']);
  assert.deepEqual(changes.parameters!.map((p) => p.name).sort(), [
    'cursor',
    'entity_types',
    'format',
    'kinds',
    'limit',
    'lists',
    'since',
  ]);
  for (const [method, path, statuses] of [
    ['post', '/admin/lists', ['200', '202', '401', '409', '422']],
    ['get', '/admin/lists', ['200', '401']],
    ['post', '/admin/lists/{slug}/upload', ['200', '202', '401', '404', '409', '413', '415', '422']],
    ['delete', '/admin/lists/{slug}', ['200', '202', '401', '404', '409', '422']],
    ['post', '/admin/lists/{slug}/refresh', ['200', '202', '400', '401', '404', '409', '422']],
    ['post', '/admin/lists/refresh', ['200', '202', '401', '409', '422']],
    ['get', '/admin/lists/jobs/{job_id}', ['200', '401', '404', '422']],
    ['post', '/account/lists', ['200', '202', '401', '403', '409', '422']],
    ['get', '/account/lists', ['200', '401', '403']],
    ['post', '/account/lists/{slug}/upload', ['200', '202', '401', '403', '404', '409', '413', '415', '422']],
    ['delete', '/account/lists/{slug}', ['200', '202', '401', '403', '404', '409', '422']],
    ['get', '/account/lists/{slug}/entities', ['200', '401', '403', '404', '422']],
    ['get', '/account/lists/{slug}/changes', ['200', '401', '403', '404', '422']],
    ['get', '/account/lists/jobs/{job_id}', ['200', '401', '403', '404', '422']],
  ] as const) {
    const o = op(method, path);
    assert.deepEqual(Object.keys(o.responses).sort(), [...statuses].sort(), `${method} ${path}`);
    if (o.responses['202'])
      assert.ok(o.responses['202'].headers?.Location, `${method} ${path}: 202 says where to poll`);
  }
  const upload = op('post', '/admin/lists/{slug}/upload');
  assert.deepEqual(Object.keys(upload.requestBody!.content).sort(), [
    'application/json',
    'application/x-ndjson',
    'text/csv',
  ]);
  assert.deepEqual(
    upload.parameters!.map((p) => [p.name, p.in]),
    [
      ['slug', 'path'],
      ['wait', 'query'],
    ],
  );
  for (const path of [
    '/screen/crypto/{address}',
    '/screen/email/{email}',
    '/screen/website',
    '/screen/id/{government_id}',
    '/screen/country/{country}',
  ]) {
    const o = op('get', path);
    assert.ok(
      o.parameters!.some((p) => p.name === 'as_of' && p.in === 'query'),
      `${path} takes as_of`,
    );
    assert.deepEqual(
      Object.keys(o.responses['200'].headers ?? {}).sort(),
      ['PAYMENT-RESPONSE', 'X-As-Of', 'X-List-Versions', 'X-PAYMENT-RESPONSE'],
      path,
    );
  }
  assert.ok(
    op('get', '/screen/pep').parameters!.some((p) => p.name === 'as_of'),
    'the PEP proxy documents that it refuses as_of',
  );
  const stats = doc.components.schemas.SourceStats as { properties: Record<string, unknown> };
  assert.ok(stats.properties.stale);
  for (const name of ['ListChange', 'ChangesPage', 'ListJob', 'RefreshResult', 'UploadedList'])
    assert.ok(doc.components.schemas[name], name);
});

test('the alerts of issue #38: routes, their statuses, the list parameters and the decision body', () => {
  type Op = {
    responses: Record<string, unknown>;
    parameters?: { name: string; in: string }[];
    requestBody?: { content: Record<string, { schema: Schema }> };
  };
  const op = (method: string, path: string) => {
    const o = (doc.paths[`/api/v1${path}`] as Record<string, Op> | undefined)?.[method];
    assert.ok(o, `${method.toUpperCase()} ${path} is documented`);
    return o;
  };
  for (const [method, path, statuses] of [
    ['get', '/account/alerts', ['200', '401', '403', '422']],
    ['get', '/account/alerts/{alert_id}', ['200', '401', '403', '404', '422']],
    ['post', '/account/alerts/{alert_id}/decision', ['200', '401', '403', '404', '409', '422']],
    ['post', '/account/alerts/{alert_id}/comments', ['200', '401', '403', '404', '422']],
    ['post', '/account/alerts/decisions', ['200', '401', '403', '404', '409', '422']],
    ['get', '/account/alerts/export', ['200', '401', '403', '422']],
    ['get', '/admin/alerts/counts', ['200', '401']],
  ] as const) {
    assert.deepEqual(Object.keys(op(method, path).responses).sort(), [...statuses].sort(), `${method} ${path}`);
  }
  assert.deepEqual(
    op('get', '/account/alerts')
      .parameters!.map((p) => `${p.in}:${p.name}`)
      .sort(),
    [
      'query:cursor',
      'query:kind',
      'query:limit',
      'query:list',
      'query:max_score',
      'query:min_score',
      'query:order',
      'query:since',
      'query:sort',
      'query:status',
      'query:subject',
      'query:text',
      'query:until',
    ],
  );
  assert.deepEqual(
    op('get', '/account/alerts/export')
      .parameters!.map((p) => p.name)
      .sort(),
    [
      'after_id',
      'format',
      'kind',
      'limit',
      'list',
      'max_score',
      'min_score',
      'since',
      'status',
      'subject',
      'text',
      'until',
    ],
  );
  const body = op('post', '/account/alerts/{alert_id}/decision').requestBody!.content['application/json'].schema;
  assert.deepEqual(Object.keys(body.properties ?? {}).sort(), ['comment', 'status', 'version']);
  assert.deepEqual([...(body.required ?? [])].sort(), ['status', 'version']);
});

test('the served document is valid OpenAPI 3.1 with info.version 2.0.0', async () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '2.0.0');
  const validator = new Validator();
  const result = await validator.validate(doc as never);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  assert.equal(validator.version, '3.1');
});
