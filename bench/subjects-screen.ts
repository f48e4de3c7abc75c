/**
 * SubjectScreener.screen in bulk (issue #39: a full re-screen ≥ 20,000 subjects/s): N synthetic
 * people (first and last names, birth dates and nationalities recombined from the people on no
 * list of names/negatives-us-small.csv, one in 1,000 a listed UN name) screened against the real
 * lists a customer screens by default (OFAC SDN, consolidated, UN...), in calls of BATCH subjects.
 * Prints subjects/s per round, the median, the matches and the load average.
 *
 *   node --import tsx bench/subjects-screen.ts [subjects] [--batch N] [--rounds N] [--shards N] [--engine-ab]
 *
 * With --engine-ab it measures the engine alone, in alternated rounds in this one process (the
 * same load for both): the subjects' name queries as single `screenName` calls issued together
 * (what the screener sent before `screenNames`) against `screenNames` in rounds of 500 subjects.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parse } from 'csv-parse/sync';
import { normalizeCountry } from '../engine/normalize/index.js';
import { threadCpuClock } from '../engine/shards/thread-cpu.js';
import { createCustomerToken, startTestService, type TestService } from '../harness/service.js';
import { sharedData } from '../harness/paths.js';
import { xorshift32 } from '../harness/random.js';
import type { Engine } from '../engine/engine.js';
import type { StoredSubject } from '../src/subjects/store.js';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const N = Number(args.find((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith('--')) ?? 20_000);
const BATCH = opt('batch', 5_000);
const ROUNDS = opt('rounds', 3);

interface Person {
  first_name: string;
  last_name: string;
  date_of_birth: string;
  nationality: string;
}
const people = parse(readFileSync(sharedData('names', 'negatives-us-small.csv')), { columns: true }) as Person[];
const listed = (
  parse(readFileSync(sharedData('names', 'un-positives-untreated.csv')), { columns: true }) as Person[]
).map((p) => (p as unknown as { full_name: string }).full_name);

function subjects(n: number): StoredSubject[] {
  const next = xorshift32(39);
  const pick = <T>(xs: readonly T[]) => xs[next() % xs.length];
  const now = new Date().toISOString();
  return Array.from({ length: n }, (_, i) => {
    const p = pick(people);
    const name = i % 1000 === 999 ? pick(listed) : `${p.first_name} ${pick(people).last_name}`;
    const country = normalizeCountry(pick(people).nationality);
    return {
      id: i + 1,
      customer_id: 0,
      external_id: `S-${i}`,
      type: 'person',
      names: [name],
      birth_date: p.date_of_birth || null,
      countries: country ? [country.parent ?? country.code] : [],
      identifiers: [],
      values: { crypto: [], email: [], website: [] },
      created_at: now,
      updated_at: now,
      screened_at: null,
    };
  });
}

const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Single calls against bulk rounds, alternated: subjects per CPU second (every thread) of each. */
async function engineAb(engine: Engine, book: StoredSubject[]): Promise<void> {
  const lists = engine.served().map((l) => l.slug);
  const opts = { lists, threshold: 0.7, limit: 5 };
  const queries = book.map((s) => ({
    name: s.names[0],
    birth_date: s.birth_date,
    country: s.countries[0] ?? null,
    party_type: 'person' as const,
  }));
  const ROUND = 500;
  const ways = {
    single: async () => {
      for (let i = 0; i < queries.length; i += ROUND)
        await Promise.all(queries.slice(i, i + ROUND).map((q) => engine.screenName({ ...q, ...opts })));
    },
    bulk: async () => {
      for (let i = 0; i < queries.length; i += ROUND) await engine.screenNames(queries.slice(i, i + ROUND), opts);
    },
  };
  const rates: Record<string, number[]> = { single: [], bulk: [] };
  await ways.single();
  await ways.bulk();
  for (let r = 0; r < ROUNDS; r++)
    for (const [name, run] of r % 2 === 0 ? Object.entries(ways) : Object.entries(ways).reverse()) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      await run();
      const used = process.cpuUsage(cpu);
      const cpuS = (used.user + used.system) / 1e6;
      const s = (performance.now() - started) / 1000;
      rates[name].push(N / cpuS);
      process.stdout.write(
        `${name} round ${r + 1}: ${Math.round(N / s)}/s wall, ${Math.round(N / cpuS)} per CPU second; loadavg ${load()}\n`,
      );
    }
  process.stdout.write(
    `median per CPU second: single ${median(rates.single)}, bulk ${median(rates.bulk)}, ratio ${(median(rates.bulk) / median(rates.single)).toFixed(2)}; engine shards ${SHARDS}\n`,
  );
}

const SHARDS = opt('shards', 2);
const svc = await startTestService({ LOG_LEVEL: 'silent', ENGINE_SHARDS: String(SHARDS) });
try {
  const { customerId } = await createCustomerToken(svc.url, 10, 'bench');
  const book = subjects(N);
  if (args.includes('--engine-ab')) await engineAb(svc.service.engine, book);
  else await screenBook(svc, customerId, book);
} finally {
  await svc.close();
}

async function screenBook(svc: TestService, customerId: number, book: StoredSubject[]): Promise<void> {
  const { screener } = svc.service.subjects;
  const rates: number[] = [];
  const cpuRates: number[] = [];
  let matches = 0;
  // One warm-up call: the shards' first queries compile their code paths.
  await screener.screen(customerId, book.slice(0, 500), { threshold: 0.7, requestId: 'warm', endpoint: 'bench' });
  for (let r = 0; r < ROUNDS; r++) {
    matches = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    const mainStarted = threadCpuClock()();
    for (let i = 0; i < book.length; i += BATCH) {
      const rows = await screener.screen(customerId, book.slice(i, i + BATCH), {
        threshold: 0.7,
        requestId: `r${r}`,
        endpoint: 'bench',
      });
      matches += rows.length;
    }
    const s = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    // CPU seconds of every thread of the process (shards included): the rate a loaded machine hides.
    const cpuS = (used.user + used.system) / 1e6;
    const mainS = (threadCpuClock()() - mainStarted) / 1000;
    rates.push(N / s);
    cpuRates.push(N / cpuS);
    process.stdout.write(
      `round ${r + 1}: ${N} subjects in ${s.toFixed(2)} s = ${Math.round(N / s)}/s; ` +
        `${cpuS.toFixed(2)} CPU s (main thread ${mainS.toFixed(2)}) = ${Math.round(N / cpuS)} per CPU second\n`,
    );
  }
  process.stdout.write(
    `median ${median(rates)} subjects/s, ${median(cpuRates)} per CPU second; ${matches} matches; ` +
      `batch ${BATCH}; engine shards ${SHARDS}; loadavg ${load()}\n`,
  );
}
