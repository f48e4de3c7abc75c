import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import {
  indexTerms,
  nameIndexTerms,
  prepareParty,
  prepareQuery,
  scoreParty,
  type EvidencePolicy,
  type PreparedParty,
} from '../../engine/names/index.js';
import type { PepMatchT, PepScreenResponseT } from './schema.js';
import { fromFtm, isSenzing, SenzingReader, type PepPerson } from './records.js';
import { PEP_THRESHOLD, type PepProvider, type PepQuery } from './types.js';

/**
 * The embedded PEP screening: Person entities with PEP topics from a JSON-lines export, an
 * inverted index of the name matcher's terms → persons for candidate retrieval, and the
 * project's name matcher (`scoreParty`) for scoring, qualified by birth date and country: a birth
 * date in clear conflict with every published one multiplies the score by 0.6, and a country
 * absent from the published ones multiplies it by 0.65 (a PEP holds office in a country), so an
 * exact name with either contradicted stays below the 0.7 threshold; data that are simply
 * missing are not held against a person. Candidates under 0.5 are not returned (as yente's
 * default cutoff).
 */

const PEP_POLICY: EvidencePolicy = { countryMismatch: 0.65 };
const CUTOFF = 0.5;
/** Candidates scored per query, the ones sharing the most name terms with it first. */
const MAX_CANDIDATES = 1000;

interface Scored {
  person: PepPerson;
  score: number;
  /** Qualifiers that agreed, to order equal scores. */
  agreed: number;
}

export class LocalPepIndex {
  private readonly postings = new Map<string, number[]>();
  /** Each person prepared for matching, on first use (most persons are never a candidate). */
  private readonly prepared: (PreparedParty | undefined)[] = [];

  constructor(private readonly persons: PepPerson[]) {
    persons.forEach((p, i) => {
      const tokens = new Set(p.names.flatMap((n) => nameIndexTerms(n, 'person')));
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
    const query = prepareQuery({ name: q.name, birth_date: q.birth_date, country: q.country, party_type: 'person' });
    const hits = new Map<number, number>();
    for (const t of indexTerms(query.name)) {
      for (const i of this.postings.get(t) ?? []) hits.set(i, (hits.get(i) ?? 0) + 1);
    }
    let candidates = [...hits.keys()];
    if (candidates.length > MAX_CANDIDATES) {
      candidates = candidates.sort((a, b) => hits.get(b)! - hits.get(a)! || a - b).slice(0, MAX_CANDIDATES);
    }
    const scored: Scored[] = [];
    for (const i of candidates) {
      const person = this.persons[i];
      const party = (this.prepared[i] ??= prepareParty({
        names: person.names.map((value) => ({ value })),
        birth_dates: person.birth_dates,
        countries: person.countries,
        party_type: 'person',
      }));
      const { score, explanation } = scoreParty(query, party, PEP_POLICY);
      const agreed =
        Number(explanation.birth_date.effect === 'agrees') + Number(explanation.country.effect === 'agrees');
      if (score >= CUTOFF) scored.push({ person, score, agreed });
    }
    scored.sort(
      (a, b) =>
        b.score - a.score ||
        b.agreed - a.agreed ||
        (a.person.id < b.person.id ? -1 : a.person.id > b.person.id ? 1 : 0),
    );
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

export function localPepProvider(index: LocalPepIndex, dataset: string): PepProvider {
  return {
    kind: 'local',
    async screen(q): Promise<PepScreenResponseT> {
      const matches = index.search(q);
      return { value: q.name, pep: matches.some((m) => m.match), dataset, matches };
    },
  };
}
