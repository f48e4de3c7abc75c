/**
 * Builds the dashboard (src/dashboard, Preact + uPlot) with Vite into dist/dashboard: hashed
 * asset names, and a gzip and a brotli copy of each text file written beside it, so the server
 * never compresses at request time. Skipped when the sources, the lockfile and this script are
 * unchanged since the last build (the digest is kept in dist/dashboard/.digest). Type-checks the
 * dashboard first, and fails when the first view's JavaScript exceeds its budget
 * (scripts/dashboard-size.mjs). `--force` builds anyway.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { BUDGET_BYTES, firstViewSize, reviewViewSize } from './dashboard-size.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'dashboard');
const out = join(root, 'dist', 'dashboard');
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}

function sourceDigest() {
  const h = createHash('sha256');
  const inputs = [
    ...files(src).sort(),
    join(root, 'package-lock.json'),
    fileURLToPath(import.meta.url),
    join(root, 'scripts', 'dashboard-size.mjs'),
  ];
  for (const f of inputs) h.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

function compressAll(dir) {
  for (const f of files(dir)) {
    if (!COMPRESSIBLE.test(f) || f.includes(`${join(dir, '.vite')}`)) continue;
    const body = readFileSync(f);
    writeFileSync(`${f}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(
      `${f}.br`,
      brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
    );
  }
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

export async function buildDashboard({ force = false } = {}) {
  const digest = sourceDigest();
  const digestFile = join(out, '.digest');
  if (!force && existsSync(digestFile) && readFileSync(digestFile, 'utf8') === digest) {
    const size = firstViewSize(out);
    console.log(`dashboard: unchanged, build skipped (sign-in + overview JS ${kb(size.gzipped)} gzipped)`);
    return size;
  }
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '--noEmit', '-p', join(src, 'tsconfig.json')], { stdio: 'inherit', cwd: root });

  // Built beside the output and swapped in whole, so a server never reads a half-written build.
  const staging = `${out}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: src,
    base: '/dashboard/',
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: staging,
      emptyOutDir: true,
      manifest: true,
      target: 'es2022',
      // No data: URLs: every asset is a file the Content-Security-Policy allows ('self').
      assetsInlineLimit: 0,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 200,
    },
  });
  compressAll(staging);
  const size = firstViewSize(staging);
  const review = reviewViewSize(staging);
  for (const [what, s] of [
    ['sign-in + overview', size],
    ['sign-in + review queue + alert', review],
  ]) {
    if (s.gzipped <= BUDGET_BYTES) continue;
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `dashboard: ${what} JS is ${kb(s.gzipped)} gzipped, over the ${kb(BUDGET_BYTES)} budget (${s.files.join(', ')})`,
    );
  }
  writeFileSync(join(staging, '.digest'), digest);
  mkdirSync(dirname(out), { recursive: true });
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
  const total = files(out)
    .filter((f) => f.endsWith('.js.gz'))
    .reduce((s, f) => s + statSync(f).size, 0);
  console.log(
    `dashboard: built dist/dashboard; sign-in + overview JS ${kb(size.gzipped)} gzipped (${kb(size.raw)} raw; budget ${kb(BUDGET_BYTES)}), review queue + alert ${kb(review.gzipped)}, all pages ${kb(total)} gzipped`,
  );
  return size;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildDashboard({ force: process.argv.includes('--force') }).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
