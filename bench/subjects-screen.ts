/**
 * SubjectScreener.screen in bulk (issue #39: a full re-screen ≥ 20,000 subjects/s): N synthetic
 * people (first and last names, birth dates and nationalities recombined from the people on no
 * list of names/negatives-us-small.csv, one in 1,000 a listed UN name) screened against the real
 * lists a customer screens by default (OFAC SDN, consolidated, UN...), in calls of BATCH subjects.
 * Prints subjects/s per round, the median, the matches and the load average.
 *
 *   node --import tsx bench/subjects-screen.ts [subjects] [--batch N] [--rounds N] [--shards N]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parse } from 'csv-parse/sync';
import { normalizeCountry } from '../engine/normalize/index.js';
import { createCustomerToken, startTestService } from '../harness/service.js';
import { sharedData } from '../harness/paths.js';
import { xorshift32 } from '../harness/random.js';
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

const SHARDS = opt('shards', 2);
const svc = await startTestService({ LOG_LEVEL: 'silent', ENGINE_SHARDS: String(SHARDS) });
try {
  const { customerId } = await createCustomerToken(svc.url, 10, 'bench');
  const book = subjects(N);
  const { screener } = svc.service.subjects;
  const rates: number[] = [];
  let matches = 0;
  // One warm-up call: the shards' first queries compile their code paths.
  await screener.screen(customerId, book.slice(0, 500), { threshold: 0.7, requestId: 'warm', endpoint: 'bench' });
  for (let r = 0; r < ROUNDS; r++) {
    matches = 0;
    const started = performance.now();
    for (let i = 0; i < book.length; i += BATCH) {
      const rows = await screener.screen(customerId, book.slice(i, i + BATCH), {
        threshold: 0.7,
        requestId: `r${r}`,
        endpoint: 'bench',
      });
      matches += rows.length;
    }
    const s = (performance.now() - started) / 1000;
    rates.push(N / s);
    process.stdout.write(`round ${r + 1}: ${N} subjects in ${s.toFixed(2)} s = ${Math.round(N / s)}/s\n`);
  }
  const sorted = [...rates].sort((a, b) => a - b);
  process.stdout.write(
    `median ${Math.round(sorted[Math.floor(sorted.length / 2)])} subjects/s; ${matches} matches; ` +
      `batch ${BATCH}; engine shards ${SHARDS}; loadavg ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}\n`,
  );
} finally {
  await svc.close();
}
