import type { TemplatedApp } from 'uWebSockets.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import type { UploadHandler } from '../api/endpoints/lists.js';
import type { UploadFormat } from '../../loaders/upload.js';
import type { RouteHelpers } from './app.js';
import { registerStreamedBodyRoute } from './streamed-body-route.js';

/** The REST routes of list uploads (`admin.lists.upload`, `account.lists.upload`): the body is the list's rows. */

const FORMATS: Record<string, UploadFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
};

export function registerUploadRoute(
  app: TemplatedApp,
  helpers: RouteHelpers,
  ep: AnyEndpoint,
  maxBytes: number,
  upload: UploadHandler,
): void {
  registerStreamedBodyRoute(app, helpers, ep, {
    maxBytes,
    formats: FORMATS,
    tooLarge: `Request body too large: an upload holds at most ${maxBytes} bytes (LIST_UPLOAD_MAX_BYTES)`,
    notFound: (raw) => `List not found: ${raw}`,
    handle: (caller, input, format, body) => upload(caller, input as { slug: string; wait: number }, format, body),
  });
}
