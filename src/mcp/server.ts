import type { Logger } from 'pino';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import type { ScreeningKinds } from '../core/kinds.js';
import type { PipelineDeps } from '../core/pipeline.js';
import { callTool, type McpConnection } from './call.js';
import { buildTools } from './tools.js';

export interface McpServerOptions {
  endpoints: readonly AnyEndpoint[];
  /** The kinds the endpoints screen: one tool each. */
  kinds: ScreeningKinds;
  pipeline: PipelineDeps;
  log: Logger;
}

/** Makes the MCP server of one connection (stdio) or one HTTP request (stateless Streamable HTTP). */
export type McpServerFactory = (connection: McpConnection) => Server;

const SERVER_INFO = { name: 'sanctions-screening', version: '2.0.0' } as const;

const INSTRUCTIONS =
  'Sanctions and risk screening. Screening, PEP, VPN and geolocation tools are metered: send an API token ' +
  '(HTTP Authorization: Bearer, or _meta["authorization"] over stdio) or pay per call with x402. An unpaid call ' +
  'returns an error result whose structuredContent is the x402 challenge (v2 form in _meta["x402/payment-required"]); ' +
  'repeat the identical call with the signed payment in _meta["x402/payment"] (or the X-PAYMENT header over HTTP). ' +
  'The receipt comes back in the result _meta["x402/payment-response"]. search, list_sources, list_entities, stats ' +
  'and delisted are free.';

/**
 * The tools are built once from the endpoint definitions; each connection gets a light `Server`
 * (two request handlers over the shared catalog), which is what stateless HTTP needs per request.
 * The SDK's low-level `Server` is used rather than `McpServer` so that arguments are validated by
 * the same code as REST (FastAPI-shaped 422 details), not by the SDK.
 */
export function createMcpServer(opts: McpServerOptions): McpServerFactory {
  const tools = buildTools(opts.endpoints, opts.kinds);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed = { tools: tools.map((t) => t.definition) };
  const log = opts.log.child({ component: 'mcp' });
  // A Server builds its own Ajv instance unless given one, most of a stateless request's time.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  return (connection) => {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => listed);
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      return callTool(tool, request.params.arguments, request.params._meta, connection, {
        pipeline: opts.pipeline,
        log,
      });
    });
    return server;
  };
}
