import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { AnyRouter } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { AnyEndpoint, RequestMeta } from '../core/endpoint.js';
import { execute, errorOutcome, type Outcome, type PipelineDeps } from '../core/pipeline.js';
import { checkJsonDepth, parseInput, parseJsonBody, type RawInput } from '../core/validation.js';
import { ClientIpResolver } from './client-ip.js';
import { UwsRequestMeta } from './request-meta.js';
import { registerDashboard } from './dashboard.js';
import {
  JSON_TYPE,
  preflight,
  readText,
  refuseUnread,
  ResponseState,
  sendBody,
  StreamWriter,
  writeBody,
  writeHead,
} from './uws-io.js';
import type { Metrics, RouteStats } from './metrics.js';
import type { TrpcContext } from '../api/trpc.js';

/**
 * The only listener: uWebSockets.js. Endpoint definitions become native routes (validate →
 * pipeline → answer, no Request objects on the hot path); /trpc goes through tRPC's fetch adapter;
 * plus the contract plumbing (OpenAPI, docs, health, readiness, metrics).
 */

const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** After the drain deadline closed their connections, how long the remaining handlers get to record what they did. */
const CLOSE_GRACE_MS = 2_000;

export interface RouteHelpers {
  /** Reads the request into a RequestMeta; call synchronously at the start of a handler. */
  readMeta(res: HttpResponse, req: HttpRequest, transport: RequestMeta['transport']): RequestMeta;
  /** Registers onAborted and in-flight accounting; returns the state and a `finish` to call once answered. */
  begin(res: HttpResponse, route: string, method: string): { state: ResponseState; finish: (status: number) => void };
  /** Sends an outcome; a streamed body resolves when the last chunk was written. */
  sendOutcome(
    res: HttpResponse,
    state: ResponseState,
    outcome: Omit<Outcome, 'caller'>,
    requestId: string,
    serialize?: (body: unknown) => string | Buffer,
  ): void | Promise<void>;
  readText(res: HttpResponse, state: ResponseState, limit?: number): Promise<string>;
  pipeline: PipelineDeps;
  log: Logger;
}

/** An answer under way: its abort state, and `finish` to call once it was sent. */
interface Begun {
  state: ResponseState;
  finish: (status: number) => void;
}

/** An outcome as a transport sends it (the caller is the pipeline's business). */
type Answer = Omit<Outcome, 'caller'>;

interface WholeBody {
  contentType: string;
  body: string | Buffer;
}

/** What an answer sends in one piece (JSON, or a raw string or Buffer); null for a streamed body. */
function wholeBody(answer: Answer, serialize?: (body: unknown) => string | Buffer): WholeBody | null {
  const raw = answer.raw;
  if (!raw)
    return {
      contentType: JSON_TYPE,
      body: answer.status === 200 && serialize ? serialize(answer.body) : JSON.stringify(answer.body),
    };
  return typeof raw.body === 'string' || Buffer.isBuffer(raw.body)
    ? { contentType: raw.contentType, body: raw.body }
    : null;
}

export interface HttpAppOptions {
  endpoints: readonly AnyEndpoint[];
  pipeline: PipelineDeps;
  log: Logger;
  metrics: Metrics;
  trustedProxies: readonly string[];
  trpcRouter: AnyRouter;
  openApiDocument: () => unknown;
  ready: () => boolean;
  /** Extra native routes (batch screening, MCP) registered before the fallbacks. */
  extraRoutes?: (app: TemplatedApp, helpers: RouteHelpers) => void;
}

export interface HttpServer {
  listen(host: string, port: number): Promise<number>;
  /**
   * Graceful stop: stops accepting connections; a request arriving afterwards on an open
   * connection is answered 503 with `Connection: close`; resolves once every request already
   * received was answered, or at `timeoutMs`, when the connections of the requests still running
   * are closed (their handlers then finish without an answer: nothing is charged or settled for
   * them, a streamed batch only for the lines it sent).
   */
  drain(timeoutMs: number): Promise<void>;
  inflight(): number;
}

