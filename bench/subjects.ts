/**
 * Import of a customer's book (issue #39), after `node scripts/build.mjs`:
 *
 *   node dist/bench/subjects.js [--rows N] [--postgres]
 *     An import of N (default 1,000,000) synthetic people over HTTP (NDJSON, streamed) into a
 *     service in this process with the real lists loaded: spooled, upserted by external id,
 *     screened (names with birth date and country) and the matches' alerts opened. Names are
 *     built from real first and last names (the negatives of /work/shared/data/names and the US
 *     Congress PEP sample), one in three with a middle name; half the people have a birth date.
 *     Target: done in ≤ 120 s with RSS growth ≤ 1.5 GiB. Run it with the service's V8 flags
 *     (src/node-flags.json), as `make bench` does. Reports the time to the 202 (body received) and
 *     to the job's end, the CPU time of the process (every thread) and its RSS before, at its
 *     peak and after. With --postgres the control plane is a throwaway PostgreSQL server
 *     (scripts/pg-test-server.sh) instead of the embedded PGlite, whose statements run on the
 *     service's main thread.
 *
 * Prints a markdown table.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../src/config.js';
import { createService, type Service } from '../src/service.js';
import { prepareDataDir, testEnv, createCustomerToken } from '../harness/service.js';
import { REPO_ROOT, SHARED_DATA } from '../harness/paths.js';
import { rng } from '../harness/random.js';

const argValue = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const rows = Number(argValue('rows') ?? 1_000_000);
const postgres = process.argv.includes('--postgres');
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** First and last names of real people: the negatives file's columns, and the PEP sample's full names split. */
function realNames(): { first: string[]; last: string[] } {
  const first = new Set<string>();
  const last = new Set<string>();
  const negatives = readFileSync(join(SHARED_DATA, 'names', 'negatives-us-small.csv'), 'utf8')
    .split('\n')
    .slice(1);
  for (const line of negatives) {
    const [, f, , l] = line.split(',');
    if (f) first.add(f.trim());
    if (l) last.add(l.trim());
  }
  for (const line of readFileSync(join(SHARED_DATA, 'pep', 'us_congress_senzing.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const full = (JSON.parse(line) as { NAMES?: { NAME_FULL?: string }[] }).NAMES?.[0]?.NAME_FULL;
    const parts = full?.split(/\s+/).filter((p) => p.length > 1 && !p.endsWith('.')) ?? [];
    if (parts.length >= 2) {
      first.add(parts[0]);
      last.add(parts[parts.length - 1]);
    }
  }
  return { first: [...first], last: [...last] };
}

const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'ES', 'IT', 'NL', 'BR', 'IN', 'JP'];

async function writeBook(path: string): Promise<number> {
  const { first, last } = realNames();
  const r = rng(39);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const out = createWriteStream(path);
  let bytes = 0;
  for (let i = 0; i < rows; i++) {
    const middle = r() < 1 / 3 ? ` ${pick(first)}` : '';
    const row: Record<string, unknown> = {
      external_id: `B-${i}`,
      type: 'person',
      names: [`${pick(first)}${middle} ${pick(last)}`],
      countries: [pick(COUNTRIES)],
    };
    if (i % 2 === 0) {
      const y = 1940 + Math.floor(r() * 65);
      const m = 1 + Math.floor(r() * 12);
      const d = 1 + Math.floor(r() * 28);
      row.birth_date = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    }
    const line = JSON.stringify(row) + '\n';
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

interface Job {
  id: number;
  state: string;
  rows_read: number;
  taken: number;
  refused: number;
  alerts_opened: number;
  error: string | null;
}

const dataDir = await prepareDataDir();
const work = mkdtempSync(join(tmpdir(), 'bench-subjects-'));
const pgScript = join(REPO_ROOT, 'scripts', 'pg-test-server.sh');
// Not under `work`: the server runs as the postgres user, who cannot enter a 0700 directory of root's.
const pgDir = join(tmpdir(), `screening-pg-bench-${process.pid}`);
let service: Service | null = null;
try {
  const databaseUrl = postgres ? execFileSync(pgScript, ['start', pgDir], { encoding: 'utf8' }).trim() : undefined;
  service = await createService(
    loadConfig(
      testEnv(dataDir, {
        ENGINE_SHARDS: undefined,
        DATABASE_URL: databaseUrl,
        SUBJECTS_PER_CUSTOMER: String(Math.max(rows, 1_000_000)),
        LOG_LEVEL: process.env.BENCH_LOG ?? 'silent',
      }),
    ),
  );
  await service.lists().idle();
  const port = await service.listen();
  const root = `http://127.0.0.1:${port}`;
  const { token } = await createCustomerToken(root, rows, 'Bench book');
  const auth = { authorization: `Bearer ${token}` };
  const file = join(work, 'book.ndjson');
  const bytes = await writeBook(file);

  global.gc?.();
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 100);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(`${root}/api/v1/account/subjects/import`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/x-ndjson' },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const accepted = performance.now() - t0;
  if (res.status !== 202) throw new Error(`import: ${res.status} ${await res.text()}`);
  let job = (await res.json()) as Job;
  const location = res.headers.get('location')!;
  while (job.state === 'running') {
    await new Promise((r) => setTimeout(r, 250));
    job = (await (await fetch(`${root}${location}`, { headers: auth })).json()) as Job;
  }
  const total = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  global.gc?.();
  const rss1 = process.memoryUsage.rss();
  if (job.state !== 'done') throw new Error(`import job failed: ${JSON.stringify(job)}`);

  console.log(
    `Import of ${rows.toLocaleString('en-US')} synthetic people (NDJSON, ${mib(bytes)}; real first and last names, half with a birth date) into one customer's book, service in this process with the real lists loaded (1 engine shard per core), ${postgres ? 'PostgreSQL (a throwaway server on this machine)' : 'embedded PGlite'}. Load average after: ${load()}.\n`,
  );
  console.log(
    '| rows | taken | alerts opened | 202 (body received) | done (upserted, screened, alerts stored) | subjects/s | CPU (all threads) | RSS before / peak / after | RSS growth (peak) |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---|---:|');
  console.log(
    `| ${rows.toLocaleString('en-US')} | ${job.taken.toLocaleString('en-US')} | ${job.alerts_opened.toLocaleString('en-US')} | ${(accepted / 1000).toFixed(1)} s | ${(total / 1000).toFixed(1)} s | ${Math.round(rows / (total / 1000)).toLocaleString('en-US')} | ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s | ${mib(rss0)} / ${mib(peak)} / ${mib(rss1)} | ${mib(peak - rss0)} |`,
  );
  console.log('\nTarget: ≤ 120 s for 1,000,000 subjects; RSS growth ≤ 1.5 GiB.');
} finally {
  await service?.close();
  if (postgres) execFileSync(pgScript, ['stop', pgDir]);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
