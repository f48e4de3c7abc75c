// Runs every test/**/*.test.ts with node's test runner through tsx. Arguments narrow the set
// (substrings of paths). The runner is driven through its run() API: `node --test` sorts the
// files it is given, which ran the longest ones wherever the alphabet put them (often last, alone).
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = fileURLToPath(new URL('..', import.meta.url));

// Each test file runs in a child process with this process's exec arguments: tsx must be among them.
// Without TEST_DATABASE_URL the files that need PostgreSQL share one server for this run (the
// first starts it in TEST_PG_DIR, see test/store/backends.ts): a server each cost a file ~15 s.
if (!process.execArgv.includes('tsx')) {
  const pgDir = process.env.TEST_DATABASE_URL ? undefined : join(tmpdir(), `screening-pg-test-run-${process.pid}`);
  // Ctrl-C reaches the runner too: this process outlives it to stop the server.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => undefined);
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      ...(pgDir ? { TEST_PG_DIR: pgDir } : {}),
    },
  });
  if (pgDir) {
    spawnSync('bash', [join(root, 'scripts', 'pg-test-server.sh'), 'stop', pgDir], { stdio: 'ignore' });
    rmSync(`${pgDir}.lock`, { recursive: true, force: true });
  }
  process.exit(r.status ?? 1);
}

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'fixtures' || name === 'support' ? [] : walk(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}

// The files start in this order, as many at a time as TEST_CONCURRENCY: the longest (a minute or
// more each on 2 busy cores, measured in docs/investigations/2026-11-28-suite-time.md) go first, so
// that none of them starts late and runs alone at the end.
const LONGEST = [
  'test/billing/quota-nodes.test.ts',
  'test/server/lifecycle.test.ts',
  'test/subjects/watch.test.ts',
  'test/dashboard/customer.test.ts',
  'test/server/upload-crash.test.ts',
  'test/api/lists.test.ts',
  'test/subjects/watch-restart.test.ts',
  'test/webhooks/interrupted.test.ts',
  'test/alerts/review-nodes.test.ts',
];
const rank = (f) => (LONGEST.includes(f) ? LONGEST.indexOf(f) : LONGEST.length);
const filters = process.argv.slice(2);
const files = walk(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const started = Date.now();
const took = new Map();
const stream = run({
  files: files.map((f) => join(root, f)),
  concurrency: Number(process.env.TEST_CONCURRENCY ?? '2'),
  timeout: 900_000,
});
stream.on('test:fail', (d) => {
  if (!d.todo) process.exitCode = 1;
});
// A file's own test (named by its path) completes when its process ends: its wall time.
stream.on('test:complete', (d) => {
  if (d.nesting === 0 && d.name === d.file) took.set(relative(root, d.file), d.details.duration_ms);
});
stream.compose(spec).pipe(process.stdout);
// At exit rather than at the reporter's end, which did not always come (a run of
// test/server/lifecycle ended without it).
process.on('exit', () => {
  const slowest = [...took].sort((a, b) => b[1] - a[1]).slice(0, 15);
  console.log(`\nslowest files (wall time, ${process.env.TEST_CONCURRENCY ?? '2'} at a time):`);
  for (const [f, ms] of slowest) console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${f}`);
  console.log(`${((Date.now() - started) / 1000).toFixed(1).padStart(8)} s  all ${files.length} files`);
});
