/**
 * Engine benchmarks on deterministic synthetic data (harness/synthetic.ts: the real lists' entity-type
 * mix, valid address checksums).
 *   node --expose-gc --import tsx bench/engine.ts [sizes...] [--shards N] [--tokenize strict|forward]
 *        [--queries N] [--runs N]
 * e.g. `node --expose-gc --max-old-space-size=8192 --import tsx bench/engine.ts 100000 1000000 10000000`
 * (3,000,000 entities is the smallest size with over 1M names, the fuzzy-search target's scale).
 * Prints a markdown table (one column per size, the issue's targets beside) to paste into
 * bench/RESULTS.md, headed by the date, machine, Node version and load averages.
 *
 * Method. Throughputs are tight loops over distinct sampled values, median of `--runs` runs.
 * Latency percentiles time each operation with performance.now() (its own ~30 ns included),
 * after 100 unmeasured queries of other values (the shards compile their query code on the
 * first ones). Fuzzy queries are distinct typo variants of listed names, so no cache flatters
 * them; the name queries (search and screening) are timed twice, right after those 100 and after
 * 3000 more (see STEADY_WARM_UP), each series and warm-up on names of its own. Load time is wall
 * clock from the first record to a queryable generation, records generated on the fly; the CPU
 * seconds of all threads and the generator's own time (measured alone beforehand) are given
 * beside it, since on a shared machine the wall clock depends on what else runs, and the
 * service's loaders feed the engine instead. Memory is the process RSS (the
 * shard workers are threads of it): its growth over an idle engine, per entity, and the peak.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { Engine, type Hit } from '../engine/engine.js';
import { canonicalKey } from '../engine/normalize/index.js';
import type { EntityRecord } from '../engine/model.js';
import { rng } from '../harness/random.js';
import { Synth, syntheticRecords, SYNTHETIC_LISTS, typo } from '../harness/synthetic.js';

interface Args {
  sizes: number[];
  shards?: number;
  tokenize: 'strict' | 'forward';
  queries: number;
  runs: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { sizes: [], tokenize: 'strict', queries: 2000, runs: 5 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--shards') args.shards = Number(argv[++i]);
    else if (a === '--tokenize') args.tokenize = argv[++i] as Args['tokenize'];
    else if (a === '--queries') args.queries = Number(argv[++i]);
    else if (a === '--runs') args.runs = Number(argv[++i]);
    else args.sizes.push(Number(a.replace(/_/g, '')));
  }
  if (args.sizes.length === 0) args.sizes.push(100_000);
  return args;
}

/**
 * `s` as a request body's JSON parser hands it over: one flat string. The generator builds values
 * by concatenation, which V8 keeps as a rope (ConsString), and every `charCodeAt` of one goes through its
 * parts: hashing a 42-character address key took 147 ns as a rope against 106 ns flat, and a
 * lookup that missed ran 15% faster on flat keys, one that hit 4% (docs/investigations/2026-11-28-exact-lookups.md).
 */
