import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { AnyEndpoint, RequestMeta } from '../core/endpoint.js';
import { valueIssue } from '../core/errors.js';
import { execute, errorOutcome, type PipelineDeps } from '../core/pipeline.js';
import { parseInput, parseJsonBody, type RawInput } from '../core/validation.js';
import { sendAnswer, wholeBody, type Answer, type WholeBody } from './answer.js';
import { MAX_BODY_BYTES } from './body-limit.js';
import type { Begun, InflightRequests } from './inflight.js';
import type { Metrics, RouteStats } from './metrics.js';
import { readText, writeBody } from './uws-io.js';

/**
 * An endpoint definition as a native uWS route: read meta → (read body) → run → send, without
 * Request objects. An answer ready within uWS's callback is written there; any other is sent later.
 */

export interface RestRouteDeps {
  pipeline: PipelineDeps;
  log: Logger;
  metrics: Metrics;
  inflight: InflightRequests;
  readMeta(res: HttpResponse, req: HttpRequest, transport: RequestMeta['transport'], method: string): RequestMeta;
}

/** Where an endpoint listens: its uWS pattern, its path parameters in order, and its label in metrics and logs. */
export interface RouteShape {
  pattern: string;
  paramNames: string[];
  route: string;
}

/** The OpenAPI path `{name}` placeholders become uWS `:name` parameters, read by position. */
export function routeShape(ep: Pick<AnyEndpoint, 'method' | 'path'>): RouteShape {
  return {
    pattern: `/api/v1${ep.path.replace(/\{(\w+)\}/g, ':$1')}`,
    paramNames: [...ep.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
    route: `${ep.method} /api/v1${ep.path}`,
  };
}

/** A path parameter as the client meant it; null when its percent-encoding is malformed. */
export function decodeParam(raw: string): string | null {
  // Without a percent sign there is nothing to decode (decodeURIComponent would return it as is).
  if (raw.indexOf('%') === -1) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The query string's parameters; the first of a repeated name wins, as a single-valued schema expects. */
export function parseQuery(q: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!q) return out;
  for (const [k, v] of new URLSearchParams(q)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

/** The 422 for a path parameter that cannot be decoded, shaped like a validation error. */
export function malformedParamAnswer(name: string): Answer {
  return {
    status: 422,
    headers: {},
    body: { detail: [valueIssue(['path', name], 'malformed percent-encoding', null)] },
  };
}

/** Decodes the request's path parameters into `into`; returns the name of the last malformed one, or null. */
function readPathParams(req: HttpRequest, names: readonly string[], into: Record<string, string>): string | null {
  let bad: string | null = null;
  for (let i = 0; i < names.length; i++) {
    const decoded = decodeParam(req.getParameter(i));
    if (decoded === null) bad = names[i];
    else into[names[i]] = decoded;
  }
  return bad;
}

/** Registers each endpoint that has no route of its own; returns the methods each pattern allows (for 405s). */
export function registerRestRoutes(
  app: TemplatedApp,
  endpoints: readonly AnyEndpoint[],
  deps: RestRouteDeps,
): Map<string, Set<string>> {
  const allowedMethods = new Map<string, Set<string>>();
  for (const ep of endpoints) {
    if (ep.nativeRoute) continue;
    const route = new RestRoute(ep, deps);
    const pattern = route.shape.pattern;
    if (!allowedMethods.has(pattern)) allowedMethods.set(pattern, new Set());
    allowedMethods.get(pattern)!.add(ep.method);
    const handler = (res: HttpResponse, req: HttpRequest) => route.handle(res, req);
    if (ep.method === 'GET') app.get(pattern, handler);
    else if (ep.method === 'POST') app.post(pattern, handler);
    else if (ep.method === 'PUT') app.put(pattern, handler);
    else if (ep.method === 'PATCH') app.patch(pattern, handler);
    else app.del(pattern, handler);
  }
  return allowedMethods;
}

/** One endpoint's route: what a request to it goes through, one method per step. */
class RestRoute {
  readonly shape: RouteShape;
  private readonly stats: RouteStats;
  private readonly hasBody: boolean;

  constructor(
    private readonly ep: AnyEndpoint,
    private readonly deps: RestRouteDeps,
  ) {
    this.shape = routeShape(ep);
    this.stats = deps.metrics.route(this.shape.route, ep.method);
    this.hasBody = ep.method !== 'GET' && ep.method !== 'DELETE';
  }

  handle(res: HttpResponse, req: HttpRequest): void {
    const started = performance.now();
    const meta = this.deps.readMeta(res, req, 'rest', this.ep.method);
    const path: Record<string, string> = {};
    const badParam = readPathParams(req, this.shape.paramNames, path);
    const raw: RawInput = { path, query: parseQuery(req.getQuery()) };
    if (badParam !== null) this.answerNow(res, meta, malformedParamAnswer(badParam), started);
    else if (this.hasBody) this.runWithBody(res, meta, raw, started);
    else this.answerNow(res, meta, this.runNow(raw, meta), started);
  }

  private runWithBody(res: HttpResponse, meta: RequestMeta, raw: RawInput, started: number): void {
    const begun = this.deps.inflight.begin(res, this.stats, started);
    const pending = readText(res, begun.state, MAX_BODY_BYTES).then((text) => {
      raw.body = parseJsonBody(text);
      return this.run(raw, meta);
    });
    this.answerLater(res, begun, pending, meta);
  }

  private runNow(raw: RawInput, meta: RequestMeta): Answer | Promise<Answer> {
    try {
      return this.run(raw, meta);
    } catch (err) {
      return errorOutcome(err, this.deps.log, meta);
    }
  }

  private run(raw: RawInput, meta: RequestMeta): Answer | Promise<Answer> {
    return execute(this.ep, parseInput(this.ep.input, raw), meta, this.deps.pipeline);
  }

  /** Within uWS's callback when the whole answer is ready; later otherwise. */
  private answerNow(res: HttpResponse, meta: RequestMeta, result: Answer | Promise<Answer>, started: number): void {
    if (result instanceof Promise) {
      this.answerLater(res, this.deps.inflight.begin(res, this.stats, started), result, meta);
      return;
    }
    let answer = result;
    let whole: WholeBody | null;
    try {
      whole = wholeBody(answer, this.ep.serialize);
    } catch (err) {
      answer = errorOutcome(err, this.deps.log, meta);
      whole = wholeBody(answer);
    }
    if (!whole) {
      this.answerLater(res, this.deps.inflight.begin(res, this.stats, started), answer, meta);
      return;
    }
    // Answered within uWS's request callback: the client cannot have gone away yet, the socket
    // is corked for us (one send per answer), and nothing is waited for.
    const ip = this.deps.log.isLevelEnabled('debug') ? meta.clientIp : undefined;
    writeBody(res, answer.status, whole.contentType, whole.body, answer.headers, meta.requestId);
    this.stats.observe(answer.status, (performance.now() - started) / 1000);
    this.logged(meta, answer.status, ip);
  }

  private answerLater(res: HttpResponse, begun: Begun, result: Answer | Promise<Answer>, meta: RequestMeta): void {
    const log = this.deps.log;
    meta.gone = () => begun.state.aborted;
    void Promise.resolve(result)
      .catch((err: unknown) => errorOutcome(err, log, meta))
      .then(async (outcome) => {
        const ip = log.isLevelEnabled('debug') && !begun.state.aborted ? meta.clientIp : undefined;
        await sendAnswer(res, begun.state, outcome, meta.requestId, log, this.ep.serialize);
        begun.finish(outcome.status);
        this.logged(meta, outcome.status, ip);
      })
      .catch((err: unknown) => {
        // Sending failed (an answer that cannot be serialized): a logged 500, never a crash.
        const failed = errorOutcome(err, log, meta);
        void Promise.resolve(sendAnswer(res, begun.state, failed, meta.requestId, log)).catch((e: unknown) =>
          log.error({ err: e, reqId: meta.requestId }, 'error answer not sent'),
        );
        begun.finish(failed.status);
      });
  }

  /** `ip` is read by the caller only when debug logging is on: reading the peer address is a system call. */
  private logged(meta: RequestMeta, status: number, ip: string | undefined): void {
    const { log } = this.deps;
    if (status >= 500) log.error({ reqId: meta.requestId, route: this.shape.route, status }, 'request failed');
    else if (ip !== undefined) log.debug({ reqId: meta.requestId, route: this.shape.route, status, ip }, 'request');
  }
}
