/**
 * Engine benchmarks on deterministic synthetic data.
 *   node --import tsx bench/engine.ts [sizes...] [--shards N] [--tokenize strict|forward] [--queries N]
 * e.g. `node --import tsx bench/engine.ts 100000 1000000`. Prints a markdown table per size.
 * Exact-lookup rates come from benchmark.js; latency percentiles from timing each operation
 * (process.hrtime, whose own ~50 ns are included). Fuzzy queries are distinct typo variants of
 * listed names, so FlexSearch's caches do not flatter them.
 */
import Benchmark from 'benchmark';
import { Engine, type ScreenHit } from '../engine/engine.js';
import { canonicalKey } from '../engine/normalize/index.js';
import type { EntityRecord } from '../engine/model.js';
import { rng, Synth, syntheticRecords, SYNTHETIC_LISTS, typo } from './synthetic.js';

interface Args {
  sizes: number[];
  shards?: number;
  tokenize: 'strict' | 'forward';
  queries: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { sizes: [], tokenize: 'strict', queries: 2000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--shards') args.shards = Number(argv[++i]);
    else if (a === '--tokenize') args.tokenize = argv[++i] as Args['tokenize'];
    else if (a === '--queries') args.queries = Number(argv[++i]);
    else args.sizes.push(Number(a.replace(/_/g, '')));
  }
  if (args.sizes.length === 0) args.sizes.push(100_000);
  return args;
}

/** Keeps every k-th active value of the interesting types while the records stream past. */
class Sampler {
  readonly crypto: { value: string; key: string; id: number }[] = [];
  readonly names: { value: string; id: number }[] = [];
  readonly ids: { value: string; id: number }[] = [];
  constructor(private readonly every: number) {}

