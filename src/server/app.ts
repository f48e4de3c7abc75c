import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { AnyRouter } from '@trpc/server';
import type { AnyEndpoint, RequestMeta } from '../core/endpoint.js';
import type { Outcome, PipelineDeps } from '../core/pipeline.js';
import { ClientIpResolver } from './client-ip.js';
import { UwsRequestMeta } from './request-meta.js';
import { registerDashboard } from './dashboard.js';
import { registerDocs } from './docs.js';
import { registerFallbacks, registerOpenApi, registerProbes } from './fixed-routes.js';
import { sendAnswer } from './answer.js';
import { MAX_BODY_BYTES } from './body-limit.js';
import { InflightRequests } from './inflight.js';
import { registerRestRoutes } from './rest-route.js';
import { guarded } from './stop-guard.js';
import { registerTrpcRoute } from './trpc-route.js';
import { preflight, readText, type ResponseState } from './uws-io.js';
import type { Metrics } from './metrics.js';

/**
 * The only listener: uWebSockets.js. Endpoint definitions become native routes (rest-route.ts);
 * /trpc goes through tRPC's fetch adapter; plus the contract plumbing (OpenAPI, docs, health,
 * readiness, metrics). This module wires them and owns the listener's life.
 */

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

/** Registers every route, in the order uWS needs (fallbacks last), behind the stop guard. */
export function createHttpApp(opts: HttpAppOptions): HttpServer {
  let stopping = false;
  const app = guarded(uWS.App(), () => stopping);
  const clientIps = new ClientIpResolver(opts.trustedProxies);
  const { log, metrics } = opts;
  const inflight = new InflightRequests();
  let listenSocket: us_listen_socket | null = null;

  const readMeta = (
    res: HttpResponse,
    req: HttpRequest,
    transport: RequestMeta['transport'],
    method = req.getMethod().toUpperCase(),
  ): RequestMeta => new UwsRequestMeta(res, req, transport, method, clientIps);

  const allowedMethods = registerRestRoutes(app, opts.endpoints, {
    pipeline: opts.pipeline,
    log,
    metrics,
    inflight,
    readMeta,
  });
  registerProbes(app, opts.ready, metrics);
  registerOpenApi(app, opts.openApiDocument);
  registerDocs(app);
  registerDashboard(app, { log });
  registerTrpcRoute(app, { router: opts.trpcRouter, log, metrics, inflight, readMeta });
  app.options('/*', preflight);
  opts.extraRoutes?.(app, {
    readMeta,
    begin: (res, route, method) => inflight.begin(res, metrics.route(route, method)),
    sendOutcome: (res, state, outcome, requestId, serialize) =>
      sendAnswer(res, state, outcome, requestId, log, serialize),
    readText: (res, state, limit = MAX_BODY_BYTES) => readText(res, state, limit),
    pipeline: opts.pipeline,
    log,
  });
  registerFallbacks(app, allowedMethods);

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
      if (await inflight.settled(timeoutMs)) return;
      log.warn(
        { running: inflight.count, timeoutMs },
        'shutdown deadline reached: closing the connections of the requests still running',
      );
      inflight.closeAll();
      // Their handlers see the closed connection and finish (a batch records what it sent).
      await inflight.settled(CLOSE_GRACE_MS);
    },
    inflight: () => inflight.count,
  };
}
