/**
 * `Engine.screenExact` of two builds side by side, in one process on the same records and
 * queries: `node dist/bench/ab-screen-exact.js --a OTHER/dist [--b dist] [--entities N] [--rounds R]`
 * where each directory is a compiled tree (`make build`; OTHER is typically another commit's
 * checkout). Rounds interleave the builds (A B, then B A, ...); each measurement is a tight loop
 * over distinct values of one query kind, rated per CPU-second. A round measures A and B back to
 * back, so a slow spell of the machine touches both: the ratio of a kind is the median of the
 * rounds' own ratios. The build loaded second in a process measured up to 1.2x faster than the
 * same build loaded first (heap and code layout), so the comparison runs twice, in two child
 * processes, once in each loading order, and reports both ratios and their geometric mean.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ScreenQuery } from '../engine/engine.js';
import type { EntityRecord } from '../engine/model.js';
import { syntheticRecords, SYNTHETIC_LISTS } from '../harness/synthetic.js';

interface EngineLike {
  load(gen: { lists: typeof SYNTHETIC_LISTS; records: Iterable<EntityRecord> }): Promise<unknown>;
  screenExact(q: ScreenQuery): unknown[] | null;
  close(): Promise<void>;
}
interface EngineModule {
  Engine: { create(opts: { shards: number }): Promise<EngineLike> };
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const dirA = arg('--a', '');
if (!dirA) throw new Error('usage: ab-screen-exact --a OTHER/dist [--b dist] [--entities N] [--rounds R]');
const dirB = arg('--b', resolve(import.meta.dirname, '..'));
const entities = Number(arg('--entities', '200000'));
const rounds = Number(arg('--rounds', '9'));
/** In a child: which build to load first (`a` or `b`); it prints its rates as JSON. */
const first = arg('--first', '');

async function engineOf(dir: string): Promise<EngineLike> {
  const mod = (await import(pathToFileURL(resolve(dir, 'engine', 'engine.js')).href)) as EngineModule;
  const engine = await mod.Engine.create({ shards: 1 });
  await engine.load({ lists: SYNTHETIC_LISTS, records: syntheticRecords(entities, 1) });
  return engine;
}

const listed = [...syntheticRecords(entities, 1)].filter((r) => r.removed_at === null);
const unlisted = [...syntheticRecords(20_000, 99)];
const values = (from: EntityRecord[], type: EntityRecord['entity_type'], n = 4096) =>
  from
    .filter((r) => r.entity_type === type)
    .slice(0, n)
    .map((r) => r.value);
const host = (v: string) => v.replace(/^https?:\/\//, '').replace(/\/.*$/, '');

const KINDS: [string, ScreenQuery['kind'], string[]][] = [
  ['crypto, listed', 'crypto', values(listed, 'crypto_address')],
  ['crypto, unlisted', 'crypto', values(unlisted, 'crypto_address')],
  ['crypto, upper case (bech32 check)', 'crypto', values(listed, 'crypto_address').map((v) => v.toUpperCase())],
  ['email, listed address', 'email', values(listed, 'email')],
  ['email, at a listed domain', 'email', values(listed, 'email_domain').map((d) => `someone@mx.${host(d)}`)],
  ['website, subdomain of a listed one', 'website', values(listed, 'website').map((v) => `https://shop.${host(v)}/x`)],
  ['country', 'country', ['Ukraine', 'IR', 'Cuba', 'RUS', 'Crimea', 'France', 'UA-43', 'Germany', 'KP', 'Syria']],
];

/**
 * Screenings per CPU-second of this process (the shards idle meanwhile): on a shared machine the
 * wall clock also counts the time other processes held the cores.
 */
function rate(engine: EngineLike, kind: ScreenQuery['kind'], vals: string[], lists: string[]): number {
  const n = Math.max(200_000, vals.length);
  let sink = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) sink += engine.screenExact({ kind, value: vals[i % vals.length], lists })!.length;
  const used = process.cpuUsage(cpu);
  const ops = n / ((used.user + used.system) / 1e6);
  return sink < 0 ? 0 : ops;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (hz: number) => `${(hz / 1e6).toFixed(2)} M/s`;

interface Rates {
  a: number[];
  b: number[];
}

/** Per kind, the rates of both builds in each round, the one named by `loadFirst` loaded first. */
async function measure(loadFirst: 'a' | 'b'): Promise<Rates[]> {
  const firstEngine = await engineOf(loadFirst === 'a' ? dirA : dirB);
  const secondEngine = await engineOf(loadFirst === 'a' ? dirB : dirA);
  const [a, b] = loadFirst === 'a' ? [firstEngine, secondEngine] : [secondEngine, firstEngine];
  const lists = SYNTHETIC_LISTS.map((l) => l.slug);
  const rates = KINDS.map((): Rates => ({ a: [], b: [] }));
  for (const [, kind, vals] of KINDS) {
    rate(a, kind, vals, lists);
    rate(b, kind, vals, lists);
  }
  for (let r = 0; r < rounds; r++) {
    for (const [k, [, kind, vals]] of KINDS.entries()) {
      const order = r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
      for (const side of order) rates[k][side].push(rate(side === 'a' ? a : b, kind, vals, lists));
    }
  }
  await a.close();
  await b.close();
  return rates;
}

const roundRatio = (r: Rates) => median(r.b.map((x, i) => x / r.a[i]));

if (first === 'a' || first === 'b') {
  console.log(JSON.stringify(await measure(first)));
} else {
  const child = (loadFirst: 'a' | 'b') =>
    JSON.parse(
      execFileSync(process.execPath, [...process.execArgv, ...process.argv.slice(1), '--first', loadFirst], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      }),
    ) as Rates[];
  const aFirst = child('a');
  const bFirst = child('b');
  console.log(
    `screenExact per CPU-second, ${entities.toLocaleString('en-US')} synthetic entities, ${rounds} interleaved rounds in each loading order, medians. A = ${dirA}, B = ${dirB}\n`,
  );
  console.log(
    '| query | A | B | B / A, A loaded first | B / A, B loaded first | B / A, geometric mean |\n|---|---|---|---|---|---|',
  );
  for (const [k, [name]] of KINDS.entries()) {
    const ma = median([...aFirst[k].a, ...bFirst[k].a]);
    const mb = median([...aFirst[k].b, ...bFirst[k].b]);
    const r1 = roundRatio(aFirst[k]);
    const r2 = roundRatio(bFirst[k]);
    console.log(
      `| ${name} | ${fmt(ma)} | ${fmt(mb)} | ${r1.toFixed(3)} | ${r2.toFixed(3)} | ${Math.sqrt(r1 * r2).toFixed(3)} |`,
    );
  }
}
