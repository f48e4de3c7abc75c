import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';

/** The API reference page, served from the swagger-ui-dist package (no CDN). */
export function registerDocs(app: TemplatedApp): void {
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
