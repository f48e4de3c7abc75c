import type { TemplatedApp } from 'uWebSockets.js';
import { IMPORT_CONTENT_TYPES, type ImportHandler } from '../api/endpoints/subject-imports.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import type { RouteHelpers } from './app.js';
import { registerStreamedBodyRoute } from './streamed-body-route.js';

/** The REST routes of subject imports (`subjects.import`, `admin.subjects.import`): a 202 with the job. */
export function registerSubjectImportRoute(
  app: TemplatedApp,
  helpers: RouteHelpers,
  ep: AnyEndpoint,
  maxBytes: number,
  handle: ImportHandler,
): void {
  registerStreamedBodyRoute(app, helpers, ep, {
    maxBytes,
    formats: IMPORT_CONTENT_TYPES,
    tooLarge: `Request body too large: an import holds at most ${maxBytes} bytes`,
    notFound: (raw) => `Not found: ${raw}`,
    handle: async (caller, input, format, body, requestId) => {
      const { job, location } = await handle(caller, input, format, body, requestId);
      return { status: 202, body: job, headers: { Location: location } };
    },
  });
}