function asParsed(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** Keeps every k-th active value of the sampled types while the records stream past. */
class Sampler {
  readonly crypto: { value: string; key: string; id: number }[] = [];
  readonly names: SampledName[] = [];
  readonly ids: { value: string; id: number }[] = [];
  /** Name entities loaded (active and delisted: the name index holds both). */
  nameCount = 0;
  constructor(private readonly every: number) {}

  *tap(records: Iterable<EntityRecord>): Generator<EntityRecord> {
    let id = 0;
    for (const r of records) {
      if (r.entity_type === 'name') this.nameCount++;
      if (r.removed_at === null && id % this.every === 0) {
        if (r.entity_type === 'crypto_address')
          this.crypto.push({ value: asParsed(r.value), key: asParsed(canonicalKey('crypto_address', r.value)!), id });
        else if (r.entity_type === 'name')
          this.names.push({ value: r.value, id, party: `${r.list}:${String(r.metadata.party_id)}` });
        else if (r.entity_type === 'government_id') this.ids.push({ value: r.value, id });
      }
      id++;
      yield r;
    }
  }
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function fmtRate(hz: number): string {
  return hz >= 1e6 ? `${(hz / 1e6).toFixed(2)} M/s` : `${(hz / 1e3).toFixed(1)} k/s`;
}

function fmtMs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(2)} ms`;
}

function fmtMiB(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

/**
 * Operations per second of `fn(i)` over `n` calls, median of `runs` runs after a warm-up run: by
 * the wall clock, and per CPU-second of the process (the shards idle meanwhile), which other
 * processes on a shared machine do not deflate.
 */
function rate(runs: number, n: number, fn: (i: number) => void): string {
  return measure(runs, n, fn).text;
}

/** `rate`, with the median rate per CPU-second as a number (ratios between rows of one run). */
function measure(runs: number, n: number, fn: (i: number) => void): { text: string; perCpu: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r <= runs; r++) {
    const c = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    if (r === 0) continue;
    wall.push(n / ((performance.now() - t) / 1000));
    cpu.push(n / cpuSeconds(process.cpuUsage(c)));
  }
  return { text: `${fmtRate(median(wall))} (${fmtRate(median(cpu))} per CPU-s)`, perCpu: median(cpu) };
}

/** Per-operation latency of a synchronous call, in ms, sorted. */
function latencies(n: number, fn: (i: number) => void): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn(i);
    out[i] = performance.now() - t;
  }
  return out.sort();
}

async function asyncLatencies(n: number, fn: (i: number) => Promise<unknown>): Promise<Float64Array> {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out[i] = performance.now() - t;
  }
  return out.sort();
}

const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
/** Unmeasured queries before a latency series: the shards compile their query code on the first ones. */
const WARM_UP = 100;
/**
 * Further distinct name queries before the steady-state series. V8 goes on compiling the shards'
 * name code for thousands of distinct queries: at 1.08M names, the 2000 queries after the first
 * 100 saw 198 optimizations and 33 deoptimizations (the compiler's threads competing with the
 * shards for the two cores), the 2000 after 3000 more 60 and 5; `screenName`'s p50 / p99 went
 * from 1.03-1.22 / 4.95-5.76 ms to 0.86-0.90 / 4.09-4.81 ms (three runs each,
 * docs/investigations/2026-11-27-screen-name-tail-postings-filter.md).
 */
const STEADY_WARM_UP = 3000;

interface SampledName {
  value: string;
  id: number;
  party: string;
}

/**
 * Latencies (sorted, ms) of `query` on distinct typo variants of sampled names: `first`, the
 * `n` queries after WARM_UP others (what a new process answers first), and `steady`, `n` more
 * after STEADY_WARM_UP others; each series and warm-up takes names of its own (while the sample
 * lasts). `query` returns whether it found what the name stands for; `found` counts both series.
 */
async function typoSeries(
  names: SampledName[],
  n: number,
  seed: number,
  query: (name: SampledName, q: string) => Promise<boolean>,
) {
  const typos = new Synth(rng(seed));
  let k = 0;
  const next = () => names[(k++ * 7919) % names.length];
  let found = 0;
  const series = () =>
    asyncLatencies(n, async () => {
      const name = next();
      if (await query(name, typo(name.value, typos))) found++;
    });
  const warmUp = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const name = next();
      await query(name, typo(name.value, typos));
    }
  };
  await warmUp(WARM_UP);
  const first = await series();
  await warmUp(STEADY_WARM_UP);
  const steady = await series();
  return { first, steady, found };
}

const p50p99 = (lat: Float64Array) => `${fmtMs(percentile(lat, 0.5))} / ${fmtMs(percentile(lat, 0.99))}`;

type Row = [operation: string, target: string, value: string];

async function run(size: number, args: Args): Promise<Row[]> {
  const rows: Row[] = [];
  const load0 = loadavg()[0];
  let t = performance.now();
  let count = 0;
  for (const r of syntheticRecords(size, 1, { parties: true })) count += r.value.length > 0 ? 1 : 0;
  const genMs = performance.now() - t;

  const engine = await Engine.create({ shards: args.shards, tokenize: args.tokenize });
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const sampler = new Sampler(Math.max(1, Math.floor(size / 50_000)));
  const cpu0 = process.cpuUsage();
  const loaded = await engine.load({
    lists: SYNTHETIC_LISTS,
    records: sampler.tap(syntheticRecords(size, 1, { parties: true })),
  });
  const cpu = cpuSeconds(process.cpuUsage(cpu0));
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  global.gc?.();
  const rss1 = process.memoryUsage().rss;
  const heap = process.memoryUsage().heapUsed;
  const peak = process.resourceUsage().maxRSS * 1024;
  rows.push([
    'load + index, wall (records generated on the fly)',
    size >= 10_000_000 ? '≤ 90 s' : '',
    `${(loaded.ms / 1000).toFixed(2)} s`,
  ]);
  rows.push(['  records loaded (the entities and their parties)', '', loaded.entities.toLocaleString('en-US')]);
  rows.push(['  CPU seconds, all threads', '', `${cpu.toFixed(1)} s`]);
  rows.push(['  generating the records alone (one thread)', '', `${(genMs / 1000).toFixed(2)} s (${count})`]);
  rows.push(["  the engine's CPU seconds (all threads less generating)", '', `${(cpu - genMs / 1000).toFixed(1)} s`]);
  rows.push(['RSS after load (process, incl. shards)', size >= 10_000_000 ? '≤ 8 GiB' : '', fmtMiB(rss1)]);
  rows.push(['  RSS growth per entity', '', `${((rss1 - rss0) / size).toFixed(0)} B`]);
  rows.push(['  peak RSS', '', fmtMiB(peak)]);
  rows.push(['  calling-thread heap per entity', '', `${(heap / size).toFixed(0)} B`]);

  const crypto = sampler.crypto;
  const lists = SYNTHETIC_LISTS.map((l) => l.slug);
  const s = new Synth(rng(99));
  const absent = Array.from({ length: 50_000 }, () => asParsed('0x' + s.chars('0123456789abcdef', 40)));
  let sink = 0;
  const n = 1_000_000;
  rows.push([
    'exact lookup, calling thread, hits',
    '≥ 5 M/s',
    rate(args.runs, n, (i) => (sink += engine.lookup('crypto_address', crypto[i % crypto.length].key).length)),
  ]);
  rows.push([
    'exact lookup, calling thread, misses',
    '≥ 5 M/s',
    rate(args.runs, n, (i) => (sink += engine.lookup('crypto_address', absent[i % absent.length]).length)),
  ]);
  const hitLat = latencies(
    300_000,
    (i) => (sink += engine.lookup('crypto_address', crypto[i % crypto.length].key).length),
  );
  rows.push([
    '  hits p50 / p99',
    'p99 ≤ 5 µs',
    `${fmtMs(percentile(hitLat, 0.5))} / ${fmtMs(percentile(hitLat, 0.99))}`,
  ]);
  const q = (value: string) => ({ kind: 'crypto' as const, value, lists });
  const listedNow = measure(
    args.runs,
    n,
    (i) => (sink += engine.screenExact(q(crypto[i % crypto.length].value))!.length),
  );
  rows.push(['screenExact crypto (public API), listed addresses', '≥ 2 M/s', listedNow.text]);
  const unlistedNow = measure(args.runs, n, (i) => (sink += engine.screenExact(q(absent[i % absent.length]))!.length));
  rows.push(['screenExact crypto (public API), unlisted addresses', '≥ 2 M/s', unlistedNow.text]);
  // As of a past date: every listing period is a candidate, checked against the time (2% of the
  // synthetic entities are delisted during 2025, so mid-2025 falls inside some periods).
  const asOf = Date.parse('2025-05-20T00:00:00Z');
  const qa = (value: string) => ({ kind: 'crypto' as const, value, lists, asOf });
  const listedAsOf = measure(
    args.runs,
    n,
    (i) => (sink += engine.screenExact(qa(crypto[i % crypto.length].value))!.length),
  );
  rows.push([
    'screenExact crypto as of a past date, listed addresses',
    '≤ 3× current',
    `${listedAsOf.text}; ${(listedNow.perCpu / listedAsOf.perCpu).toFixed(2)}× the current lookup's CPU`,
  ]);
  const unlistedAsOf = measure(
    args.runs,
    n,
    (i) => (sink += engine.screenExact(qa(absent[i % absent.length]))!.length),
  );
  rows.push([
    'screenExact crypto as of a past date, unlisted addresses',
    '≤ 3× current',
    `${unlistedAsOf.text}; ${(unlistedNow.perCpu / unlistedAsOf.perCpu).toFixed(2)}× the current lookup's CPU`,
  ]);
  const screenN = 200_000;
  const screenRates: number[] = [];
  for (let r = 0; r < args.runs; r++) {
    t = performance.now();
    for (let i = 0; i < screenN; i += 1000) {
      const batch: Promise<Hit[]>[] = [];
      for (let j = i; j < i + 1000; j++) batch.push(engine.screen(q(crypto[j % crypto.length].value)));
      for (const hits of await Promise.all(batch)) sink += hits.length;
    }
    screenRates.push(screenN / ((performance.now() - t) / 1000));
  }
  rows.push(['screen crypto (async API), listed, 1000 concurrent', '', fmtRate(median(screenRates))]);

  const names = sampler.names;
  const fq = Math.min(args.queries, names.length);
  const manyNames = sampler.nameCount >= 1_000_000;
  const nameTarget = manyNames ? '≤ 1 ms / ≤ 5 ms at ≥ 1M names' : '';
  const fuzzy = await typoSeries(names, fq, 7, async (name, q) =>
    (await engine.search({ q, mode: 'fuzzy', lists, limit: 10 })).some((h) => h.entity.id === name.id),
  );
  rows.push([`fuzzy search p50 / p99, ${fq} distinct typo queries after ${WARM_UP} others`, '', p50p99(fuzzy.first)]);
  rows.push([`  the same after ${STEADY_WARM_UP} more (steady state)`, nameTarget, p50p99(fuzzy.steady)]);
  rows.push(['  names in the index', manyNames ? '≥ 1M' : '', sampler.nameCount.toLocaleString('en-US')]);
  rows.push(['  recall (listed name in the top 10)', '', `${((fuzzy.found / (2 * fq)) * 100).toFixed(1)} %`]);

  // Name screening: the same kind of typo queries, parties scored (every name, evidence) in the shards.
  const partyOf = (h: { entity: { list: string; value: string } }) => `${h.entity.list}:${h.entity.value}`;
  const screening = await typoSeries(names, fq, 9, async (name, q) =>
    (await engine.screenName({ name: q, lists, threshold: 0.7, limit: 5 })).some((h) => partyOf(h) === name.party),
  );
  rows.push([
    `name screening (screenName) p50 / p99, ${fq} distinct typo queries after ${WARM_UP} others`,
    '',
    p50p99(screening.first),
  ]);
  rows.push([`  the same after ${STEADY_WARM_UP} more (steady state)`, nameTarget, p50p99(screening.steady)]);
  rows.push([
    "  recall (the name's party among the matches)",
    '',
    `${((screening.found / (2 * fq)) * 100).toFixed(1)} %`,
  ]);

  const ids = sampler.ids;
  const iq = Math.min(args.queries, ids.length);
  for (let i = 0; i < WARM_UP; i++)
    await engine.screen({ kind: 'id', value: ids[ids.length - 1 - (i % ids.length)].value.slice(0, -1) + '0', lists });
  let found = 0;
  const idLat = await asyncLatencies(iq, async (i) => {
    const id = ids[(i * 7919) % ids.length];
    const hits = await engine.screen({
      kind: 'id',
      value: id.value.slice(0, -1) + (id.value.endsWith('7') ? '8' : '7'),
      lists,
    });
    if (hits.some((h) => h.entity.id === id.id)) found++;
  });
  rows.push([
    `screen id, one substitution, p50 / p99 (${iq} queries)`,
    '',
    `${fmtMs(percentile(idLat, 0.5))} / ${fmtMs(percentile(idLat, 0.99))}`,
  ]);
  rows.push(['  recall', '', `${((found / iq) * 100).toFixed(1)} %`]);
  const idAsOfLat = await asyncLatencies(iq, async (i) => {
    const id = ids[(i * 7919) % ids.length];
    await engine.screen({
      kind: 'id',
      value: id.value.slice(0, -1) + (id.value.endsWith('7') ? '8' : '7'),
      lists,
      asOf,
    });
  });
  rows.push([
    `screen id as of a past date, one substitution, p50 / p99 (${iq} queries)`,
    '≤ 3× current',
    `${fmtMs(percentile(idAsOfLat, 0.5))} / ${fmtMs(percentile(idAsOfLat, 0.99))}; p50 ${(percentile(idAsOfLat, 0.5) / percentile(idLat, 0.5)).toFixed(2)}× current`,
  ]);

  t = performance.now();
  const regexHits = await engine.search({ q: 'zz[0-9]+\\.io', mode: 'regex', lists, limit: 25, budgetMs: 600_000 });
  const regexMs = performance.now() - t;
  rows.push([
    'regex search, full scan (rare pattern, no time budget)',
    '',
    `${fmtMs(regexMs)}, ${fmtRate(size / (regexMs / 1000))} values, ${regexHits.length} hits`,
  ]);
  rows.push(['load average (1 min) before / after', '', `${load0.toFixed(2)} / ${loadavg()[0].toFixed(2)}`]);

  if (sink < 0) console.log(sink);
  await engine.close();
  return rows;
}

const args = parseArgs(process.argv.slice(2));
const results: [number, Row[]][] = [];
for (const size of args.sizes) {
  process.stderr.write(`engine bench: ${size.toLocaleString('en-US')} entities\n`);
  results.push([size, await run(size, args)]);
  global.gc?.();
}
const cpu = cpus();
console.log(
  `Engine benchmark, ${new Date().toISOString()}: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `Node ${process.version}, shards=${args.shards ?? 'cores'}, tokenize=${args.tokenize}, runs=${args.runs}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}.\n`,
);
console.log(`| operation | target | ${results.map(([n]) => n.toLocaleString('en-US')).join(' | ')} |`);
console.log(`|---|---|${results.map(() => '---').join('|')}|`);
for (let r = 0; r < results[0][1].length; r++) {
  const [op, target] = results[0][1][r];
  const target10M = results.map(([, rows]) => rows[r][1]).find((x) => x) ?? target;
  console.log(`| ${op} | ${target10M} | ${results.map(([, rows]) => rows[r][2]).join(' | ')} |`);
}
