import type { TemplatedApp } from 'uWebSockets.js';
import type { Metrics } from './metrics.js';
import { preflight, refuseUnread, ResponseState, sendBody, writeHead } from './uws-io.js';

/** Liveness, readiness and the Prometheus text: what probes and scrapers call, no pipeline. */
export function registerProbes(app: TemplatedApp, ready: () => boolean, metrics: Metrics): void {
  app.get('/healthz', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end('{"status":"ok"}'));
  });
  app.get('/readyz', (res) => {
    const ok = ready();
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
}

/** The OpenAPI document, serialized on the first request (the routes are all registered by then). */
export function registerOpenApi(app: TemplatedApp, openApiDocument: () => unknown): void {
  let openApiText: string | null = null;
  app.get('/api/v1/openapi.json', (res) => {
    openApiText ??= JSON.stringify(openApiDocument());
    res.cork(() => {
      writeHead(res, 200, { 'Content-Type': 'application/json' });
      res.end(openApiText!);
    });
  });
}

/** Registered after every route: 405 (with `Allow`) on an endpoint's path, 404 elsewhere. */
export function registerFallbacks(app: TemplatedApp, allowedMethods: ReadonlyMap<string, Set<string>>): void {
  for (const [pattern, methods] of allowedMethods) {
    const allow = [...methods].join(', ');
    app.any(pattern, (res, req) => {
      if (req.getMethod() === 'options') return preflight(res);
      refuseUnread(res, req, 405, '{"detail":"Method Not Allowed"}', { Allow: allow });
    });
  }
  app.any('/*', (res, req) => refuseUnread(res, req, 404, '{"detail":"Not Found"}'));
}
