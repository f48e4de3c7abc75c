import { PEP_TOPICS, entityUrl } from './types.js';

/**
 * Reading PEP entities from OpenSanctions exports, one JSON object per line, in either of two
 * layouts: FollowTheMoney (`{"id","schema","properties":{...},"datasets":[...]}`) or Senzing
 * (`{"RECORD_ID","RECORD_TYPE","NAMES":[...],"DATES":[...],"COUNTRIES":[...],"RISKS":[...]}`).
 */

export interface PepPerson {
  id: string;
  caption: string;
  /** Every name to match against: primary name first, then aliases. */
  names: string[];
  birth_dates: string[];
  /** Lower-case ISO codes as published. */
  countries: string[];
  topics: string[];
  positions: string[];
  datasets: string[];
  source_url: string;
}

type Json = Record<string, unknown>;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function isPep(topics: string[]): boolean {
  return topics.some((t) => (PEP_TOPICS as readonly string[]).includes(t));
}

/** A FollowTheMoney Person with a PEP topic, or null for any other entity. */
export function fromFtm(e: Json): PepPerson | null {
  if (e.schema !== 'Person' || typeof e.id !== 'string') return null;
  const p = (e.properties ?? {}) as Json;
  const topics = strings(p.topics);
  if (!isPep(topics)) return null;
  const names = unique([...strings(p.name), ...strings(p.alias)]);
  const caption = typeof e.caption === 'string' && e.caption ? e.caption : names[0];
  if (!caption) return null;
  return {
    id: e.id,
    caption,
    names: names.length ? names : [caption],
    birth_dates: unique(strings(p.birthDate)),
    countries: unique(
      [...strings(p.country), ...strings(p.nationality), ...strings(p.citizenship)].map((c) => c.toLowerCase()),
    ),
    topics,
    positions: unique(strings(p.position)),
    datasets: strings(e.datasets),
    source_url: entityUrl(e.id),
  };
}

function senzingName(n: Json): string | null {
  if (typeof n.NAME_FULL === 'string' && n.NAME_FULL.trim()) return n.NAME_FULL;
  const parts = [n.NAME_FIRST, n.NAME_MIDDLE, n.NAME_LAST].filter(
    (x): x is string => typeof x === 'string' && x.trim() !== '',
  );
  return parts.length ? parts.join(' ') : null;
}

/** Collects Senzing records: persons, and the position records their relationships point to. */
export class SenzingReader {
  private readonly persons: (PepPerson & { positionKeys: string[] })[] = [];
  private readonly anchors = new Map<string, string>();

  add(r: Json): void {
    const names = (Array.isArray(r.NAMES) ? (r.NAMES as Json[]) : []).map((n) => ({
      type: n.NAME_TYPE,
      name: senzingName(n),
    }));
    const primary = names.find((n) => n.type === 'PRIMARY')?.name ?? names.find((n) => n.name)?.name ?? null;
    const rels = Array.isArray(r.RELATIONSHIPS) ? (r.RELATIONSHIPS as Json[]) : [];
    for (const rel of rels) {
      // A record that is a relationship anchor is what others point at: here, a position.
      if (typeof rel.REL_ANCHOR_KEY === 'string' && primary) this.anchors.set(rel.REL_ANCHOR_KEY, primary);
    }
    if (r.RECORD_TYPE !== 'PERSON' || typeof r.RECORD_ID !== 'string' || !primary) return;
    const topics = unique(
      (Array.isArray(r.RISKS) ? (r.RISKS as Json[]) : [])
        .map((x) => x.TOPIC)
        .filter((t): t is string => typeof t === 'string'),
    );
    if (!isPep(topics)) return;
    const dates = Array.isArray(r.DATES) ? (r.DATES as Json[]) : [];
    const countries = Array.isArray(r.COUNTRIES) ? (r.COUNTRIES as Json[]) : [];
    const source = typeof r.DATA_SOURCE === 'string' ? r.DATA_SOURCE : null;
    this.persons.push({
      id: r.RECORD_ID,
      caption: primary,
      names: unique([primary, ...names.map((n) => n.name).filter((n): n is string => n !== null)]),
      birth_dates: unique(
        dates.map((d) => d.DATE_OF_BIRTH).filter((d): d is string => typeof d === 'string' && d !== ''),
      ),
      countries: unique(
        countries
          .flatMap((c) => [c.NATIONALITY, c.CITIZENSHIP, c.REGISTRATION_COUNTRY])
          .filter((c): c is string => typeof c === 'string' && c !== '')
          .map((c) => c.toLowerCase()),
      ),
      topics,
      positions: [],
      // OpenSanctions names its Senzing data sources `OS_<DATASET>`.
      datasets: source ? [source.replace(/^OS_/, '').toLowerCase()] : [],
      source_url: typeof r.URL === 'string' && r.URL ? r.URL : entityUrl(r.RECORD_ID),
      positionKeys: rels.map((rel) => rel.REL_POINTER_KEY).filter((k): k is string => typeof k === 'string'),
    });
  }

  finish(): PepPerson[] {
    return this.persons.map(({ positionKeys, ...p }) => ({
      ...p,
      positions: unique(positionKeys.map((k) => this.anchors.get(k)).filter((x): x is string => x !== undefined)),
    }));
  }
}

/** Whether a parsed line is in Senzing layout (else FollowTheMoney). */
export function isSenzing(r: Json): boolean {
  return 'RECORD_ID' in r || 'DATA_SOURCE' in r;
}
