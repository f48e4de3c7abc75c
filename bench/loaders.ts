/**
 * Parse time and entity counts of every file-based or bundled list, from a directory laid out
 * like ../shared/data.
 *   node --import tsx bench/loaders.ts [SOURCE_DIR] [--runs N] [--list slug]
 * Prints a markdown table: records by entity type, best and median wall time of N runs, and
 * records per second of the best run. Lists whose files are absent are reported as such.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DATA } from '../harness/paths.js';
import type { EntityType } from '../engine/model.js';
import { LISTS, parseListFromDir } from '../loaders/registry.js';

interface Args {
  sourceDir: string;
  runs: number;
  only: string | null;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { sourceDir: SHARED_DATA, runs: 3, only: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else if (argv[i] === '--list') args.only = argv[++i];
    else args.sourceDir = argv[i];
  }
  return args;
}

async function runOnce(
  slug: string,
  sourceDir: string,
): Promise<{ ms: number; counts: Partial<Record<EntityType, number>>; total: number }> {
  const counts: Partial<Record<EntityType, number>> = {};
  let total = 0;
  const start = process.hrtime.bigint();
  for await (const r of parseListFromDir(slug, sourceDir)) {
    counts[r.entity_type] = (counts[r.entity_type] ?? 0) + 1;
    total++;
  }
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, counts, total };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log(`Source dir: ${args.sourceDir}; runs per list: ${args.runs}; node ${process.version}\n`);
  console.log('| list | records | by entity type | best ms | median ms | records/s |');
  console.log('|---|---:|---|---:|---:|---:|');
  for (const list of LISTS) {
    if (args.only && list.slug !== args.only) continue;
    if (list.source.type === 'chain') continue;
    if (list.source.type === 'files') {
      const missing = list.source.files.filter(
        (f) => !f.optional && !existsSync(join(args.sourceDir, f.sourceDirPath)),
      );
      if (missing.length > 0) {
        console.log(`| ${list.slug} | — | files absent: ${missing.map((f) => f.sourceDirPath).join(', ')} | | | |`);
        continue;
      }
    }
    const times: number[] = [];
    let last: Awaited<ReturnType<typeof runOnce>> | null = null;
    for (let i = 0; i < args.runs; i++) {
      last = await runOnce(list.slug, args.sourceDir);
      times.push(last.ms);
    }
    times.sort((a, b) => a - b);
    const best = times[0];
    const median = times[Math.floor(times.length / 2)];
    const by = Object.entries(last!.counts)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ');
    console.log(
      `| ${list.slug} | ${last!.total} | ${by} | ${best.toFixed(0)} | ${median.toFixed(0)} | ${Math.round(last!.total / (best / 1000))} |`,
    );
  }
}

await main();
