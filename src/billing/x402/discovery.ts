import { z } from 'zod';
import { declareDiscoveryExtension, type DiscoveryExtension } from '@x402/extensions/bazaar';
import type { AnyEndpoint } from '../../core/endpoint.js';

/**
 * Discovery metadata of a metered endpoint, generated from its zod input schema and its output
 * example: the v2 `bazaar` extension (`{info, schema, routeTemplate}`) and v1's `outputSchema`.
 * It is static per endpoint: the request's own parameter values are never copied in, because the
 * block travels to remote facilitators (which catalog it) and screened values are customer data.
 */
export interface Discovery {
  /** `extensions` of the v2 challenge: `{ bazaar: {info, schema, routeTemplate} }`. */
  extensions: Record<string, DiscoveryExtension>;
  /** v1 `accepts[].outputSchema`: the same input description and output example in v1's shape. */
  v1OutputSchema: Record<string, unknown>;
}

/** Every REST path of the interface is under this prefix (SPEC "Endpoints"). */
const API_PREFIX = '/api/v1';

const cache = new WeakMap<AnyEndpoint, Discovery>();

export function discoveryOf(endpoint: AnyEndpoint): Discovery {
  let d = cache.get(endpoint);
  if (!d) {
    d = buildDiscovery(endpoint);
    cache.set(endpoint, d);
  }
  return d;
}

type JsonSchema = Record<string, unknown> & {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
};

function buildDiscovery(endpoint: AnyEndpoint): Discovery {
  const input = toSchema(endpoint.input) ?? {};
  const pathNames = [...endpoint.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  // Path parameters aside, a GET's input is its query and a POST's is its JSON body.
  const { inPath, rest } = splitParams(input, pathNames);
  const hasBody = endpoint.method === 'POST';
  const common = {
    input: exampleValues(rest),
    inputSchema: rest,
    ...(pathNames.length > 0 ? { pathParams: exampleValues(inPath), pathParamsSchema: inPath } : {}),
    // The output is described by its example only: v2 clients echo this whole block inside the
    // PAYMENT-SIGNATURE header, and the output's JSON schema would double its size (past the 4 KB
    // of headers that uWS accepts when a request arrives in several TCP segments).
    ...(endpoint.example === undefined ? {} : { output: { example: endpoint.example as unknown } }),
  };
  const bazaar = declareDiscoveryExtension(hasBody ? { ...common, bodyType: 'json' } : common).bazaar;
  // What bazaarResourceServerExtension adds at request time in x402's own server, done once here:
  // the concrete method, and the route template in the colon style catalogs group by.
  const extension = {
    ...bazaar,
    info: { ...bazaar.info, input: { ...bazaar.info.input, method: endpoint.method } },
    ...(pathNames.length > 0 ? { routeTemplate: API_PREFIX + endpoint.path.replace(/\{([^}]+)\}/g, ':$1') } : {}),
  } as DiscoveryExtension;

  const v1Input: Record<string, unknown> = { type: 'http', method: endpoint.method, discoverable: true };
  const fields = rest.properties && Object.keys(rest.properties).length > 0 ? rest.properties : undefined;
  if (fields && hasBody) Object.assign(v1Input, { bodyType: 'json', bodyFields: fields });
  else if (fields) v1Input.queryParams = fields;
  if (inPath.properties && Object.keys(inPath.properties).length > 0) v1Input.pathParams = inPath.properties;
  return {
    extensions: { bazaar: extension },
    v1OutputSchema: { input: v1Input, ...(endpoint.example === undefined ? {} : { output: endpoint.example }) },
  };
}

function toSchema(schema: z.ZodType): JsonSchema | undefined {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return undefined;
  }
  // Named schemas (`.meta({id})`) come out as `$ref`s into the root's `$defs`, which would dangle
  // once this schema is embedded in the discovery block's own.
  const defs = (json.$defs ?? {}) as Record<string, unknown>;
  const { $schema: _s, $defs: _d, ...rest } = json;
  return inline(rest, defs, 0) as JsonSchema;
}

function inline(node: unknown, defs: Record<string, unknown>, depth: number): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(n, defs, depth));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const name = typeof $ref === 'string' && $ref.startsWith('#/$defs/') ? $ref.slice('#/$defs/'.length) : undefined;
  // A recursive schema cannot be inlined; past a few levels it is left open.
  if (name !== undefined && depth >= 8) return {};
  const target = name !== undefined ? { ...(defs[name] as Record<string, unknown>), ...rest } : rest;
  return Object.fromEntries(
    Object.entries(target).map(([k, v]) => [k, inline(v, defs, name !== undefined ? depth + 1 : depth)]),
  );
}

function splitParams(input: JsonSchema, pathNames: string[]): { inPath: JsonSchema; rest: JsonSchema } {
  const props = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const pick = (names: string[]): JsonSchema => {
    const properties = Object.fromEntries(names.map((n) => [n, props[n] ?? { type: 'string' }]));
    const req = names.filter((n) => required.has(n) || pathNames.includes(n));
    return { properties, ...(req.length > 0 ? { required: req } : {}) };
  };
  return {
    inPath: pick(pathNames),
    rest: pick(Object.keys(props).filter((n) => !pathNames.includes(n))),
  };
}

/**
 * Example values an agent can start from: a schema default, example or first enum value; a
 * required parameter without one gets a value of its type (a string the path-template form
 * `{name}`), so that the example still matches the schema.
 */
function exampleValues(schema: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const examples = prop.examples;
    const enumValues = prop.enum;
    if (prop.default !== undefined) out[name] = prop.default;
    else if (Array.isArray(examples) && examples.length > 0) out[name] = examples[0];
    else if (Array.isArray(enumValues) && enumValues.length > 0) out[name] = enumValues[0];
    else if (required.has(name)) out[name] = typedExample(name, prop);
  }
  return out;
}

function typedExample(name: string, prop: Record<string, unknown>): unknown {
  switch (prop.type) {
    case 'array': {
      const items =
        prop.items !== null && typeof prop.items === 'object' ? (prop.items as Record<string, unknown>) : {};
      const n = typeof prop.minItems === 'number' ? prop.minItems : 0;
      return Array.from({ length: n }, () => typedExample(name, items));
    }
    case 'object':
      return {};
    case 'integer':
    case 'number':
      return typeof prop.minimum === 'number' ? prop.minimum : 0;
    case 'boolean':
      return false;
    default:
      return `{${name}}`;
  }
}
