import type { Logger } from 'pino';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { RequestMeta } from '../core/endpoint.js';
import { errorOutcome, execute, type Outcome, type PipelineDeps } from '../core/pipeline.js';
import { checkBodyRules, parseInput } from '../core/validation.js';
import { ValidationFailed } from '../core/errors.js';
import {
  paymentHeaderFromMcpMeta,
  PAYMENT_REQUIRED_HEADER,
  V1_PAYMENT_HEADER,
  V2_PAYMENT_HEADER,
  V1_RECEIPT_HEADER,
  V2_RECEIPT_HEADER,
} from '../billing/x402/index.js';
import { WRAP_KEY, type McpTool } from './tools.js';

/** `_meta` keys of the model-tool payment flow (x402's MCP transport, SPEC "Model-tool endpoint payments"). */
const META_PAYMENT = 'x402/payment';
const META_PAYMENT_RESPONSE = 'x402/payment-response';
const META_PAYMENT_REQUIRED = 'x402/payment-required';
/** A bearer token per request, for transports without headers (stdio). */
const META_AUTHORIZATION = 'authorization';

/** What a tool call knows of the connection it arrived on. */
export interface McpConnection {
  /** Origin of the REST API (`http://host:port`): x402 resources are the REST URLs of the same requests. */
  baseUrl: string;
  /** The peer's address; null over stdio, where there is no network peer. */
  clientIp: string | null;
  /** Lower-case headers of the HTTP request carrying the call (`authorization`, `x-payment`, `payment-signature`); empty over stdio. */
  headers: Record<string, string | undefined>;
  /** Authorization used when neither the connection nor the request's `_meta` carries one (stdio: `SCREENING_API_TOKEN`). */
  defaultAuthorization?: string;
  /** A request id for each call (the HTTP request's id for the first call it carries). */
  nextRequestId: () => string;
}

export interface CallDeps {
  pipeline: PipelineDeps;
  log: Logger;
}

/** Rate limiting and logs need an address: a stdio agent is a local process. */
const STDIO_CLIENT_IP = '127.0.0.1';

function asRecord(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** `Bearer <token>` from `_meta.authorization` or the environment, which may give the bare token. */
export function bearerHeader(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const v = value.trim();
  return /^bearer\s/i.test(v) ? v : `Bearer ${v}`;
}

/** The x402 generation of a payment given in `_meta`, to file it under its own header name. */
function paymentVersion(value: unknown, header: string): number | undefined {
  if (typeof value === 'object' && value !== null) return asRecord(value).x402Version as number | undefined;
  try {
    return asRecord(JSON.parse(Buffer.from(header, 'base64').toString('utf8'))).x402Version as number | undefined;
  } catch {
    return undefined;
  }
}

/**
 * The headers the pipeline reads. A payment in the request's `_meta` is specific to this call and
 * wins over the connection's payment header; the connection's Authorization wins over `_meta`'s.
 */
export function pipelineHeaders(
  conn: McpConnection,
  meta: Record<string, unknown>,
): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  const authorization =
    conn.headers.authorization ?? bearerHeader(meta[META_AUTHORIZATION]) ?? conn.defaultAuthorization;
  if (authorization !== undefined) headers.authorization = authorization;
  const given = meta[META_PAYMENT];
  const fromMeta = paymentHeaderFromMcpMeta(given);
  if (fromMeta !== undefined) {
    headers[paymentVersion(given, fromMeta) === 2 ? V2_PAYMENT_HEADER : V1_PAYMENT_HEADER] = fromMeta;
  } else {
    if (conn.headers[V1_PAYMENT_HEADER] !== undefined) headers[V1_PAYMENT_HEADER] = conn.headers[V1_PAYMENT_HEADER];
    if (conn.headers[V2_PAYMENT_HEADER] !== undefined) headers[V2_PAYMENT_HEADER] = conn.headers[V2_PAYMENT_HEADER];
  }
  return headers;
}

/**
 * The REST URL of the same request (path parameters in the path, the other given arguments as
 * query parameters in the schema's order), so a tool's x402 challenge names the same resource as
 * the REST 402 and a payment signed for it verifies.
 */
