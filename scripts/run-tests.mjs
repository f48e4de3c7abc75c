// Runs every test/**/*.test.ts with node's test runner through tsx. Arguments narrow the set
// (substrings of paths). Node 20's runner has no globbing, so the files are listed here.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'fixtures' || name === 'support' ? [] : walk(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}
// The runner starts files in the order given, two at a time: the longest (minutes each, real
// processes killed and restarted) go first, so that none of them starts last and runs alone.
const LONGEST = [
  'test/billing/quota-nodes.test.ts',
  'test/server/upload-crash.test.ts',
  'test/server/lifecycle.test.ts',
  'test/webhooks/interrupted.test.ts',
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
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=900000',
    '--test-reporter=spec',
    ...files,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
  },
);
process.exit(r.status ?? 1);
