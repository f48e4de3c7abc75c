import { createHash } from 'node:crypto';

/**
 * The fields of a listed party's record whose change re-opens a false positive (issue #38), each
 * as a sorted list of texts so that a reordering by the source is no change. A name match carries
 * them in its party metadata (caption, aliases, birth_dates, identifiers, programs); an exact
 * match's entity metadata has those of them its source gives (`name`, `sdn_name`, `programs`).
 * Score, explanation and review are about the screening, not the party, and are left out.
 */
export interface PartyRecord {
  name: string[];
  aliases: string[];
  birth_dates: string[];
  identifiers: string[];
  programs: string[];
}

/** How the fields read in a change's sentence ("birth dates: 1982-01-08 → 1984-01-08"). */
export const PARTY_FIELDS: readonly [key: keyof PartyRecord, label: string][] = [
  ['name', 'name'],
  ['aliases', 'aliases'],
  ['birth_dates', 'birth dates'],
  ['identifiers', 'identifiers'],
  ['programs', 'programs'],
];

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

function texts(v: unknown, one: (x: Record<string, unknown>) => unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const x of v) {
    const t =
      typeof x === 'string' ? x : x !== null && typeof x === 'object' ? one(x as Record<string, unknown>) : null;
    if (typeof t === 'string' && t !== '') out.push(t);
  }
  return sorted(out);
}

function identifier(x: Record<string, unknown>): string | null {
  if (typeof x.value !== 'string') return null;
  const type = typeof x.type === 'string' ? `${x.type} ` : '';
  const country = typeof x.country === 'string' ? ` (${x.country})` : '';
  return `${type}${x.value}${country}`;
}

/** The party record of a match as answered (`evidence.metadata`). */
export function partyRecord(evidence: Readonly<Record<string, unknown>>): PartyRecord {
  const m = (evidence.metadata ?? {}) as Record<string, unknown>;
  const name = [m.caption, m.name, m.sdn_name].find((n): n is string => typeof n === 'string' && n !== '');
  return {
    name: name === undefined ? [] : [name],
    aliases: texts(m.aliases, (a) => a.name),
    birth_dates: texts(m.birth_dates, () => null),
    identifiers: texts(m.identifiers, identifier),
    programs: texts(m.programs, () => null),
  };
}

/** A short digest of a record: equal records, equal fingerprints. */
export function fingerprint(p: PartyRecord): string {
  const canonical = JSON.stringify(PARTY_FIELDS.map(([key]) => p[key]));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}
