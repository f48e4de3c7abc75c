import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { IMPORT_CONTENT_TYPES, type ImportHandler } from '../api/endpoints/subject-imports.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import { notFound, payloadTooLarge, unsupportedMediaType } from '../core/errors.js';
import { errorOutcome } from '../core/pipeline.js';
import { parseInput } from '../core/validation.js';
import type { RouteHelpers } from './app.js';
import { BodyStream } from './body-stream.js';

/**
 * The REST routes of subject imports (`subjects.import`, `admin.subjects.import`): the body is
 * streamed with backpressure (BodyStream) to the importer's spool, never held whole; the caller is
 * authenticated before a byte is read, and an answer given before the body was read in full
 * closes the connection.
 */
export function registerSubjectImportRoute(
  app: TemplatedApp,
  helpers: RouteHelpers,
  ep: AnyEndpoint,
  maxBytes: number,
  handle: ImportHandler,
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
    const body = new BodyStream(res, state, maxBytes);
    state.whenAborted(() => body.aborted());
    void (async () => {
      let outcome: { status: number; body?: unknown; headers: Record<string, string> };
      try {
        const path: Record<string, string> = {};
        params.forEach((name, i) => {
          try {
            path[name] = decodeURIComponent(raw[i]);
          } catch {
            throw notFound(`Not found: ${raw[i]}`);
          }
        });
        const input = parseInput(ep.input, { path, query }) as Record<string, unknown>;
        const charge = await helpers.pipeline.gate.authorize(ep, input, meta);
        if (declared > maxBytes)
          throw payloadTooLarge(`Request body too large: an import holds at most ${maxBytes} bytes`);
        const type = (meta.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        const format = IMPORT_CONTENT_TYPES[type];
        if (!format)
          throw unsupportedMediaType(`Content-Type must be one of ${Object.keys(IMPORT_CONTENT_TYPES).join(', ')}`);
        const { job, location } = await handle(charge.caller, input, format, body, meta.requestId);
        outcome = { status: 202, body: job, headers: { Location: location } };
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
