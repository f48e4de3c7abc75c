import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { endpoint } from '../../src/core/endpoint.js';
import { buildTools, pipelineHeaders, prefersEventStream, restUrl, type McpConnection } from '../../src/mcp/index.js';
import { KINDS } from '../../src/core/kinds.js';

// The pure parts of the MCP module: REST URLs of tool calls, credential and payment mapping,
// the Accept negotiation, and how answers that are not objects are wrapped.

const output = z.object({ value: z.string() });
const defs = [
  endpoint({
    id: 'screen.crypto',
    method: 'GET',
    path: '/screen/crypto/{address}',
    tags: [],
    summary: 'Screen',
    access: 'metered',
    input: z.object({ address: z.string(), lists: z.string().optional() }),
    output,
    handler: ({ address }) => ({ value: address }),
  }),
  endpoint({
    id: 'screen.pep',
    method: 'GET',
    path: '/screen/pep',
    tags: [],
    summary: 'PEP',
    access: 'metered',
    input: z.object({ name: z.string(), birth_date: z.string().optional(), limit: z.number().int().default(5) }),
    output,
    handler: ({ name }) => ({ value: name }),
  }),
  endpoint({
    id: 'delisted',
    method: 'GET',
    path: '/delisted',
    tags: [],
    summary: 'Delisted',
    access: 'public',
    input: z.object({ limit: z.number().int().default(100) }),
    output: z.array(output),
    handler: () => [],
  }),
];
const toolsById = new Map(
  buildTools(
    // buildTools insists on every capability; the others reuse a definition under their own ids.
    [
      'screen.email',
      'screen.website',
      'screen.id',
      'screen.country',
      'screen.name',
      'ip.vpnClient',
      'ip.geoClient',
      'search',
      'lists.all',
      'lists.entities',
      'stats',
    ]
      .map((id) => ({
        ...defs[0],
        id,
        input: id === 'lists.entities' ? defs[0].input.extend({ format: z.string() }) : defs[0].input,
      }))
      .concat(defs),
    KINDS,
  ).map((t) => [t.endpoint.id, t]),
);

function conn(headers: Record<string, string> = {}, defaultAuthorization?: string): McpConnection {
  return { baseUrl: 'http://api.test', clientIp: null, headers, defaultAuthorization, nextRequestId: () => 'r' };
}

describe('restUrl', () => {
  test('path parameters percent-encoded in the path, other given arguments as query in schema order', () => {
    assert.equal(
      restUrl('http://api.test/', toolsById.get('screen.crypto')!, { lists: 'ofac_sdn', address: 'a b/c' }),
      'http://api.test/api/v1/screen/crypto/a%20b%2Fc?lists=ofac_sdn',
    );
    assert.equal(
      restUrl('http://api.test', toolsById.get('screen.pep')!, { limit: 2, name: 'Jake Auchincloss' }),
      'http://api.test/api/v1/screen/pep?name=Jake+Auchincloss&limit=2',
    );
    assert.equal(restUrl('http://api.test', toolsById.get('delisted')!, {}), 'http://api.test/api/v1/delisted');
  });
});

describe('catalog', () => {
  test('a field the tool does not offer is left out of its input schema', () => {
    assert.deepEqual(Object.keys(toolsById.get('lists.entities')!.definition.inputSchema.properties ?? {}), [
      'address',
      'lists',
    ]);
    assert.deepEqual(toolsById.get('lists.entities')!.fields, ['address', 'lists']);
  });
});

describe('wrapping', () => {
  test('object answers are the structured content; array answers sit under "result"', () => {
    assert.equal(toolsById.get('screen.crypto')!.wrapped, false);
    assert.equal(toolsById.get('delisted')!.wrapped, true);
    const schema = toolsById.get('delisted')!.definition.outputSchema as unknown as {
      anyOf: { properties?: Record<string, unknown> }[];
    };
    assert.deepEqual(Object.keys(schema.anyOf[0].properties ?? {}), ['result']);
    assert.equal(schema.anyOf.length, 3, 'answer, 422 list, {detail}: a free tool has no challenge');
    assert.equal(
      (toolsById.get('screen.crypto')!.definition.outputSchema as unknown as { anyOf: unknown[] }).anyOf.length,
      4,
    );
  });
});

describe('pipelineHeaders', () => {
  const v2 = { x402Version: 2, accepted: {}, payload: {} };
  const v1 = { x402Version: 1, scheme: 'exact', network: 'base', payload: {} };
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');

  test('a _meta payment goes under the header of its generation, object or base64, and wins over the connection header', () => {
    assert.deepEqual(pipelineHeaders(conn(), { 'x402/payment': v2 }), { 'payment-signature': b64(v2) });
    assert.deepEqual(pipelineHeaders(conn(), { 'x402/payment': b64(v1) }), { 'x-payment': b64(v1) });
    assert.deepEqual(pipelineHeaders(conn({ 'x-payment': 'header-value' }), { 'x402/payment': v1 }), {
      'x-payment': b64(v1),
    });
    assert.deepEqual(pipelineHeaders(conn({ 'x-payment': 'a', 'payment-signature': 'b' }), {}), {
      'x-payment': 'a',
      'payment-signature': 'b',
    });
  });

  test('authorization: the connection header, else _meta (bare token or Bearer), else the default', () => {
    assert.deepEqual(pipelineHeaders(conn({ authorization: 'Bearer conn' }, 'Bearer env'), { authorization: 'meta' }), {
      authorization: 'Bearer conn',
    });
    assert.deepEqual(pipelineHeaders(conn({}, 'Bearer env'), { authorization: 'meta' }), {
      authorization: 'Bearer meta',
    });
    assert.deepEqual(pipelineHeaders(conn({}, 'Bearer env'), { authorization: 'bearer meta' }), {
      authorization: 'bearer meta',
    });
    assert.deepEqual(pipelineHeaders(conn({}, 'Bearer env'), { authorization: ' ' }), { authorization: 'Bearer env' });
    assert.deepEqual(pipelineHeaders(conn(), {}), {});
  });
});

describe('prefersEventStream', () => {
  test('JSON unless text/event-stream ranks first, by q then by order', () => {
    assert.equal(prefersEventStream('application/json, text/event-stream'), false);
    assert.equal(prefersEventStream('text/event-stream, application/json'), true);
    assert.equal(prefersEventStream('application/json;q=0.5, text/event-stream'), true);
    assert.equal(prefersEventStream('text/event-stream;q=0.1, application/json'), false);
    assert.equal(prefersEventStream(undefined), false);
  });
});
