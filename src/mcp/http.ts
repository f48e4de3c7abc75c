import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { RequestMeta } from '../core/endpoint.js';
import type { RouteHelpers } from '../server/app.js';
import { preflight, StreamWriter, writeHead, type ResponseState } from '../server/uws-io.js';
import type { McpConnection } from './call.js';
import { checkJsonDepth } from '../core/validation.js';
import { errorOutcome } from '../core/pipeline.js';
import type { McpServerFactory } from './server.js';

/**
 * `{base_url}/mcp`: MCP Streamable HTTP in stateless mode (the SDK's documented pattern: a fresh
 * server and transport per request, no sessions), bridged to uWS through one `Request` and one
 * `Response`. Answers are JSON unless the client prefers `text/event-stream` in its Accept header,
 * then the SSE stream is relayed chunk by chunk. GET and DELETE are 405: there is no session to
 * end and nothing is ever pushed outside a request.
 */
const MCP_PATH = '/mcp';

/** Tool arguments are small; this bounds what a request may make the server buffer. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Headers the transport itself reads; credentials stay with the connection, not the JSON-RPC layer. */
const TRANSPORT_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
] as const;

function quality(accept: string, type: string): { q: number; at: number } {
  const parts = accept.split(',');
  for (let i = 0; i < parts.length; i++) {
    const [media, ...params] = parts[i].split(';').map((s) => s.trim().toLowerCase());
    if (media !== type) continue;
    const q = params.find((p) => p.startsWith('q='));
    return { q: q ? Number(q.slice(2)) || 0 : 1, at: i };
  }
  return { q: 0, at: parts.length };
}

/** True when the client ranks `text/event-stream` above `application/json` (by q, then by order). */
export function prefersEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  const sse = quality(accept, 'text/event-stream');
  const json = quality(accept, 'application/json');
  return sse.q > json.q || (sse.q === json.q && sse.q > 0 && sse.at < json.at);
}

function writeWhole(
  res: HttpResponse,
  state: ResponseState,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  if (state.aborted || state.done) return;
  state.done = true;
  res.cork(() => {
    writeHead(res, status, headers);
    res.end(body);
  });
}

async function relay(res: HttpResponse, state: ResponseState, response: Response, requestId: string): Promise<void> {
  const headers: Record<string, string> = { 'X-Request-Id': requestId };
  response.headers.forEach((v, k) => {
    if (k !== 'content-length') headers[k] = v;
  });
  const streamed =
    response.body !== null && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (!streamed) {
    writeWhole(res, state, response.status, headers, await response.text());
    return;
  }
  const writer = new StreamWriter(res, state);
  await writer.start(response.status, headers);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (state.aborted) {
      await reader.cancel();
      return;
    }
    await writer.write(decoder.decode(value, { stream: true }));
  }
  writer.end();
}

function connectionOf(meta: RequestMeta): McpConnection {
  let calls = 0;
  return {
    baseUrl: new URL(meta.url).origin,
    clientIp: meta.clientIp,
    headers: meta.headers,
    nextRequestId: () => (calls++ === 0 ? meta.requestId : `${meta.requestId}.${calls}`),
  };
}

export function registerMcpRoute(app: TemplatedApp, helpers: RouteHelpers, factory: McpServerFactory): void {
  const route = `ANY ${MCP_PATH}`;
  app.any(MCP_PATH, (res, req) => {
    if (req.getMethod() === 'options') return preflight(res);
    const meta = helpers.readMeta(res, req, 'mcp');
    const { state, finish } = helpers.begin(res, route, meta.method);
    if (meta.method !== 'POST') {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed.' },
        id: null,
      });
      writeWhole(
        res,
        state,
        405,
        { Allow: 'POST', 'Content-Type': 'application/json', 'X-Request-Id': meta.requestId },
        body,
      );
      finish(405);
      return;
    }
    const body = helpers.readText(res, state, MAX_BODY_BYTES);
    const run = async (): Promise<number> => {
      let text: string;
      try {
        text = await body;
      } catch {
        const error = JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Request body too large' },
          id: null,
        });
        writeWhole(res, state, 413, { 'Content-Type': 'application/json', 'X-Request-Id': meta.requestId }, error);
        return 413;
      }
      try {
        checkJsonDepth(text);
      } catch (err) {
        const refused = errorOutcome(err, helpers.log, meta);
        writeWhole(
          res,
          state,
          refused.status,
          { 'Content-Type': 'application/json', 'X-Request-Id': meta.requestId },
          JSON.stringify(refused.body),
        );
        return refused.status;
      }
      const headers = new Headers();
      for (const h of TRANSPORT_HEADERS) {
        const v = meta.headers[h];
        if (v !== undefined) headers.set(h, v);
      }
      const request = new Request(`http://localhost${MCP_PATH}`, { method: 'POST', headers, body: text });
      const server = factory(connectionOf(meta));
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !prefersEventStream(meta.headers.accept),
      });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(request);
        await relay(res, state, response, meta.requestId);
        return response.status;
      } finally {
        await server.close();
      }
    };
    run().then(finish, (err: unknown) => {
      helpers.log.error({ reqId: meta.requestId, err }, 'mcp transport failure');
      writeWhole(
        res,
        state,
        500,
        { 'Content-Type': 'application/json', 'X-Request-Id': meta.requestId },
        '{"detail":"Internal Server Error"}',
      );
      finish(500);
    });
  });
}