function decodeParam(raw: string): string | null {
  // Without a percent sign there is nothing to decode (decodeURIComponent would return it as is).
  if (raw.indexOf('%') === -1) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

function parseQuery(q: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!q) return out;
  for (const [k, v] of new URLSearchParams(q)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

const STOPPING_BODY = '{"detail":"Service is shutting down"}';

/** The answer to a request that arrives once the server is stopping: try another node, on a new connection. */
function refuseStopping(res: HttpResponse, req: HttpRequest): void {
  const head = req.getMethod() === 'head';
  res.cork(() => {
    // A HEAD answer has no body: bytes after its head would be read as the next answer. (This
    // uWS's endWithoutBody takes no close flag; the header tells the client to close.)
    writeHead(
      res,
      503,
      head
        ? { 'Content-Type': 'application/json', 'Retry-After': '1', Connection: 'close' }
        : { 'Content-Type': 'application/json', 'Retry-After': '1' },
    );
    if (head) res.endWithoutBody();
    else res.end(STOPPING_BODY, true);
  });
}

type Handler = (res: HttpResponse, req: HttpRequest) => void;

/**
 * The app with every route behind the stop check: once `stopping()`, a route's handler is not
 * run and the request is refused (503, connection closed). One boolean per request.
 */
export function guarded(app: TemplatedApp, stopping: () => boolean): TemplatedApp {
  const wrap =
    (handler: Handler): Handler =>
    (res, req) =>
      stopping() ? refuseStopping(res, req) : handler(res, req);
  return new Proxy(app, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (
        prop === 'get' ||
        prop === 'post' ||
        prop === 'del' ||
        prop === 'put' ||
        prop === 'patch' ||
        prop === 'head' ||
        prop === 'options' ||
        prop === 'any'
      ) {
        return (pattern: string, handler: Handler) => {
          (value as (p: string, h: Handler) => TemplatedApp).call(target, pattern, wrap(handler));
          return receiver as TemplatedApp;
        };
      }
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}

export function createHttpApp(opts: HttpAppOptions): HttpServer {
  const uwsApp = uWS.App();
  let stopping = false;
  const app = guarded(uwsApp, () => stopping);
  const clientIps = new ClientIpResolver(opts.trustedProxies);
  const { log, metrics } = opts;
  let inflight = 0;
  let listenSocket: us_listen_socket | null = null;
  let drained: (() => void) | null = null;
  /** Answers that are not sent yet, to close at the drain deadline. */
  const running = new Map<ResponseState, HttpResponse>();

  const readMeta = (
    res: HttpResponse,
    req: HttpRequest,
    transport: RequestMeta['transport'],
    method = req.getMethod().toUpperCase(),
  ): RequestMeta => new UwsRequestMeta(res, req, transport, method, clientIps);

  const beginWith = (res: HttpResponse, stats: RouteStats, started = performance.now()): Begun => {
    const state = new ResponseState();
    inflight++;
    running.set(state, res);
    let finished = false;
    const finish = (status: number) => {
      if (finished) return;
      finished = true;
      inflight--;
      running.delete(state);
      stats.observe(status, (performance.now() - started) / 1000);
      if (inflight === 0 && drained) drained();
    };
    res.onAborted(() => {
      state.abort();
      finish(499);
    });
    return { state, finish };
  };
  const begin: RouteHelpers['begin'] = (res, route, method) => beginWith(res, metrics.route(route, method));

  const sendOutcome: RouteHelpers['sendOutcome'] = (res, state, outcome, requestId, serialize) => {
    const whole = wholeBody(outcome, serialize);
    if (whole) return sendBody(res, state, outcome.status, whole.contentType, whole.body, outcome.headers, requestId);
    const raw = outcome.raw!;
    return streamBody(
      res,
      state,
      outcome.status,
      raw.contentType,
      raw.body as AsyncIterable<string> | Iterable<string>,
      { ...outcome.headers, 'X-Request-Id': requestId },
    );
  };

  const streamBody = (
    res: HttpResponse,
    state: ResponseState,
    status: number,
    contentType: string,
    body: AsyncIterable<string> | Iterable<string>,
    headers: Record<string, string>,
  ): Promise<void> => {
    const writer = new StreamWriter(res, state);
    return (async () => {
      try {
        await writer.start(status, { ...headers, 'Content-Type': contentType });
        for await (const chunk of body) {
          if (state.aborted) return;
          await writer.write(chunk);
        }
        writer.end();
      } catch (err) {
        log.error({ err }, 'stream failed');
        if (!state.aborted) res.cork(() => res.close());
      }
    })();
  };

  const helpers: RouteHelpers = {
    readMeta,
    begin,
    sendOutcome,
    readText: (res, state, limit = MAX_BODY_BYTES) => readText(res, state, limit),
    pipeline: opts.pipeline,
    log,
  };

  const allowedMethods = new Map<string, Set<string>>();
  for (const ep of opts.endpoints) {
    if (ep.nativeRoute) continue;
    const pattern = `/api/v1${ep.path.replace(/\{(\w+)\}/g, ':$1')}`;
    const paramNames = [...ep.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const route = `${ep.method} /api/v1${ep.path}`;
    if (!allowedMethods.has(pattern)) allowedMethods.set(pattern, new Set());
    allowedMethods.get(pattern)!.add(ep.method);
    const stats = metrics.route(route, ep.method);
    const hasBody = ep.method !== 'GET' && ep.method !== 'DELETE';
    const logged = (meta: RequestMeta, status: number, ip: string | undefined) => {
      if (status >= 500) log.error({ reqId: meta.requestId, route, status }, 'request failed');
      else if (ip !== undefined) log.debug({ reqId: meta.requestId, route, status, ip }, 'request');
    };
    const answerLater = (res: HttpResponse, begun: Begun, result: Answer | Promise<Answer>, meta: RequestMeta) => {
      meta.gone = () => begun.state.aborted;
      void Promise.resolve(result)
        .catch((err: unknown) => errorOutcome(err, log, meta))
        .then(async (outcome) => {
          const ip = log.isLevelEnabled('debug') && !begun.state.aborted ? meta.clientIp : undefined;
          await sendOutcome(res, begun.state, outcome, meta.requestId, ep.serialize);
          begun.finish(outcome.status);
          logged(meta, outcome.status, ip);
        })
        .catch((err: unknown) => {
          // Sending failed (an answer that cannot be serialized): a logged 500, never a crash.
          const failed = errorOutcome(err, log, meta);
          void Promise.resolve(sendOutcome(res, begun.state, failed, meta.requestId)).catch((e: unknown) =>
            log.error({ err: e, reqId: meta.requestId }, 'error answer not sent'),
          );
          begun.finish(failed.status);
        });
    };
    const handler = (res: HttpResponse, req: HttpRequest) => {
      const started = performance.now();
      const meta = readMeta(res, req, 'rest', ep.method);
      const path: Record<string, string> = {};
      let badParam: string | null = null;
      for (let i = 0; i < paramNames.length; i++) {
        const decoded = decodeParam(req.getParameter(i));
        if (decoded === null) badParam = paramNames[i];
        else path[paramNames[i]] = decoded;
      }
      const raw: RawInput = { path, query: parseQuery(req.getQuery()) };
      let result: Answer | Promise<Answer>;
      if (badParam) {
        result = {
          status: 422,
          headers: {},
          body: {
            detail: [
              {
                type: 'value_error',
                loc: ['path', badParam],
                msg: 'Value error, malformed percent-encoding',
                input: null,
                ctx: { error: 'malformed percent-encoding' },
              },
            ],
          },
        };
      } else if (hasBody) {
        const begun = beginWith(res, stats, started);
        const pending = readText(res, begun.state, MAX_BODY_BYTES).then((text) => {
          raw.body = parseJsonBody(text);
          return execute(ep, parseInput(ep.input, raw), meta, opts.pipeline);
        });
        answerLater(res, begun, pending, meta);
        return;
      } else {
        try {
          result = execute(ep, parseInput(ep.input, raw), meta, opts.pipeline);
        } catch (err) {
          result = errorOutcome(err, log, meta);
        }
      }
      if (result instanceof Promise) {
        answerLater(res, beginWith(res, stats, started), result, meta);
        return;
      }
      let answer = result;
      let whole: WholeBody | null;
      try {
        whole = wholeBody(answer, ep.serialize);
      } catch (err) {
        answer = errorOutcome(err, log, meta);
        whole = wholeBody(answer);
      }
      if (!whole) {
        answerLater(res, beginWith(res, stats, started), answer, meta);
        return;
      }
      // Answered within uWS's request callback: the client cannot have gone away yet, the socket
      // is corked for us (one send per answer), and nothing is waited for.
      const ip = log.isLevelEnabled('debug') ? meta.clientIp : undefined;
      writeBody(res, answer.status, whole.contentType, whole.body, answer.headers, meta.requestId);
      stats.observe(answer.status, (performance.now() - started) / 1000);
      logged(meta, answer.status, ip);
    };
    if (ep.method === 'GET') app.get(pattern, handler);
    else if (ep.method === 'POST') app.post(pattern, handler);
    else app.del(pattern, handler);
  }

  app.get('/healthz', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end('{"status":"ok"}'));
  });
  app.get('/readyz', (res) => {
    const ok = opts.ready();
    res.cork(() =>
      res
        .writeStatus(ok ? '200 OK' : '503 Service Unavailable')
        .writeHeader('Content-Type', 'application/json')
        .end(JSON.stringify(ok ? { status: 'ready' } : { detail: 'lists are still loading' })),
    );
  });
  app.get('/metrics', (res) => {
    const state = new ResponseState();
    res.onAborted(() => (state.aborted = true));
    void metrics.registry.metrics().then((text) => sendBody(res, state, 200, metrics.registry.contentType, text, {}));
  });
  let openApiText: string | null = null;
  app.get('/api/v1/openapi.json', (res) => {
    openApiText ??= JSON.stringify(opts.openApiDocument());
    res.cork(() => {
      writeHead(res, 200, { 'Content-Type': 'application/json' });
      res.end(openApiText!);
    });
  });
  registerDocs(app);
  registerDashboard(app, { log });

  app.any('/trpc/*', (res, req) => {
    const meta = readMeta(res, req, 'trpc');
    const { state, finish } = begin(res, 'ANY /trpc', meta.method);
    const path = req.getUrl();
    const method = meta.method;
    const run = async () => {
      const body = method === 'GET' || method === 'HEAD' ? undefined : await readText(res, state, MAX_BODY_BYTES);
      if (body !== undefined) checkJsonDepth(body);
      const headers = new Headers();
      for (const [k, v] of Object.entries(meta.headers)) if (v !== undefined) headers.set(k, v);
      const request = new Request(meta.url.replace(/^[^/]*\/\/[^/]*/, 'http://localhost'), { method, headers, body });
      const response = await fetchRequestHandler({
        endpoint: '/trpc',
        req: request,
        router: opts.trpcRouter,
        createContext: ({ resHeaders }): TrpcContext => ({ meta, resHeaders }),
        onError: ({ error }) => {
          if (error.code === 'INTERNAL_SERVER_ERROR')
            log.error({ reqId: meta.requestId, path, err: error.cause ?? error }, 'trpc error');
        },
      });
      const text = await response.text();
      const out: Record<string, string> = { 'X-Request-Id': meta.requestId };
      response.headers.forEach((v, k) => {
        if (k !== 'content-type' && k !== 'content-length') out[k] = v;
      });
      sendBody(res, state, response.status, response.headers.get('content-type') ?? 'application/json', text, out);
      finish(response.status);
    };
    void run().catch((err: unknown) => {
      const outcome = errorOutcome(err, log, meta);
      void sendOutcome(res, state, outcome, meta.requestId);
      finish(outcome.status);
    });
  });

  app.options('/*', preflight);

  opts.extraRoutes?.(app, helpers);

  for (const [pattern, methods] of allowedMethods) {
    const allow = [...methods].join(', ');
    app.any(pattern, (res, req) => {
      if (req.getMethod() === 'options') return preflight(res);
      refuseUnread(res, req, 405, '{"detail":"Method Not Allowed"}', { Allow: allow });
    });
  }
  app.any('/*', (res, req) => refuseUnread(res, req, 404, '{"detail":"Not Found"}'));

  /** Resolves true once no request is running, false after `ms`. */
  const settled = (ms: number): Promise<boolean> =>
    inflight === 0
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const timer = setTimeout(() => {
            drained = null;
            resolve(false);
          }, ms);
          drained = () => {
            clearTimeout(timer);
            drained = null;
            resolve(true);
          };
        });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`));
          listenSocket = socket;
          resolve(uWS.us_socket_local_port(socket as never));
        });
      });
    },
    async drain(timeoutMs) {
      stopping = true;
      if (listenSocket) {
        uWS.us_listen_socket_close(listenSocket);
        listenSocket = null;
      }
      if (await settled(timeoutMs)) return;
      log.warn(
        { running: inflight, timeoutMs },
        'shutdown deadline reached: closing the connections of the requests still running',
      );
      for (const [state, res] of [...running]) {
        if (state.aborted) continue;
        state.abort();
        res.cork(() => res.close());
      }
      // Their handlers see the closed connection and finish (a batch records what it sent).
      await settled(CLOSE_GRACE_MS);
    },
    inflight: () => inflight,
  };
}

/** The API reference page, served from the swagger-ui-dist package (no CDN). */
function registerDocs(app: TemplatedApp): void {
  const require = createRequire(import.meta.url);
  const dist = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
  const assets: Record<string, [string, string]> = {
    'swagger-ui.css': ['text/css', 'swagger-ui.css'],
    'swagger-ui-bundle.js': ['application/javascript', 'swagger-ui-bundle.js'],
    'swagger-ui-standalone-preset.js': ['application/javascript', 'swagger-ui-standalone-preset.js'],
    'favicon-32x32.png': ['image/png', 'favicon-32x32.png'],
  };
  const cache = new Map<string, Buffer>();
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Screening API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"><link rel="icon" href="/docs/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script></body></html>`;
  const init = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;
  const html = (res: HttpResponse) => {
    res.cork(() => res.writeHeader('Content-Type', 'text/html; charset=utf-8').end(page));
  };
  app.get('/docs', html);
  app.get('/docs/', html);
  app.get('/docs/init.js', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/javascript').end(init));
  });
  app.get('/favicon.ico', (res) => {
    const data = (cache.get('favicon') ??
      cache.set('favicon', readFileSync(join(dist, 'favicon-32x32.png'))).get('favicon'))!;
    res.cork(() =>
      res.writeHeader('Content-Type', 'image/png').writeHeader('Cache-Control', 'public, max-age=86400').end(data),
    );
  });
  app.get('/docs/:asset', (res, req) => {
    const name = req.getParameter(0);
    const asset = assets[name];
    if (!asset) {
      res.cork(() =>
        res.writeStatus('404 Not Found').writeHeader('Content-Type', 'application/json').end('{"detail":"Not Found"}'),
      );
      return;
    }
    let body = cache.get(name);
    if (!body) {
      body = readFileSync(join(dist, asset[1]));
      cache.set(name, body);
    }
    const data = body;
    res.cork(() =>
      res.writeHeader('Content-Type', asset[0]).writeHeader('Cache-Control', 'public, max-age=86400').end(data),
    );
  });
}
