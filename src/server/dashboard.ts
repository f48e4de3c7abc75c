import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Logger } from 'pino';

/**
 * Serves the dashboard built by `make build` (scripts/build-dashboard.mjs → dist/dashboard) from
 * memory: hashed assets under /dashboard/assets/ are cached for a year as immutable, everything
 * else (index.html) is revalidated on each use (ETag); the brotli or gzip copy written at build
 * time is sent when the client accepts it. Every path under /dashboard that is not a file is a
 * page of the single-page app and answers index.html; `/` redirects to /dashboard.
 */

const PREFIX = '/dashboard';
const ASSETS = `${PREFIX}/assets/`;

/**
 * The app's scripts, styles and images are its own files, its API calls go to this origin, and it
 * may not be framed. Nothing inline (the build emits none).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: [string, string][] = [
  ['Content-Security-Policy', DASHBOARD_CSP],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()'],
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

export type Encoding = 'br' | 'gzip';

interface Variant {
  body: Buffer;
  etag: string;
}

interface StaticFile {
  type: string;
  cacheControl: string;
  identity: Variant;
  /** Precompressed copies (only when smaller than the file). */
  br?: Variant;
  gzip?: Variant;
}

/** dist/dashboard, seen from src/server (tsx) or from dist/src/server (compiled). */
function defaultDashboardDir(): string {
  const up = fileURLToPath(new URL('../..', import.meta.url));
  return basename(up) === 'dist' ? join(up, 'dashboard') : join(up, 'dist', 'dashboard');
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    // Build bookkeeping (.digest, .vite/manifest.json) is not served.
    if (e.name.startsWith('.')) return [];
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

function variant(body: Buffer, suffix: string): Variant {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}${suffix}"` };
}

/** The built files by URL path, with their compressed copies; null when the dashboard is not built. */
function loadDashboardFiles(dir: string): Map<string, StaticFile> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const files = new Map<string, StaticFile>();
  for (const path of walk(dir)) {
    if (path.endsWith('.gz') || path.endsWith('.br')) continue;
    const url = `${PREFIX}/${relative(dir, path).split(sep).join('/')}`;
    const identity = readFileSync(path);
    const file: StaticFile = {
      type: TYPES[extname(path)] ?? 'application/octet-stream',
      cacheControl: url.startsWith(ASSETS) ? IMMUTABLE : REVALIDATE,
      identity: variant(identity, ''),
    };
    for (const enc of ['br', 'gzip'] as const) {
      const copy = `${path}.${enc === 'gzip' ? 'gz' : 'br'}`;
      if (!existsSync(copy)) continue;
      const body = readFileSync(copy);
      if (body.length < identity.length) file[enc] = variant(body, `-${enc}`);
    }
    files.set(url, file);
  }
  return files;
}

/**
 * The coding to send for an `Accept-Encoding` header: the client's preferred one (q-values) of
 * those the file has, brotli before gzip on a tie; null for the file as is.
 */
export function negotiateEncoding(header: string, available: { br?: unknown; gzip?: unknown }): Encoding | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [coding, ...params] = part.trim().split(';');
    if (!coding) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(coding.trim(), Number.isFinite(value) ? value : 0);
  }
  const weight = (c: Encoding) => q.get(c) ?? (c === 'gzip' ? q.get('x-gzip') : undefined) ?? q.get('*') ?? 0;
  let best: Encoding | null = null;
  for (const c of ['br', 'gzip'] as const) {
    if (!available[c] || weight(c) <= 0) continue;
    if (best === null || weight(c) > weight(best)) best = c;
  }
  return best;
}

function notModified(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

function writeSecurity(res: HttpResponse): void {
  for (const [k, v] of SECURITY_HEADERS) res.writeHeader(k, v);
}

function send(res: HttpResponse, req: HttpRequest, file: StaticFile, head: boolean): void {
  const compressible = file.br !== undefined || file.gzip !== undefined;
  const encoding = compressible ? negotiateEncoding(req.getHeader('accept-encoding'), file) : null;
  const chosen = encoding ? file[encoding]! : file.identity;
  const unchanged = notModified(req.getHeader('if-none-match'), chosen.etag);
  res.cork(() => {
    if (unchanged) res.writeStatus('304 Not Modified');
    else res.writeHeader('Content-Type', file.type);
    res.writeHeader('Cache-Control', file.cacheControl);
    res.writeHeader('ETag', chosen.etag);
    if (compressible) res.writeHeader('Vary', 'Accept-Encoding');
    if (encoding) res.writeHeader('Content-Encoding', encoding);
    writeSecurity(res);
    if (unchanged) res.endWithoutBody();
    else if (head) {
      // endWithoutBody(length) aborts the process in this uWS build; the header written by hand does not.
      res.writeHeader('Content-Length', String(chosen.body.length));
      res.endWithoutBody();
    } else res.end(chosen.body);
  });
}

function plain(res: HttpResponse, status: string, text: string): void {
  res.cork(() => {
    res
      .writeStatus(status)
      .writeHeader('Content-Type', 'text/plain; charset=utf-8')
      .writeHeader('Cache-Control', 'no-store');
    writeSecurity(res);
    res.end(text);
  });
}

export interface DashboardOptions {
  /** Default: dist/dashboard (see defaultDashboardDir). */
  dir?: string;
  log: Logger;
}

/** Registers /dashboard, /dashboard/* and the redirect of `/` (before the app's fallback routes). */
export function registerDashboard(app: TemplatedApp, opts: DashboardOptions): void {
  const dir = opts.dir ?? defaultDashboardDir();
  const files = loadDashboardFiles(dir);
  if (!files) opts.log.warn({ dir }, 'the dashboard is not built (make build): /dashboard answers 503');
  const index = files?.get(`${PREFIX}/index.html`);

  const serve = (head: boolean) => (res: HttpResponse, req: HttpRequest) => {
    if (!files || !index)
      return plain(res, '503 Service Unavailable', 'The dashboard is not built on this server: run `make build`.\n');
    const url = req.getUrl();
    const file = files.get(url);
    if (file) return send(res, req, file, head);
    // A missing asset (or a dot-file path) is a 404, never the page: a script or style answered
    // with HTML breaks the app.
    if (url.startsWith(ASSETS) || extname(url) !== '' || url.includes('/.'))
      return plain(res, '404 Not Found', 'Not found\n');
    send(res, req, index, head);
  };
  for (const pattern of [PREFIX, `${PREFIX}/*`]) {
    app.get(pattern, serve(false));
    app.head(pattern, serve(true));
  }
  const redirect = (head: boolean) => (res: HttpResponse) => {
    res.cork(() => {
      res.writeStatus('302 Found').writeHeader('Location', PREFIX).writeHeader('Cache-Control', 'no-cache');
      if (head) res.endWithoutBody();
      else res.end();
    });
  };
  app.get('/', redirect(false));
  app.head('/', redirect(true));
}
