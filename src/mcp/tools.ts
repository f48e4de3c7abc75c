import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import { endpointIdOf, type ScreeningKinds } from '../core/kinds.js';
import { ErrorDetail, HTTPValidationError, PaymentRequired } from '../api/schemas/errors.js';

/**
 * The model-tool catalog: one tool per capability, each built from the endpoint definition that
 * also makes the REST route, the tRPC procedure and the OpenAPI operation (one schema, reused).
 */
export interface ToolSpec {
  name: string;
  /** Id of the endpoint definition the tool runs. */
  endpoint: string;
  /** Input fields the tool does not offer: a tool result is JSON, so `list_entities` has no `format`. */
  omit?: readonly string[];
  /** The field that, when omitted, makes the endpoint evaluate the caller's IP address. */
  clientIpField?: string;
}

/** The tools beyond one per kind of the table. */
const OTHER_TOOLS: readonly ToolSpec[] = [
  { name: 'screen_name', endpoint: 'screen.name' },
  { name: 'screen_pep', endpoint: 'screen.pep' },
  { name: 'vpn_check', endpoint: 'ip.vpnClient', clientIpField: 'ip_address' },
  { name: 'ip_geolocation', endpoint: 'ip.geoClient', clientIpField: 'ip_address' },
  { name: 'search', endpoint: 'search' },
  { name: 'list_sources', endpoint: 'lists.all' },
  { name: 'list_entities', endpoint: 'lists.entities', omit: ['format'] },
  { name: 'stats', endpoint: 'stats' },
  { name: 'delisted', endpoint: 'delisted' },
];

/** The catalog: a screening tool per kind of the table (its `tool` name), then the others. */
export function toolSpecs(kinds: ScreeningKinds): ToolSpec[] {
  return [...kinds.all.map((kind) => ({ name: kind.tool, endpoint: endpointIdOf(kind) })), ...OTHER_TOOLS];
}

/** Key under which an answer that is not a JSON object (a list) sits in `structuredContent`, which MCP requires to be an object. */
export const WRAP_KEY = 'result';

export interface McpTool {
  name: string;
  endpoint: AnyEndpoint;
  /** Argument names the tool accepts, in the schema's order. */
  fields: readonly string[];
  /** The REST answer is not an object: `structuredContent` is `{ result: <answer> }`. */
  wrapped: boolean;
  clientIpField: string | undefined;
  definition: Tool;
}

type JsonObject = Record<string, unknown>;

/**
 * JSON Schema (draft-07, which the MCP SDK client's validator speaks) of a zod schema; named
 * components come out as `definitions` of the root.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-7',
    unrepresentable: 'any',
  }) as JsonObject;
  return rest;
}

/**
 * The output schema admits the endpoint's answer and the three error bodies an error result
 * carries (x402 challenge, 422 validation list, `{detail}`): SDK 1.x clients validate an error
 * result's `structuredContent` against the output schema too, and would otherwise throw instead
 * of handing the challenge over.
 */
function outputSchema(endpoint: AnyEndpoint, wrapped: boolean): Tool['outputSchema'] {
  const answer = wrapped ? z.object({ [WRAP_KEY]: endpoint.output }).strict() : endpoint.output;
  const alternatives = [
    answer,
    ...(endpoint.access === 'public' ? [] : [PaymentRequired]),
    HTTPValidationError,
    ErrorDetail,
  ];
  return {
    type: 'object',
    ...jsonSchema(z.union(alternatives as [z.ZodType, z.ZodType, ...z.ZodType[]]), 'output'),
  } as Tool['outputSchema'];
}

function describe(endpoint: AnyEndpoint): string {
  const parts = [endpoint.summary + '.'];
  if (endpoint.description) parts.push(endpoint.description);
  parts.push(
    endpoint.access === 'metered'
      ? 'Metered: one credit of an API token (Authorization: Bearer), or an x402 payment of the price in the challenge. Without either the result is an error whose structured content is the x402 challenge.'
      : 'Free: no credentials needed.',
  );
  return parts.join('\n\n');
}

export function buildTools(endpoints: readonly AnyEndpoint[], kinds: ScreeningKinds): McpTool[] {
  const byId = new Map(endpoints.map((e) => [e.id, e]));
  return toolSpecs(kinds).map((spec) => {
    const endpoint = byId.get(spec.endpoint);
    if (!endpoint) throw new Error(`MCP tool ${spec.name}: no endpoint ${spec.endpoint}`);
    const omitted = new Set(spec.omit ?? []);
    const input =
      omitted.size === 0
        ? endpoint.input
        : endpoint.input.omit(Object.fromEntries([...omitted].map((k) => [k, true])) as never);
    const wrapped = (endpoint.output as z.ZodType)._zod.def.type !== 'object';
    const title = endpoint.summary;
    return {
      name: spec.name,
      endpoint,
      fields: Object.keys(input.shape),
      wrapped,
      clientIpField: spec.clientIpField,
      definition: {
        name: spec.name,
        title,
        description: describe(endpoint),
        inputSchema: { type: 'object', ...jsonSchema(input, 'input') } as Tool['inputSchema'],
        outputSchema: outputSchema(endpoint, wrapped),
        annotations: { title, readOnlyHint: true, openWorldHint: false },
      },
    };
  });
}
