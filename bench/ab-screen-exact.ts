/**
 * `Engine.screenExact` of two builds side by side, in one process on the same records and
 * queries: `node dist/bench/ab-screen-exact.js --a OTHER/dist [--b dist] [--entities N] [--rounds R]`
 * where each directory is a compiled tree (`make build`; OTHER is typically another commit's
 * checkout). Rounds interleave the builds (A B, then B A, ...); each measurement is a tight loop
 * over distinct values of one query kind, rated per CPU-second. Prints, per kind, the median rate
 * of each build and their ratio.
 */
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
  const n = Math.max(50_000, vals.length);
  let sink = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) sink += engine.screenExact({ kind, value: vals[i % vals.length], lists })!.length;
  const used = process.cpuUsage(cpu);
  const ops = n / ((used.user + used.system) / 1e6);
  return sink < 0 ? 0 : ops;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (hz: number) => `${(hz / 1e6).toFixed(2)} M/s`;

const a = await engineOf(dirA);
const b = await engineOf(dirB);
const lists = SYNTHETIC_LISTS.map((l) => l.slug);
const rates = KINDS.map(() => ({ a: [] as number[], b: [] as number[] }));
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
console.log(`screenExact per CPU-second, ${entities.toLocaleString('en-US')} synthetic entities, ${rounds} interleaved rounds, medians. A = ${dirA}, B = ${dirB}\n`);
console.log('| query | A | B | B / A |\n|---|---|---|---|');
for (const [k, [name]] of KINDS.entries()) {
  const ma = median(rates[k].a);
  const mb = median(rates[k].b);
  console.log(`| ${name} | ${fmt(ma)} | ${fmt(mb)} | ${(mb / ma).toFixed(3)} |`);
}
