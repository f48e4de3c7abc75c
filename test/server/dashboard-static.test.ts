import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestService, type TestService } from '../../harness/service.js';
import { REPO_ROOT } from '../../harness/paths.js';
import { dashboardBuilt } from '../support/browser.js';
import { DASHBOARD_CSP, negotiateEncoding } from '../../src/server/dashboard.js';
import { BUDGET_BYTES, firstViewSize, reviewViewSize } from '../../scripts/dashboard-size.mjs';

/** The dashboard's static files as the service serves them from dist/dashboard (`make build`). */
const DIST = join(REPO_ROOT, 'dist', 'dashboard');
let svc: TestService;
let asset: string;

before(async () => {
  dashboardBuilt();
  svc = await startTestService();
  asset = /src="(\/dashboard\/assets\/index-[\w-]+\.js)"/.exec(readFileSync(join(DIST, 'index.html'), 'utf8'))![1];
});
after(async () => {
  await svc?.close();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${svc.url}${path}`, { method, headers, redirect: 'manual' });

test('/ redirects to /dashboard; every page path answers index.html, revalidated, with the security headers', async () => {
  for (const method of ['GET', 'HEAD']) {
    const root = await get('/', {}, method);
    assert.equal(root.status, 302, method);
    assert.equal(root.headers.get('location'), '/dashboard', method);
  }
  const index = readFileSync(join(DIST, 'index.html'), 'utf8');
  for (const path of [
    '/dashboard',
    '/dashboard/',
    '/dashboard/overview',
    '/dashboard/admin/customers/12',
    '/dashboard/billing',
  ]) {
    const res = await get(path, { 'accept-encoding': 'identity' });
    assert.equal(res.status, 200, path);
    assert.equal(await res.text(), index, path);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('content-security-policy'), DASHBOARD_CSP);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('vary'), 'Accept-Encoding');
    assert.equal(res.headers.get('access-control-allow-origin'), null, 'no CORS on the app');
  }
  assert.match(DASHBOARD_CSP, /script-src 'self'; style-src 'self'/);
  assert.match(DASHBOARD_CSP, /frame-ancestors 'none'/);
  assert.ok(!DASHBOARD_CSP.includes('unsafe'), 'nothing inline, no eval');
  assert.ok(!/<script>|<style>|style="/.test(index), 'index.html has no inline script or style');
});

test('hashed assets: immutable for a year, brotli or gzip as the client accepts, identical once decoded', async () => {
  const plain = readFileSync(join(DIST, asset.slice('/dashboard/'.length)));
  const br = await get(asset, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(br.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(br.headers.get('content-encoding'), 'br');
  assert.equal(br.headers.get('vary'), 'Accept-Encoding');
  const raw = async (path: string, encoding: string) => {
    // fetch decodes bodies; node:http does not, so the bytes on the wire are compared.
    const { request } = await import('node:http');
    return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = request(`${svc.url}${path}`, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  };
  const brotli = await raw(asset, 'br');
  assert.deepEqual(brotliDecompressSync(brotli.body), plain);
  assert.ok(brotli.body.length < plain.length / 2);
  const gzip = await raw(asset, 'gzip;q=1, br;q=0.5');
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(gzip.body), plain);
  const identity = await raw(asset, 'br;q=0, gzip;q=0');
  assert.equal(identity.headers['content-encoding'], undefined);
  assert.deepEqual(identity.body, plain);

  const etag = br.headers.get('etag')!;
  const again = await get(asset, { 'accept-encoding': 'br', 'if-none-match': etag });
  assert.equal(again.status, 304);
  const head = await get(asset, { 'accept-encoding': 'identity' }, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(plain.length));
});

test('a missing asset is a 404, never the page; build bookkeeping is not served', async () => {
  for (const path of [
    '/dashboard/assets/index-00000000.js',
    '/dashboard/missing.css',
    '/dashboard/.digest',
    '/dashboard/.vite/manifest.json',
  ]) {
    const res = await get(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  }
});

test('the JavaScript of sign-in and the overview with its charts stays within its budget', () => {
  const size = firstViewSize(DIST);
  assert.ok(size.gzipped <= BUDGET_BYTES, `${size.gzipped} bytes gzipped`);
  assert.ok(
    size.files.some((f: string) => f.includes('overview')) && size.files.some((f: string) => f.includes('chart')),
    size.files.join(', '),
  );
});

test('the JavaScript of the review queue and the alert page stays within the budget, apart from the overview’s', () => {
  const size = reviewViewSize(DIST);
  assert.ok(size.gzipped <= BUDGET_BYTES, `${size.gzipped} bytes gzipped`);
  assert.ok(
    size.files.some((f: string) => f.includes('alerts')) && !size.files.some((f: string) => f.includes('chart')),
    size.files.join(', '),
  );
});

test('Accept-Encoding negotiation', () => {
  const both = { br: true, gzip: true };
  assert.equal(negotiateEncoding('', both), null);
  assert.equal(negotiateEncoding('gzip, deflate, br', both), 'br');
  assert.equal(negotiateEncoding('gzip', both), 'gzip');
  assert.equal(negotiateEncoding('br;q=0.2, gzip;q=0.8', both), 'gzip');
  assert.equal(negotiateEncoding('*', both), 'br');
  assert.equal(negotiateEncoding('*;q=0.5, br;q=0', both), 'gzip');
  assert.equal(negotiateEncoding('identity', both), null);
  assert.equal(negotiateEncoding('x-gzip', { gzip: true }), 'gzip');
  assert.equal(negotiateEncoding('br', { gzip: true }), null, 'no brotli copy');
  assert.equal(negotiateEncoding('BR;Q=1', both), 'br');
});
