import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { EntityRecord } from '../engine/model.js';
import { nameIndexTerms, prepareParty, prepareQuery, scoreParty } from '../engine/names/index.js';
import type { ListChange } from '../loaders/diff.js';
import { unXmlParser } from '../loaders/sources/un-xml.js';
import { AlertStore } from '../src/alerts/store.js';
import type { AlertDecisionRow } from '../src/audit/rows.js';
import { migrate } from '../src/store/migrate.js';
import { openPglite } from '../src/store/pglite.js';
import type { SubjectRecord } from '../src/subjects/model.js';
import { SubjectStore } from '../src/subjects/store.js';
import { createBookSink } from '../src/subjects/watch.js';

/**
 * Issue #39, watching the books: a list version of 1,000 changed parties (the UN list's first
 * 1,000) against a book of N subjects (US names from ../shared/data, one in 1,000 a listed name).
 * (a) the shipped design: the books streamed by keyset pages from the control-plane database
 * (embedded PGlite here) through a small index of the changed parties, alerts written — the time
 * from the sink's call (the version is served) to the last alert committed, and how soon the sink
 * returned to the list manager (the run goes on in the background);
 * (b) an in-memory index of the books (name terms → subjects) queried with the changed parties:
 * its build time and heap, then the query. Usage: bench/watch.ts [N ...] (default 100000).
 */

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const SHARED = new URL('../../shared/data/', import.meta.url).pathname;

const records: EntityRecord[] = [];
for await (const r of unXmlParser('un_sc', 'c')({ c: join(SHARED, 'un/consolidated.xml') }, {})) records.push(r);
const parties = records.filter((r) => r.entity_type === 'party').slice(0, 1000);
const at = new Date().toISOString();
const changes: ListChange[] = parties.map((record, i) => ({
  seq: i + 1,
  change_id: `chg_${i}`,
  list: 'un_sc',
  owner: 0,
  version: 'bench',
  kind: 'listed',
  at,
  record,
}));

const people = readFileSync(join(SHARED, 'names/negatives-us-small.csv'), 'utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean)
  .map((l) => l.split(','));
let seed = 39;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);

function book(n: number): SubjectRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const listed = i % 1000 === 500 ? String(parties[rnd(parties.length)].metadata.name) : null;
    const p = people[rnd(people.length)];
    return {
      external_id: `S-${i}`,
      type: 'person',
      names: [listed ?? `${p[1]} ${people[rnd(people.length)][3]}`],
      birth_date: null,
      countries: [],
      identifiers: [],
      values: { crypto: [], email: [], website: [] },
    };
  });
}

const log = pino({ level: 'silent' });
const trail = { decisions: { push: (_: AlertDecisionRow[]) => undefined, write: async () => undefined }, log };

async function streamed(n: number, subjects: SubjectRecord[]) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
  const db = await openPglite(join(dir, 'pglite'));
  try {
    await migrate(db);
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO customers (name, monthly_quota) VALUES ('bench', 0) RETURNING id`,
    );
    const store = new SubjectStore(db, { maxPerCustomer: n });
    for (let i = 0; i < n; i += 10_000) await store.upsertMany(rows[0].id, subjects.slice(i, i + 10_000));
    const sink = createBookSink({
      db,
      subjects: store,
      alerts: new AlertStore(db, trail),
      log,
      list: () => ({ slug: 'un_sc', display_name: 'UN', list_type: 'sanctions', owner: undefined }),
      pageSize: 5_000,
    });
    sink.start();
    const t0 = performance.now();
    await sink.write(changes);
    const recordedMs = performance.now() - t0;
    await sink.idle();
    const ms = performance.now() - t0;
    await sink.stop();
    const alerts = await db.query<{ n: string }>('SELECT count(*) AS n FROM alerts');
    return { ms, recordedMs, alerts: Number(alerts.rows[0].n) };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function bookIndex(subjects: SubjectRecord[]) {
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const byTerm = new Map<string, number[]>();
  subjects.forEach((s, i) => {
    for (const name of s.names)
      for (const t of nameIndexTerms(name, 'person')) {
        const l = byTerm.get(t);
        if (l) l.push(i);
        else byTerm.set(t, [i]);
      }
  });
  const buildMs = performance.now() - t0;
  global.gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  const t1 = performance.now();
  let hits = 0;
  const queries = new Map<number, ReturnType<typeof prepareQuery>>();
  for (const r of parties) {
    const party = prepareParty({
      names: [{ value: String(r.metadata.name), weak: false }],
      party_type: (r.metadata.party_type as 'person' | null) ?? null,
    });
    const shared = new Map<number, number>();
    for (const t of nameIndexTerms(String(r.metadata.name), party.party_type))
      for (const i of byTerm.get(t) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
    for (const [i, count] of shared) {
      if (count < 2) continue;
      let q = queries.get(i);
      if (!q) queries.set(i, (q = prepareQuery({ name: subjects[i].names[0], party_type: 'person' })));
      if (scoreParty(q, party).score >= 0.7) hits++;
    }
  }
  return { buildMs, heapMb, queryMs: performance.now() - t1, hits };
}

console.log(
  `load ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  '| subjects | (a) streamed: version → alerts written | per subject | sink returned | alerts | (b) book index: build | heap | query | hits |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const n of sizes.length > 0 ? sizes : [100_000]) {
  const subjects = book(n);
  const a = await streamed(n, subjects);
  const b = bookIndex(subjects);
  console.log(
    `| ${n.toLocaleString('en')} | ${(a.ms / 1000).toFixed(1)} s (${Math.round((n / a.ms) * 1000).toLocaleString('en')}/s) | ${((a.ms * 1000) / n).toFixed(1)} µs | ${a.recordedMs.toFixed(0)} ms | ${a.alerts} | ${(b.buildMs / 1000).toFixed(1)} s | ${b.heapMb.toFixed(0)} MiB | ${b.queryMs.toFixed(0)} ms | ${b.hits} |`,
  );
}
