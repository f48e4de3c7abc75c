import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AnyEndpoint, Caller } from '../core/endpoint.js';
import { notFound, payloadTooLarge, unsupportedMediaType } from '../core/errors.js';
import { errorOutcome } from '../core/pipeline.js';
import { parseInput } from '../core/validation.js';
import type { RouteHelpers } from './app.js';
import { BodyStream } from './body-stream.js';

/**
 * A POST route whose body is a file of rows (list uploads, subject imports): streamed with
 * backpressure (BodyStream) to the handler, never held whole. The caller is authenticated before a
 * byte is read; the declared size and the Content-Type are checked next; an answer given before the
 * body was read in full closes the connection.
 */

interface Outcome {
  status: number;
  body?: unknown;
  headers: Record<string, string>;
}

export interface StreamedBodyRoute<F> {
  maxBytes: number;
  /** Accepted media types (lower case, without parameters) and the format each is read as. */
  formats: Record<string, F>;
  /** The 413's detail when Content-Length is over `maxBytes`. */
  tooLarge: string;
  /** The 404's detail for a path parameter that is not valid percent-encoding. */
  notFound: (raw: string) => string;
  handle: (
    caller: Caller,
    input: Record<string, unknown>,
    format: F,
    body: BodyStream,
    requestId: string,
  ) => Promise<Outcome>;
}

export function registerStreamedBodyRoute<F>(
  app: TemplatedApp,
  helpers: RouteHelpers,
  ep: AnyEndpoint,
  opts: StreamedBodyRoute<F>,
): void {
  const params = [...ep.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const pattern = `/api/v1${ep.path.replace(/\{(\w+)\}/g, ':$1')}`;
  const route = `POST /api/v1${ep.path}`;
  app.post(pattern, (res: HttpResponse, req: HttpRequest) => {
    const meta = helpers.readMeta(res, req, 'rest');
    const raw = params.map((_, i) => req.getParameter(i) ?? '');
    const query = Object.fromEntries(new URLSearchParams(req.getQuery()));
    const declared = Number(req.getHeader('content-length') || '0');
    const { state, finish } = helpers.begin(res, route, 'POST');
    const body = new BodyStream(res, state, opts.maxBytes);
    state.whenAborted(() => body.aborted());
    void (async () => {
      let outcome: Outcome;
      try {
        const path: Record<string, string> = {};
        params.forEach((name, i) => {
          try {
            path[name] = decodeURIComponent(raw[i]);
          } catch {
            throw notFound(opts.notFound(raw[i]));
          }
        });
        const input = parseInput(ep.input, { path, query }) as Record<string, unknown>;
        const charge = await helpers.pipeline.gate.authorize(ep, input, meta);
        if (declared > opts.maxBytes) throw payloadTooLarge(opts.tooLarge);
        const type = (meta.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        const format = opts.formats[type];
        if (!format) throw unsupportedMediaType(`Content-Type must be one of ${Object.keys(opts.formats).join(', ')}`);
        outcome = await opts.handle(charge.caller, input, format, body, meta.requestId);
      } catch (err) {
        outcome = errorOutcome(err, helpers.log, meta);
      }
      if (state.aborted) return finish(499);
      body.release();
      state.closeAfter = !body.complete;
      await helpers.sendOutcome(res, state, outcome, meta.requestId);
      finish(outcome.status);
    })();
  });
}
