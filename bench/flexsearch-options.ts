/**
 * FlexSearch as the name index (issue #21, section 4): its options side by side on the same names,
 * each index built alone in this process and measured by the heap it adds and the time it takes
 * per name; then how well each finds the listed name of a typo query among 100 candidates and how
 * fast; then whether FlexSearch's export/import saves rebuilding the production index at start.
 *   node --expose-gc --import tsx bench/flexsearch-options.ts [--entities N] [--queries N]
 * Names: those of `syntheticRecords(N)` (the engine benchmark's generator: the real lists' entity
 * mix, names in several scripts). Prints a markdown section on stdout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { Charset, Index, type IndexOptions } from 'flexsearch';
import { indexTerms, prepareName } from '../engine/names/index.js';
import { CandidateIndex } from '../engine/shards/candidate-index.js';
import { syntheticRecords, Synth, typo } from '../harness/synthetic.js';
import { rng } from '../harness/random.js';
import { SHARED_DATA } from '../harness/paths.js';
import { LISTS, parseListFromDir } from '../loaders/registry.js';
import { median } from './wrk.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ENTITIES = arg('entities', 300_000);
const QUERIES = arg('queries', 1000);
const CANDIDATES = 100;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

interface FlexIndex {
  add(id: number, content: string): unknown;
  search(query: string, options: { limit: number; suggest: boolean }): number[];
}

/** One configuration: how it is made, and whether it reads our terms or the raw names. */
interface Config {
  name: string;
  options: IndexOptions;
  ours: boolean;
  suggest: boolean;
}

/**
 * `--config I`: this process measures configuration I alone and prints its row (each index is
 * measured in a fresh process: FlexSearch's structures freed by the previous one otherwise blur
 * the heap the next adds).
 */
const CONFIG = arg('config', -1);
// First, while the heap holds nothing else: the RSS the index adds is then its own.
const realSection = CONFIG < 0 ? await realLists() : '';

const names: string[] = [];
for (const r of syntheticRecords(ENTITIES, 1)) if (r.entity_type === 'name') names.push(r.value);

let t = performance.now();
const terms = names.map((n) => indexTerms(prepareName(n)));
const prepareUs = ((performance.now() - t) * 1000) / names.length;
const termsPerName = terms.reduce((s, x) => s + x.length, 0) / names.length;

const synth = new Synth(rng(11));
const queries = Array.from({ length: Math.min(QUERIES, names.length) }, (_, i) => {
  const doc = (i * 7919) % names.length;
  const text = typo(names[doc], synth);
  return { doc, text, terms: indexTerms(prepareName(text)) };
});

/** The terms the encoder hands FlexSearch next (ours), set before each add or search. */
let current: string[] = [];
const CONTENT = '\u0001';
const ourEncoder = { encode: () => current };

const configs: Config[] = [
  {
    name: 'production: strict, resolution 1, our encoder, fastupdate off, cache off',
    options: { tokenize: 'strict', resolution: 1, fastupdate: false, cache: false, ...ourEncoder },
    ours: true,
    suggest: true,
  },
  {
    name: 'resolution 9 (FlexSearch default)',
    options: { tokenize: 'strict', resolution: 9, fastupdate: false, cache: false, ...ourEncoder },
    ours: true,
    suggest: true,
  },
  {
    name: 'tokenize forward (FlexSearch adds prefixes)',
    options: { tokenize: 'forward', resolution: 1, fastupdate: false, cache: false, ...ourEncoder },
    ours: true,
    suggest: true,
  },
  {
    name: 'fastupdate on (register for removal)',
    options: { tokenize: 'strict', resolution: 1, fastupdate: true, cache: false, ...ourEncoder },
    ours: true,
    suggest: true,
  },
  {
    name: 'context (depth 1, bidirectional)',
    options: {
      tokenize: 'strict',
      resolution: 1,
      fastupdate: false,
      cache: false,
      context: { depth: 1, bidirectional: true, resolution: 1 },
      ...ourEncoder,
    },
    ours: true,
    suggest: true,
  },
  {
    name: 'production, search without suggest (all terms required)',
    options: { tokenize: 'strict', resolution: 1, fastupdate: false, cache: false, ...ourEncoder },
    ours: true,
    suggest: false,
  },
  {
    name: "FlexSearch's encoder LatinBalance on the raw names, resolution 1",
    options: { tokenize: 'strict', resolution: 1, fastupdate: false, cache: false, encoder: Charset.LatinBalance },
    ours: false,
    suggest: true,
  },
  {
    name: 'FlexSearch defaults (preset default) on the raw names',
    options: { preset: 'default', fastupdate: false },
    ours: false,
    suggest: true,
  },
];

function measure(c: Config): string {
  const h0 = heap();
  const t = performance.now();
  const index = new Index(c.options) as unknown as FlexIndex;
  for (let d = 0; d < names.length; d++) {
    if (c.ours) {
      if (terms[d].length === 0) continue;
      current = terms[d];
      index.add(d, CONTENT);
    } else index.add(d, names[d]);
  }
  const buildUs = ((performance.now() - t) * 1000) / names.length;
  const bytes = (heap() - h0) / names.length;
  let found = 0;
  const lat: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    current = q.terms;
    const hits = index.search(c.ours ? CONTENT : q.text, { limit: CANDIDATES, suggest: c.suggest });
    lat.push(performance.now() - s);
    if (hits.includes(q.doc)) found++;
  }
  return `| ${c.name} | ${bytes.toFixed(0)} B | ${buildUs.toFixed(2)} µs | ${((found / queries.length) * 100).toFixed(1)} % | ${(median(lat) * 1000).toFixed(0)} µs / ${(percentile(lat, 0.99) * 1000).toFixed(0)} µs |`;
}

