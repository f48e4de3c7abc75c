/**
 * `make bench`: runs every benchmark as its own process and writes the whole of bench/RESULTS.md:
 * a header with the date, the machine and the commit, then one section per suite, each naming
 * the run it comes from (date, commit, load average before it). Nothing written by hand is kept;
 * investigations and comparisons between builds live in docs/investigations/.
 *   node dist/bench/run.js [--only engine,loaders,audit,audit-paced,ipintel,names,flexsearch,analytics,lists-feed,lists-upload,strict,alerts,alerts-batch,watch,fanout,subjects,http] [--engine-sizes 100000,1000000] [--parent DIR] [--alerts-db DIR] [--subjects-rows N]
 * With --only, the suites not named keep their section of the run that last wrote them.
 * (`make bench` builds dist/ first; every suite then runs compiled, as `make run` does. Under
 * `node --import tsx bench/run.ts` the suites run through tsx instead.)
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem, platform, release } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPILED, REPO_ROOT, SERVICE_NODE_FLAGS } from '../harness/paths.js';

const argValue = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const only = argValue('only')?.split(',');
/** A checkout of the parent commit, built: the HTTP suite measures its `/search` beside this build's routes. */
const parent = argValue('parent');
const engineSizes = (argValue('engine-sizes') ?? '100000,1000000').split(',');
/** A PGlite directory bench/alerts.ts filled before (`--keep`): filling 1.1M alerts takes 5-25 minutes. */
const alertsDb = argValue('alerts-db');
const subjectsRows = argValue('subjects-rows');

const suites: { name: string; title: string; args: string[]; node?: string[] }[] = [
  // The engine runs with the service's V8 flags: its young generation sets how often the shards pause.
  {
    name: 'engine',
    title: 'Engine (synthetic data, real entity-type mix)',
    args: ['bench/engine.ts', ...engineSizes],
    node: ['--expose-gc', '--max-old-space-size=12288', ...SERVICE_NODE_FLAGS],
  },
  { name: 'loaders', title: 'Loaders: parse time of each real list', args: ['bench/loaders.ts', '--runs', '3'] },
  { name: 'audit', title: 'Audit inserts into embedded ClickHouse', args: ['bench/audit.ts'] },
  {
    name: 'audit-paced',
    title: "Audit inserts at the service's rate (75,000 rows/s for 10 s, CPU per row)",
    args: ['bench/audit.ts', 'paced'],
  },
  { name: 'ipintel', title: 'IP intelligence lookups', args: ['bench/ipintel.ts'] },
  { name: 'names', title: 'Name matching: quality targets and speed (issue #21)', args: ['bench/names-quality.ts'] },
  {
    name: 'flexsearch',
    title: 'FlexSearch as the name index: options, memory and build time per name, export/import (issue #21)',
    args: ['bench/flexsearch-options.ts'],
    node: ['--expose-gc'],
  },
  {
    name: 'analytics',
    title: 'Dashboard analytics over 10M audit rows of one customer (embedded ClickHouse)',
    args: ['bench/analytics.ts'],
  },
  {
    name: 'lists-feed',
    title: 'Changes feed over 10M stored changes (page near the end vs the first page)',
    args: ['bench/lists.ts', 'feed'],
  },
  // The service runs in the suite's own process: with the V8 flags `make run` gives it.
  {
    name: 'lists-upload',
    title: 'Upload of 1M rows into an operator list (streamed, checked, diffed, served)',
    args: ['bench/lists.ts', 'upload'],
    node: ['--expose-gc', ...SERVICE_NODE_FLAGS],
  },
  {
    name: 'strict',
    title: 'AUDIT_STRICT against the default mode (write-ahead log; issue #36)',
    args: ['bench/strict.ts'],
  },
  {
    name: 'alerts',
    title: 'Alert list over 1M alerts of one customer (issue #38)',
    args: ['bench/alerts.ts', ...(alertsDb ? ['--keep', alertsDb] : [])],
  },
  {
    name: 'alerts-batch',
    title: 'What alerts cost a 10,000-value batch with a third listed: ALERTS on against off (issue #38)',
    args: ['bench/alerts-batch.ts'],
  },
  {
    name: 'watch',
    title: 'A list version of 1,000 changed parties against the books: streamed vs a book index (issue #39)',
    args: ['bench/watch.ts', '100000'],
    node: ['--expose-gc'],
  },
  {
    name: 'fanout',
    title: 'Fan-out: the widest screening answers and /healthz beside them (issue #36)',
    args: ['bench/fanout.ts'],
  },
  // The service runs in the suite's own process, with the V8 flags `make run` gives it.
  {
    name: 'subjects',
    title: "Import and screening of 1M subjects into a customer's book (issue #39)",
    args: ['bench/subjects.ts', ...(subjectsRows ? ['--rows', subjectsRows] : [])],
    node: ['--expose-gc', ...SERVICE_NODE_FLAGS],
  },
  // The HTTP suite's own process is the batch client. It idles through minutes of wrk rounds,
  // after which V8's memory reducer left its heap so small that it spent a third of its time in
  // GC decoding the 2.5 MB answers: the batch rows measured the client (89% CPU, the service's
  // main thread 59%), not the service.
  {
    name: 'http',
    title: 'HTTP routes against a bare uWS route',
    args: ['bench/http.ts', ...(parent ? ['--parent', parent] : [])],
    node: ['--no-memory-reducer'],
  },
];

