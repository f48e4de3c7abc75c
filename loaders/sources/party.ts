import type {
  EntityRecord,
  Metadata,
  PartyAlias,
  PartyIdentifier,
  PartyMetadata,
  PartyType,
} from '../../engine/model.js';

/**
 * One listed party as a source parser reads it: names, birth dates, countries and identifiers
 * gathered while the party's entries go by, then published as one `party` record (engine/model.ts
 * `PartyMetadata`). Names, dates, countries and identifiers are kept once each, in source order.
 */
export class PartyBuilder {
  private readonly aliases: PartyAlias[] = [];
  private readonly names = new Set<string>();
  private readonly dates = new Set<string>();
  private readonly countries = new Set<string>();
  private readonly identifiers: PartyIdentifier[] = [];
  private readonly identifierKeys = new Set<string>();

  constructor(
    /** The party's id at its source (OFAC uid, UN reference number, EU logicalId, UK unique id). */
    readonly id: string,
    /** The primary name. */
    readonly name: string,
    readonly type: PartyType | null,
  ) {
    this.names.add(name);
  }

  alias(name: string, type: string, weak: boolean): void {
    const value = name.trim();
    if (!value || this.names.has(value)) return;
    this.names.add(value);
    this.aliases.push({ name: value, type, weak });
  }

  /** A birth date as the source writes it (see `birthDate`); ignored when unreadable. */
  birthDate(text: string | null | undefined): void {
    const date = text ? birthDate(text) : null;
    if (date) this.dates.add(date);
  }

  country(value: string | null | undefined): void {
    const v = value?.trim();
    if (v) this.countries.add(v);
  }

  identifier(type: string | null, value: string, country: string | null): void {
    const v = value.trim();
    const key = `${type ?? ''}\u0000${v}`;
    if (!v || this.identifierKeys.has(key)) return;
    this.identifierKeys.add(key);
    this.identifiers.push({ type, value: v, country });
  }

  /** The `party` record; `extra` holds the source's own keys (programmes, reference numbers, ...). */
  record(list: string, sourceUrl: string | null, programs: string[], extra: Metadata = {}): EntityRecord {
    const metadata: PartyMetadata = {
      ...extra,
      name: this.name,
      party_type: this.type,
      aliases: this.aliases,
      birth_dates: [...this.dates],
      countries: [...this.countries],
      identifiers: this.identifiers,
      programs,
    };
    return {
      list,
      entity_type: 'party',
      value: this.id,
      metadata,
      source_url: sourceUrl,
      listed_at: null,
      removed_at: null,
    };
  }
}

const MONTHS: Record<string, number> = {
  JAN: 1,
  FEB: 2,
  MAR: 3,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AUG: 8,
  SEP: 9,
  OCT: 10,
  NOV: 11,
  DEC: 12,
};

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY`, `YYYY-MM` or `YYYY-MM-DD` of one date written `10 Dec 1948`, `Dec 1948`, `1948`, `1948-12-10`, `10/12/1948`. */
function oneDate(text: string): { year: number; iso: string } | null {
  const t = text.trim().replace(/\.$/, '');
  let m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(t);
  if (m) {
    const month = Number(m[2] ?? 0);
    const day = Number(m[3] ?? 0);
    const year = Number(m[1]);
    return { year, iso: month ? (day ? `${m[1]}-${m[2]}-${m[3]}` : `${m[1]}-${m[2]}`) : String(year) };
  }
  m = /^(?:(\d{1,2})\s+)?([A-Za-z]{3})[a-z]*\.?\s+(\d{4})$/.exec(t);
  if (m) {
    const month = MONTHS[m[2].toUpperCase()];
    if (!month) return null;
    return { year: Number(m[3]), iso: m[1] ? `${m[3]}-${pad(month)}-${pad(Number(m[1]))}` : `${m[3]}-${pad(month)}` };
  }
  // Day first (UK list): `01/01/1970`; `00` stands for an unknown day or month.
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(t);
  if (m) {
    const day = Number(m[1]);
    const month = Number(m[2]);
    if (month > 12 || day > 31) return null;
    return {
      year: Number(m[3]),
      iso: month ? (day ? `${m[3]}-${pad(month)}-${pad(day)}` : `${m[3]}-${pad(month)}`) : m[3],
    };
  }
  return null;
}

/**
 * A birth date as the lists write it → `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or a range of years
 * `YYYY/YYYY` (`1960 to 1962`, `01 Jan 1960 to 31 Dec 1962`, and `circa 1957`, which is taken as a
 * year either side); null when it cannot be read.
 */
function birthDate(text: string): string | null {
  const t = text.trim().replace(/\.$/, '');
  const circa = /^(?:circa|approx(?:imately)?\.?|about|c\.)\s+(.+)$/i.exec(t);
  if (circa) {
    const d = oneDate(circa[1]);
    return d ? `${d.year - 1}/${d.year + 1}` : null;
  }
  const range = /^(.+?)\s*(?:\bto\b|-|–|\/)\s*(.+)$/i.exec(t);
  if (range && !/^\d{1,2}\/\d{1,2}\/\d{4}$/.test(t) && !/^\d{4}-\d{2}/.test(t)) {
    const from = oneDate(range[1]);
    const to = oneDate(range[2]);
    if (from && to)
      return from.year === to.year
        ? String(from.year)
        : `${Math.min(from.year, to.year)}/${Math.max(from.year, to.year)}`;
  }
  return oneDate(t)?.iso ?? null;
}
