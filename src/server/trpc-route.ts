import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { AnyRouter } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { RequestMeta } from '../core/endpoint.js';
import { errorOutcome } from '../core/pipeline.js';
import { checkJsonDepth } from '../core/validation.js';
import type { TrpcContext } from '../api/trpc.js';
import { sendAnswer, type Answer } from './answer.js';
import { MAX_BODY_BYTES } from './body-limit.js';
import type { InflightRequests } from './inflight.js';
import type { Metrics } from './metrics.js';
import { readText, type ResponseState } from './uws-io.js';

export interface TrpcRouteDeps {
  router: AnyRouter;
  log: Logger;
  metrics: Metrics;
  inflight: InflightRequests;
  readMeta(res: HttpResponse, req: HttpRequest, transport: RequestMeta['transport']): RequestMeta;
}

/** /trpc through tRPC's fetch adapter: the dashboard's calls, off the hot path, where a Request per call is fine. */
export function registerTrpcRoute(app: TemplatedApp, deps: TrpcRouteDeps): void {
  app.any('/trpc/*', (res, req) => {
    const meta = deps.readMeta(res, req, 'trpc');
    const { state, finish } = deps.inflight.begin(res, deps.metrics.route('ANY /trpc', meta.method));
    void answerTrpc(res, state, req.getUrl(), meta, deps)
      .catch((err: unknown) => errorOutcome(err, deps.log, meta))
      .then((answer) => {
        void sendAnswer(res, state, answer, meta.requestId, deps.log);
        finish(answer.status);
      });
  });
}

/** Runs one tRPC call; reads the body synchronously at its start, as uWS requires. */
async function answerTrpc(
  res: HttpResponse,
  state: ResponseState,
  path: string,
  meta: RequestMeta,
  deps: TrpcRouteDeps,
): Promise<Answer> {
  const { method } = meta;
  const body = method === 'GET' || method === 'HEAD' ? undefined : await readText(res, state, MAX_BODY_BYTES);
  if (body !== undefined) checkJsonDepth(body);
  const headers = new Headers();
  for (const [k, v] of Object.entries(meta.headers)) if (v !== undefined) headers.set(k, v);
  const request = new Request(meta.url.replace(/^[^/]*\/\/[^/]*/, 'http://localhost'), { method, headers, body });
  const response = await fetchRequestHandler({
    endpoint: '/trpc',
    req: request,
    router: deps.router,
    createContext: ({ resHeaders }): TrpcContext => ({ meta, resHeaders }),
    onError: ({ error }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR')
        deps.log.error({ reqId: meta.requestId, path, err: error.cause ?? error }, 'trpc error');
    },
  });
  const text = await response.text();
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    if (k !== 'content-type' && k !== 'content-length') out[k] = v;
  });
  const contentType = response.headers.get('content-type') ?? 'application/json';
  return { status: response.status, headers: out, raw: { contentType, body: text, headers: {} } };
}