if (CONFIG >= 0) {
  console.log(measure(configs[CONFIG]));
  process.exit(0);
}
const rows = configs.map((_, i) => {
  const r = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      process.argv[1],
      '--entities',
      String(ENTITIES),
      '--queries',
      String(QUERIES),
      '--config',
      String(i),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
});

// The production index with our ranking (rarer terms weigh more), as the shards query it (without
// the one-edit neighbours of unknown tokens the shards add: bench/engine.ts measures those).
const production = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 2000);
for (let d = 0; d < names.length; d++) production.add(d, terms[d]);
let found = 0;
const lat: number[] = [];
for (const q of queries) {
  const s = performance.now();
  const hits = production.candidates(q.terms, CANDIDATES, () => true);
  lat.push(performance.now() - s);
  if (hits.includes(q.doc)) found++;
}
rows.push(
  `| production index, our idf ranking (the shards' default) | (as production) | (as production) | ${((found / queries.length) * 100).toFixed(1)} % | ${(median(lat) * 1000).toFixed(0)} µs / ${(percentile(lat, 0.99) * 1000).toFixed(0)} µs |`,
);

// Export/import: does restoring a saved index beat computing the terms and adding them again?
const chunks: [string, string][] = [];
t = performance.now();
production.export((key, data) => {
  chunks.push([key, data]);
});
const exportMs = performance.now() - t;
const exportBytes = chunks.reduce((s, [k, d]) => s + k.length + d.length, 0);
const restored = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 2000);
t = performance.now();
for (const [k, d] of chunks) restored.import(k, d);
const importMs = performance.now() - t;
restored.size = production.size;
const same = queries.every((q) => production.frequency(q.terms[0] ?? '') === restored.frequency(q.terms[0] ?? ''));
t = performance.now();
const again = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 2000);
for (let d = 0; d < names.length; d++) again.add(d, terms[d]);
const addMs = performance.now() - t;

const lines = [
  `${names.length.toLocaleString('en-US')} names (of ${ENTITIES.toLocaleString('en-US')} synthetic entities), ${termsPerName.toFixed(1)} index terms per name; ${queries.length} typo queries (one edit per 8 characters, token order shuffled), ${CANDIDATES} candidates each. Load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}.`,
  '',
  `The name matcher's preparation and index terms (\`indexTerms(prepareName(name))\`), paid once per name whatever the options: **${prepareUs.toFixed(1)} µs per name**.`,
  '',
  '| options | heap per name | add per name | listed name among the candidates | query p50 / p99 |',
  '|---|---|---|---|---|',
  ...rows,
  '',
  `Export/import of the production index: export ${exportMs.toFixed(0)} ms, ${(exportBytes / 1024 / 1024).toFixed(1)} MiB in ${chunks.length} chunks (${(exportBytes / names.length).toFixed(0)} B per name); import ${importMs.toFixed(0)} ms (${((importMs * 1000) / names.length).toFixed(2)} µs per name), term frequencies identical after import: ${same}. Rebuilding instead: adding the computed terms ${addMs.toFixed(0)} ms, computing them ${((prepareUs * names.length) / 1000).toFixed(0)} ms.`,
  '',
  realSection,
];
console.log(lines.join('\n'));

/**
 * The real lists' names (those whose files are in ../shared/data): the RSS and heap the production
 * name index adds per name, terms computed on the fly as the shards do (they keep no prepared form).
 */
async function realLists(): Promise<string> {
  const real: string[] = [];
  const used: string[] = [];
  for (const list of LISTS) {
    if (list.source.type !== 'files' || list.list_type !== 'sanctions') continue;
    if (list.source.files.some((f) => !f.optional && !existsSync(join(SHARED_DATA, f.sourceDirPath)))) continue;
    const before = real.length;
    for await (const r of parseListFromDir(list.slug, SHARED_DATA)) if (r.entity_type === 'name') real.push(r.value);
    if (real.length > before) used.push(`${list.slug} ${(real.length - before).toLocaleString('en-US')}`);
  }
  const settle = () => new Promise((r) => setTimeout(r, 300));
  const h0 = heap();
  await settle();
  const rss0 = process.memoryUsage().rss;
  const s = performance.now();
  const index = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 2000);
  for (let d = 0; d < real.length; d++) index.add(d, indexTerms(prepareName(real[d])));
  const ms = performance.now() - s;
  const h1 = heap();
  await settle();
  const rss1 = process.memoryUsage().rss;
  return `Real lists (${used.join(', ')}: ${real.length.toLocaleString('en-US')} names): the production name index adds **${((rss1 - rss0) / real.length).toFixed(0)} B of RSS per name** (heap ${((h1 - h0) / real.length).toFixed(0)} B per name; the RSS includes the index's filter of present terms, 16 bits a term), built in ${ms.toFixed(0)} ms (${((ms * 1000) / real.length).toFixed(1)} µs per name, terms included); ${index.size.toLocaleString('en-US')} documents.`;
}
