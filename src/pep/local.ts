import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { nameTokens, normalizeCountry } from '../../engine/normalize/index.js';
import { prepareName, preparedSimilarity, type PreparedName } from '../../engine/similarity.js';
import type { PepMatchT, PepScreenResponseT } from './schema.js';
import { fromFtm, isSenzing, SenzingReader, type PepPerson } from './records.js';
import { PEP_THRESHOLD, type PepProvider, type PepQuery } from './types.js';

/**
 * The embedded PEP screening: Person entities with PEP topics from a JSON-lines export, an
 * inverted index of name tokens → persons for candidate retrieval, and the project's name
 * similarity for scoring, qualified by birth date and country:
 * - a birth date disjoint from every published one multiplies the score by 0.6;
 * - a country absent from the published ones multiplies it by 0.65;
 * so an exact name with either qualifier contradicted stays below the 0.7 threshold, and one
 * whose data are simply missing is not penalised. Candidates under 0.5 are not returned (as
 * yente's default cutoff).
 */

const DOB_DISJOINT_FACTOR = 0.6;
const COUNTRY_DISJOINT_FACTOR = 0.65;
const CUTOFF = 0.5;
/** Candidates scored per query, the ones sharing the most name tokens with it first. */
const MAX_CANDIDATES = 1000;

/** Published and queried dates agree at the precision both have (`1972` agrees with `1972-05-03`). */
export function datesAgree(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  return a.slice(0, n) === b.slice(0, n);
}

interface Scored {
  person: PepPerson;
  score: number;
  /** Qualifiers that agreed, to order equal scores. */
  agreed: number;
}

export class LocalPepIndex {
  private readonly postings = new Map<string, number[]>();
  /** Prepared names of each person, made on first use (most persons are never a candidate). */
  private readonly prepared: (PreparedNames[] | undefined)[] = [];

  constructor(private readonly persons: PepPerson[]) {
    persons.forEach((p, i) => {
      const tokens = new Set(p.names.flatMap(indexTokens));
      for (const t of tokens) {
        const list = this.postings.get(t);
        if (list) list.push(i);
        else this.postings.set(t, [i]);
      }
    });
  }

  get size(): number {
    return this.persons.length;
  }

  /** Reads a FollowTheMoney or Senzing JSON-lines file (the layout is detected per line). */
  static async fromFile(path: string, log: Logger): Promise<LocalPepIndex> {
    const persons: PepPerson[] = [];
    const senzing = new SenzingReader();
    let bad = 0;
    const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        bad++;
        continue;
      }
      if (isSenzing(rec)) senzing.add(rec);
      else {
        const p = fromFtm(rec);
        if (p) persons.push(p);
      }
    }
    persons.push(...senzing.finish());
    if (bad) log.warn({ file: path, lines: bad }, 'PEP file has lines that are not JSON');
    return new LocalPepIndex(persons);
  }

  search(q: PepQuery): PepMatchT[] {
    const hits = new Map<number, number>();
    for (const t of new Set(indexTokens(q.name))) {
      for (const i of this.postings.get(t) ?? []) hits.set(i, (hits.get(i) ?? 0) + 1);
    }
    let candidates = [...hits.keys()];
    if (candidates.length > MAX_CANDIDATES) {
      candidates = candidates.sort((a, b) => hits.get(b)! - hits.get(a)! || a - b).slice(0, MAX_CANDIDATES);
    }
    const ref = q.country ? normalizeCountry(q.country) : null;
    const country = ref ? (ref.kind === 'region' && ref.parent ? ref.parent : ref.code).toLowerCase() : null;
    const query = prepareNames(q.name);
    const scored: Scored[] = [];
    for (const i of candidates) {
      const person = this.persons[i];
      const names = (this.prepared[i] ??= person.names.map(prepareNames));
      let score = 0;
      for (const n of names) score = Math.max(score, pepNameScore(query, n));
      let agreed = 0;
      if (q.birth_date && person.birth_dates.length) {
        if (person.birth_dates.some((d) => datesAgree(d, q.birth_date!))) agreed++;
        else score *= DOB_DISJOINT_FACTOR;
      }
      if (country && person.countries.length) {
        if (person.countries.includes(country)) agreed++;
        else score *= COUNTRY_DISJOINT_FACTOR;
      }
      if (score >= CUTOFF) scored.push({ person, score, agreed });
    }
    scored.sort((a, b) => b.score - a.score || b.agreed - a.agreed || (a.person.id < b.person.id ? -1 : a.person.id > b.person.id ? 1 : 0));
    return scored.slice(0, q.limit).map(({ person: p, score }) => ({
      id: p.id,
      caption: p.caption,
      score,
      match: score >= PEP_THRESHOLD,
      topics: p.topics,
      countries: p.countries,
      birth_dates: p.birth_dates,
      positions: p.positions,
      datasets: p.datasets,
      source_url: p.source_url,
    }));
  }
}

interface PreparedNames {
  full: PreparedName;
  /** Without initials; null when nothing else is left. */
  withoutInitials: PreparedName | null;
}

/**
 * The similarity weighs company words (`HOLDING`, `WEST`, `SA`, ...) as nearly meaningless, which
 * is right for companies and wrong for people called Holding, West or Sá: a person's tokens all
 * weigh the same.
 */
function preparePerson(name: string): PreparedName {
  const p = prepareName(name);
  p.weights.fill(1);
  p.totalWeight = p.tokens.length;
  p.joined = p.folded.join('');
  return p;
}

function prepareNames(name: string): PreparedNames {
  const rest = nameTokens(name).filter((t) => t.length > 1);
  return { full: preparePerson(name), withoutInitials: rest.length ? preparePerson(rest.join(' ')) : null };
}

/**
 * Name similarity that does not let an initial stand in for a whole name: the general similarity
 * pairs `C.` with `CRUZ`, so `Karen Cruz` would nearly match `Karen C. Handel`. A person's name
 * must also be similar once initials are set aside on both sides.
 */
function pepNameScore(a: PreparedNames, b: PreparedNames): number {
  const full = preparedSimilarity(a.full, b.full);
  if (!a.withoutInitials || !b.withoutInitials) return full;
  return Math.min(full, preparedSimilarity(a.withoutInitials, b.withoutInitials));
}

/** Single letters (initials) would make every person with that initial a candidate. */
function indexTokens(name: string): string[] {
  return nameTokens(name).filter((t) => t.length >= 2);
}

export function localPepProvider(index: LocalPepIndex, dataset: string): PepProvider {
  return {
    kind: 'local',
    async screen(q): Promise<PepScreenResponseT> {
      const matches = index.search(q);
      return { value: q.name, pep: matches.some((m) => m.match), dataset, matches };
    },
  };
}
