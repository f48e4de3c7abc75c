import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import type { UploadHandler } from '../api/endpoints/lists.js';
import { notFound, payloadTooLarge, unsupportedMediaType } from '../core/errors.js';
import { errorOutcome } from '../core/pipeline.js';
import { parseInput } from '../core/validation.js';
import type { UploadFormat } from '../../loaders/upload.js';
import type { RouteHelpers } from './app.js';
import { BodyStream } from './body-stream.js';

/**
 * The REST routes of list uploads (`admin.lists.upload`, `account.lists.upload`): the body is the
 * list's rows, streamed to a spool file with backpressure (see BodyStream), never held whole. The caller is
 * authenticated before a byte is written; an answer given before the body was read in full
 * closes the connection.
 */

const FORMATS: Record<string, UploadFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
};

function formatOf(contentType: string | undefined): UploadFormat | null {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return FORMATS[type] ?? null;
}

export function registerUploadRoute(
  app: TemplatedApp,
  helpers: RouteHelpers,
  ep: AnyEndpoint,
  maxBytes: number,
  upload: UploadHandler,
): void {
  const pattern = `/api/v1${ep.path.replace(/\{(\w+)\}/g, ':$1')}`;
  const route = `POST /api/v1${ep.path}`;
  app.post(pattern, (res: HttpResponse, req: HttpRequest) => {
    const meta = helpers.readMeta(res, req, 'rest');
    const slug = req.getParameter(0);
    const query = Object.fromEntries(new URLSearchParams(req.getQuery()));
    const declared = Number(req.getHeader('content-length') || '0');
    const { state, finish } = helpers.begin(res, route, 'POST');
    const body = new BodyStream(res, state, maxBytes);
    state.whenAborted(() => body.aborted());
    void (async () => {
      let outcome: { status: number; body?: unknown; headers: Record<string, string> };
      try {
        let decoded: string;
        try {
          decoded = decodeURIComponent(slug);
        } catch {
          throw notFound(`List not found: ${slug}`);
        }
        const input = parseInput(ep.input, { path: { slug: decoded }, query }) as { slug: string; wait: number };
        const charge = await helpers.pipeline.gate.authorize(ep, input, meta);
        if (declared > maxBytes)
          throw payloadTooLarge(
            `Request body too large: an upload holds at most ${maxBytes} bytes (LIST_UPLOAD_MAX_BYTES)`,
          );
        const format = formatOf(meta.headers['content-type']);
        if (!format) throw unsupportedMediaType(`Content-Type must be one of ${Object.keys(FORMATS).join(', ')}`);
        outcome = await upload(charge.caller, input, format, body);
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