export function restUrl(baseUrl: string, tool: McpTool, args: Record<string, unknown>): string {
  const inPath = new Set<string>();
  const path = tool.endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    inPath.add(name);
    return encodeURIComponent(String(args[name] ?? ''));
  });
  const query = new URLSearchParams();
  for (const field of tool.fields) {
    const v = args[field];
    if (inPath.has(field) || v === undefined || v === null) continue;
    query.append(field, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const qs = query.toString();
  return `${baseUrl.replace(/\/+$/, '')}/api/v1${path}${qs ? `?${qs}` : ''}`;
}

function decodeHeader<T>(value: string | undefined, decode: (v: string) => T): T | undefined {
  if (value === undefined) return undefined;
  try {
    return decode(value);
  } catch {
    return undefined;
  }
}

/** An error result: the documented error body; an unexpected failure says only that, with the request id to quote (the log has the rest). */
function errorResult(outcome: Omit<Outcome, 'caller'>, requestId: string): CallToolResult {
  const body = outcome.status >= 500 ? { ...asRecord(outcome.body), request_id: requestId } : asRecord(outcome.body);
  const result: CallToolResult = {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
  };
  const v2 = decodeHeader(outcome.headers[PAYMENT_REQUIRED_HEADER], decodePaymentRequiredHeader);
  if (v2 !== undefined) result._meta = { [META_PAYMENT_REQUIRED]: v2 };
  return result;
}

function successResult(tool: McpTool, outcome: Outcome): CallToolResult {
  const receiptHeader = outcome.headers[V2_RECEIPT_HEADER] ?? outcome.headers[V1_RECEIPT_HEADER];
  const receipt = decodeHeader(receiptHeader, decodePaymentResponseHeader);
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(outcome.body) }],
    structuredContent: tool.wrapped ? { [WRAP_KEY]: outcome.body } : asRecord(outcome.body),
  };
  const meta: Record<string, unknown> = {};
  if (receipt !== undefined) meta[META_PAYMENT_RESPONSE] = receipt;
  // What a screening was computed against, which REST states in headers.
  if (outcome.headers['X-List-Versions'] !== undefined) meta[META_LIST_VERSIONS] = outcome.headers['X-List-Versions'];
  if (outcome.headers['X-As-Of'] !== undefined) meta[META_AS_OF] = outcome.headers['X-As-Of'];
  if (Object.keys(meta).length > 0) result._meta = meta;
  return result;
}

/** `_meta` keys of a screening tool's result: the X-List-Versions and X-As-Of headers of REST. */
const META_LIST_VERSIONS = 'screening/list-versions';
const META_AS_OF = 'screening/as-of';

/**
 * One tool call through the same pipeline as REST: validate the arguments (422 before anything is
 * charged), then gate → handler → audit/usage → settlement. Every failure is an error result.
 */
export async function callTool(
  tool: McpTool,
  rawArgs: unknown,
  rawMeta: unknown,
  conn: McpConnection,
  deps: CallDeps,
): Promise<CallToolResult> {
  const given = asRecord(rawArgs);
  // Arguments the tool does not offer are dropped, so a `format` cannot turn a result into CSV.
  const args = Object.fromEntries(Object.entries(given).filter(([k]) => tool.fields.includes(k)));
  const meta: RequestMeta = {
    requestId: conn.nextRequestId(),
    transport: 'mcp',
    method: tool.endpoint.method,
    url: restUrl(conn.baseUrl, tool, args),
    clientIp: conn.clientIp ?? STDIO_CLIENT_IP,
    headers: pipelineHeaders(conn, asRecord(rawMeta)),
  };
  let outcome: Omit<Outcome, 'caller'>;
  try {
    if (tool.clientIpField && conn.clientIp === null && args[tool.clientIpField] === undefined) {
      // Over stdio there is no caller address to fall back on.
      throw new ValidationFailed([
        { type: 'missing', loc: ['body', tool.clientIpField], msg: 'Field required', input: null },
      ]);
    }
    checkBodyRules(args);
    const input = parseInput(tool.endpoint.input, { path: {}, query: {}, body: args });
    const done = await execute(tool.endpoint, input, meta, deps.pipeline);
    if (done.raw) throw new Error(`tool ${tool.name} produced a non-JSON answer`);
    deps.log.debug({ reqId: meta.requestId, tool: tool.name, status: 200 }, 'mcp tool call');
    return successResult(tool, done);
  } catch (err) {
    outcome = errorOutcome(err, deps.log, meta);
  }
  deps.log.debug({ reqId: meta.requestId, tool: tool.name, status: outcome.status }, 'mcp tool call');
  return errorResult(outcome, meta.requestId);
}