const resultsPath = join(REPO_ROOT, 'bench', 'RESULTS.md');

/** The commit measured, marked `-dirty` when tracked files differ from it. */
function commitOf(): string {
  const head = spawnSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown (no git checkout)';
  const changed = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return head.stdout.trim() + (changed.stdout.trim() ? '-dirty' : '');
}
const commit = commitOf();

/** The last generated section of each suite, by title: what --only keeps of the suites it does not run. */
const previous = new Map<string, string>();
if (only && existsSync(resultsPath)) {
  for (const part of readFileSync(resultsPath, 'utf8')
    .split(/^(?=## )/m)
    .slice(1))
    previous.set(part.split('\n')[0].slice(3).trim(), part.trimEnd() + '\n');
}
const sections: string[] = [];
for (const s of suites) {
  if (only && !only.includes(s.name)) {
    const kept = previous.get(s.title);
    if (kept) sections.push(kept);
    continue;
  }
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  process.stderr.write(`bench: ${s.name} (load ${load})\n`);
  const entry = COMPILED
    ? [join('dist', s.args[0].replace(/\.ts$/, '.js')), ...s.args.slice(1)]
    : ['--import', 'tsx', ...s.args];
  const started = new Date().toISOString();
  const r = spawnSync(process.execPath, [...(s.node ?? []), ...entry], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = r.stdout.trim();
  const body = /^(#|\|)/m.test(out) ? out : '```\n' + out + '\n```';
  sections.push(
    `## ${s.title}\n\nRun ${started} at commit ${commit}. Load average before the run: ${load}. Exit code ${r.status}.\n\n${body}\n${r.status ? '\n```\n' + r.stderr.slice(-2000) + '\n```\n' : ''}`,
  );
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const header = [
  '# Benchmark results',
  '',
  `Written by \`make bench\` (bench/run.ts) on ${new Date().toISOString()} at commit ${commit}: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}, Node ${process.version}.`,
  'Each section names the run it comes from. Machines are noisy: each table gives medians, and the HTTP table gives ratios to a bare uWS route measured in the same run.',
  'What each optimisation brought: [docs/performance.md](../docs/performance.md); investigations and comparisons between builds: [docs/investigations/](../docs/investigations/README.md).',
  '',
].join('\n');
writeFileSync(resultsPath, `${header}\n${sections.join('\n')}`);
process.stderr.write('bench: wrote bench/RESULTS.md\n');