  *tap(records: Iterable<EntityRecord>): Generator<EntityRecord> {
    let id = 0;
    for (const r of records) {
      if (r.removed_at === null && id % this.every === 0) {
        if (r.entity_type === 'crypto_address') this.crypto.push({ value: r.value, key: canonicalKey('crypto_address', r.value)!, id });
        else if (r.entity_type === 'name') this.names.push({ value: r.value, id });
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

function fmtRate(hz: number): string {
  return hz >= 1e6 ? `${(hz / 1e6).toFixed(2)} M/s` : `${(hz / 1e3).toFixed(1)} k/s`;
}

function fmtUs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(2)} ms`;
}

function hz(name: string, fn: () => void): number {
  let rate = 0;
  new Benchmark.Suite()
    .add(name, fn, { minSamples: 20, maxTime: 2 })
    .on('cycle', (e: Benchmark.Event) => (rate = e.target.hz ?? 0))
    .run({ async: false });
  return rate;
}

/** Per-operation latency of a synchronous call, in ms. */
function latencies(n: number, fn: (i: number) => void): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    fn(i);
    out[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  return out.sort();
}

async function asyncLatencies(n: number, fn: (i: number) => Promise<unknown>): Promise<Float64Array> {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    out[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  return out.sort();
}

async function run(size: number, args: Args): Promise<[string, string][]> {
  const rows: [string, string][] = [];
  global.gc?.();
  const t0 = performance.now();
  let count = 0;
  for (const r of syntheticRecords(size, 1)) count += r.value.length > 0 ? 1 : 0;
  const genMs = performance.now() - t0;
  rows.push(['generate records alone', `${(genMs / 1000).toFixed(2)} s (${count})`]);

  const engine = await Engine.create({ shards: args.shards, tokenize: args.tokenize });
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const sampler = new Sampler(Math.max(1, Math.floor(size / 50_000)));
  const loaded = await engine.load({ lists: SYNTHETIC_LISTS, records: sampler.tap(syntheticRecords(size, 1)) });
  global.gc?.();
  const rss1 = process.memoryUsage().rss;
  rows.push(['load + index (incl. generating)', `${(loaded.ms / 1000).toFixed(2)} s`]);
  rows.push(['load + index, engine only (est.)', `${((loaded.ms - genMs) / 1000).toFixed(2)} s`]);
  rows.push(['RSS after load (process)', `${(rss1 / 2 ** 20).toFixed(0)} MiB`]);
  rows.push(['RSS growth per entity', `${((rss1 - rss0) / size).toFixed(0)} B`]);

  const crypto = sampler.crypto;
  const lists = SYNTHETIC_LISTS.map((l) => l.slug);
  let k = 0;
  let sink = 0;
  rows.push([
    'exact lookup, calling thread (hits)',
    fmtRate(
      hz('lookup', () => {
        sink += engine.lookup('crypto_address', crypto[k++ % crypto.length].key).length;
      }),
    ),
  ]);
  const lookupLat = latencies(200_000, (i) => (sink += engine.lookup('crypto_address', crypto[i % crypto.length].key).length));
  rows.push(['exact lookup p50 / p99', `${fmtUs(percentile(lookupLat, 0.5))} / ${fmtUs(percentile(lookupLat, 0.99))}`]);
  rows.push([
    'screenExact crypto, synthetic mix (normalize + probe + hits)',
    fmtRate(
      hz('screenExact', () => {
        sink += engine.screenExact({ kind: 'crypto', value: crypto[k++ % crypto.length].value, lists })!.length;
      }),
    ),
  ]);
  const evm = crypto.filter((c) => c.value.startsWith('0x'));
  rows.push([
    'screenExact crypto, EVM addresses only',
    fmtRate(
      hz('screenExact evm', () => {
        sink += engine.screenExact({ kind: 'crypto', value: evm[k++ % evm.length].value, lists })!.length;
      }),
    ),
  ]);
  const screenN = 200_000;
  let t = performance.now();
  for (let i = 0; i < screenN; i++) sink += (await engine.screen({ kind: 'crypto', value: crypto[i % crypto.length].value, lists })).length;
  rows.push(['screen crypto, awaited one by one', fmtRate(screenN / ((performance.now() - t) / 1000))]);
  t = performance.now();
  for (let i = 0; i < screenN; i += 1000) {
    const batch: Promise<ScreenHit[]>[] = [];
    for (let j = i; j < i + 1000; j++) batch.push(engine.screen({ kind: 'crypto', value: crypto[j % crypto.length].value, lists }));
    for (const hits of await Promise.all(batch)) sink += hits.length;
  }
  rows.push(['screen crypto, 1000 concurrent', fmtRate(screenN / ((performance.now() - t) / 1000))]);

  const s = new Synth(rng(7));
  const names = sampler.names;
  const q = Math.min(args.queries, names.length);
  let found = 0;
  const fuzzyLat = await asyncLatencies(q, async (i) => {
    const n = names[(i * 7919) % names.length];
    const hits = await engine.search({ q: typo(n.value, s), mode: 'fuzzy', lists, limit: 10 });
    if (hits.some((h) => h.entity.id === n.id)) found++;
  });
  rows.push([`fuzzy name search p50 / p99 (${q} distinct typo queries)`, `${fmtUs(percentile(fuzzyLat, 0.5))} / ${fmtUs(percentile(fuzzyLat, 0.99))}`]);
  rows.push(['fuzzy name search recall (original in top 10)', `${((found / q) * 100).toFixed(1)} %`]);

  const ids = sampler.ids;
  const qi = Math.min(args.queries, ids.length);
  found = 0;
  const idLat = await asyncLatencies(qi, async (i) => {
    const n = ids[(i * 7919) % ids.length];
    const hits = await engine.screen({ kind: 'id', value: n.value.slice(0, -1) + (n.value.endsWith('7') ? '8' : '7'), lists });
    if (hits.some((h) => h.entity.id === n.id)) found++;
  });
  rows.push([`screen id (1 substitution) p50 / p99 (${qi} queries)`, `${fmtUs(percentile(idLat, 0.5))} / ${fmtUs(percentile(idLat, 0.99))}`]);
  rows.push(['screen id recall', `${((found / qi) * 100).toFixed(1)} %`]);

  t = performance.now();
  const regexHits = await engine.search({ q: 'zz[0-9]+\\.io', mode: 'regex', lists, limit: 25, budgetMs: 10_000 });
  rows.push(['regex search (rare pattern, full scan)', `${(performance.now() - t).toFixed(1)} ms, ${regexHits.length} hits`]);

  if (sink < 0) console.log(sink);
  await engine.close();
  return rows;
}

const args = parseArgs(process.argv.slice(2));
const results: [number, [string, string][]][] = [];
for (const size of args.sizes) results.push([size, await run(size, args)]);
const header = `| operation | ${results.map(([n]) => n.toLocaleString('en-US')).join(' | ')} |`;
console.log(`\nEngine benchmark, shards=${args.shards ?? 'cores'}, tokenize=${args.tokenize}, node ${process.version}\n`);
console.log(header);
console.log(`|---|${results.map(() => '---').join('|')}|`);
for (let r = 0; r < results[0][1].length; r++) console.log(`| ${results[0][1][r][0]} | ${results.map(([, rows]) => rows[r][1]).join(' | ')} |`);
