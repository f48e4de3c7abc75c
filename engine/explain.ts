import type { Metadata } from './model.js';
import type { MatchExplanation } from './names/party.js';
import { prepareName } from './names/index.js';
import { normalizeCountry, normalizeEmail, normalizeWebsite } from './normalize/index.js';

/**
 * A match told in one or two plain sentences, for people reading an answer, an audit row or an
 * alert: made only from what the match itself carries (its list's display name, the listed value,
 * its metadata, a name match's score and explanation) and what was screened.
 */

/** A match of an exact kind (crypto address, e-mail, website, identifier, country). */
export interface ListedMatch {
  /** The value screened, as the client sent it. */
  screened: string;
  listName: string;
  entityType: string;
  match: string;
  /** The value as published on the list. */
  value: string;
  metadata: Metadata;
}

/** A name screened against a listed party. */
export interface NameMatch {
  screened: string;
  listName: string;
  /** The party's name that scored best (`value` of the match). */
  name: string;
  /** `<list>:<id at the source>`. */
  partyId: string;
  caption: string;
  score: number;
  threshold: number;
  explanation: MatchExplanation;
  birthDates: readonly string[];
  countries: readonly string[];
  /** Whether the screening gave a birth date and a country. */
  birthDateGiven: boolean;
  countryGiven: boolean;
}

/** A candidate of a politically-exposed-persons dataset. */
export interface PepCandidate {
  caption: string;
  score: number;
  threshold: number;
  positions: readonly string[];
  countries: readonly string[];
}

const NETWORKS: Record<string, string> = {
  bitcoin: 'Bitcoin',
  ethereum: 'Ethereum',
  litecoin: 'Litecoin',
  tron: 'Tron',
  monero: 'Monero',
  zcash: 'Zcash',
  dash: 'Dash',
  bitcoin_cash: 'Bitcoin Cash',
  bitcoin_gold: 'Bitcoin Gold',
  ethereum_classic: 'Ethereum Classic',
  ripple: 'XRP Ledger',
  solana: 'Solana',
  bsc: 'BNB Smart Chain',
  arbitrum: 'Arbitrum',
  polygon: 'Polygon',
  verge: 'Verge',
};

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** ` as NAME (programs A, B)`: the listed party and its programmes, as far as the metadata names them. */
function partyClause(metadata: Metadata): string {
  const name = text(metadata.sdn_name) ?? text(metadata.name);
  const programs = strings(metadata.programs);
  return (
    (name ? ` as ${name}` : '') +
    (programs.length > 0 ? ` (program${programs.length > 1 ? 's' : ''} ${programs.join(', ')})` : '')
  );
}

function networkName(metadata: Metadata): string | null {
  const network = text(metadata.network);
  if (network) return NETWORKS[network.toLowerCase()] ?? network;
  return text(metadata.symbol);
}

function cryptoSentence(m: ListedMatch): string {
  const network = networkName(m.metadata);
  const role = text(m.metadata.role);
  const pool = text(m.metadata.pool);
  const what = `The ${network ? `${network} ` : ''}address`;
  if (role) return `${what} is listed on ${m.listName} as a ${role}${pool ? ` of pool ${pool}` : ''}.`;
  return `${what} is listed on ${m.listName}${partyClause(m.metadata)}.`;
}

/** `listed domain D, a parent of H` when the screened host lies under the listed domain, else `listed domain D`. */
function domainClause(listed: string, host: string | null): string {
  const domain = listed.toLowerCase();
  return host && host !== domain ? `listed domain ${domain}, a parent of ${host}` : `listed domain ${domain}`;
}

function emailSentence(m: ListedMatch): string {
  if (m.match === 'domain' || m.entityType === 'email_domain') {
    const host = normalizeEmail(m.screened)?.domain ?? null;
    return `The e-mail address matched ${m.listName} by its domain: ${domainClause(m.value, host)}${partyClause(m.metadata)}.`;
  }
  return `The e-mail address ${m.value} is listed on ${m.listName}${partyClause(m.metadata)}.`;
}

function websiteSentence(m: ListedMatch): string {
  if (m.match === 'subdomain')
    return `The website matched ${m.listName} by its host: ${domainClause(m.value, normalizeWebsite(m.screened))}${partyClause(m.metadata)}.`;
  return `The website ${m.value} is listed on ${m.listName}${partyClause(m.metadata)}.`;
}

function countrySentence(m: ListedMatch): string {
  const listed = text(m.metadata.name) ?? m.value;
  const programs = strings(m.metadata.programs);
  const under = `${m.listName}${programs.length > 0 ? ` (program${programs.length > 1 ? 's' : ''} ${programs.join(', ')})` : ''}`;
  if (m.match !== 'region') return `${listed} is designated on ${under}.`;
  const screened = normalizeCountry(m.screened);
  const name = screened?.name ?? m.screened;
  // A region match goes either way: the screened country holds a listed region, or the screened region lies in a listed country.
  return screened?.kind === 'region'
    ? `${name} lies in ${listed}, which is designated on ${under}.`
    : `${name} contains ${listed}, a region designated on ${under}.`;
}

function identifierSentence(m: ListedMatch): string {
  if (m.match === 'fuzzy')
    return `The identifier is close to ${m.value}, listed on ${m.listName}${partyClause(m.metadata)}.`;
  return `The identifier ${m.value} is listed on ${m.listName}${partyClause(m.metadata)}.`;
}

/** The sentence of a match of an exact kind. */
export function explainListed(m: ListedMatch): string {
  switch (m.entityType) {
    case 'crypto_address':
      return cryptoSentence(m);
    case 'email':
    case 'email_domain':
      return emailSentence(m);
    case 'website':
      return websiteSentence(m);
    case 'country':
      return countrySentence(m);
    case 'government_id':
      return identifierSentence(m);
    default:
      return `${m.value} is listed on ${m.listName}${partyClause(m.metadata)}.`;
  }
}

const COUNTS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const count = (n: number) => COUNTS[n] ?? String(n);
const quoted = (tokens: readonly string[]) => tokens.map((t) => `'${t}'`).join(', ');

/** Edit distance of two short tokens (a name part is rarely over 20 letters). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/**
 * Which parts of the listed name agree with the screened one: equal once both are transliterated
 * and spelling-folded (the matcher's own first comparison); each other part is paired with the
 * closest screened part left.
 */
function nameParts(screened: string, listed: string, label: string): string {
  const a = prepareName(listed).latin;
  const b = prepareName(screened).latin;
  const left = b.folded.map((f, i) => ({ f, token: b.tokens[i] }));
  const agreeing: string[] = [];
  const others: number[] = [];
  a.folded.forEach((f, i) => {
    const at = left.findIndex((t) => t.f === f);
    if (at < 0) others.push(i);
    else {
      agreeing.push(a.tokens[i]);
      left.splice(at, 1);
    }
  });
  const n = a.tokens.length;
  if (n === 0) return `The name ${label}`;
  const close = others.map((i) => {
    let best = -1;
    for (let j = 0; j < left.length; j++)
      if (best < 0 || distance(a.folded[i], left[j].f) < distance(a.folded[i], left[best].f)) best = j;
    if (best < 0) return `'${a.tokens[i]}' has no counterpart`;
    const pair = `'${a.tokens[i]}' is close to '${left[best].token}'`;
    left.splice(best, 1);
    return pair;
  });
  const added = left.length > 0 ? `; the screened name adds ${quoted(left.map((t) => t.token))}` : '';
  if (others.length === 0) {
    const all = n === 1 ? 'The one name part' : n === 2 ? 'Both name parts' : `All ${count(n)} name parts`;
    return `${all} of ${label} agree${n === 1 ? 's' : ''}${added}`;
  }
  const head =
    agreeing.length === 0
      ? `No name part of ${label} is spelled the same`
      : `${count(agreeing.length)[0].toUpperCase()}${count(agreeing.length).slice(1)} of ${count(n)} name parts of ${label} agree (${quoted(agreeing)})`;
  return `${head}; ${close.join(', ')}${added}`;
}

const score = (n: number) => n.toFixed(2);
const change = (n: number) => (n > 0 ? `+${score(n)}` : score(n));

function birthDateClause(m: NameMatch): string {
  const listed = m.birthDates.join(', ');
  switch (m.explanation.birth_date.effect) {
    case 'agrees':
      return `the birth date agrees with ${listed} (${change(m.explanation.birth_date.change)})`;
    case 'near':
      return `the birth date is a year off ${listed} (no change)`;
    case 'conflicts':
      return `the birth date conflicts with ${listed} (${change(m.explanation.birth_date.change)})`;
    default:
      return m.birthDateGiven ? 'the party has no birth date on record' : 'no birth date given';
  }
}

function countryClause(m: NameMatch): string | null {
  switch (m.explanation.country.effect) {
    case 'agrees':
      return `the country agrees (${change(m.explanation.country.change)})`;
    case 'differs':
      return `the country differs from ${m.countries.join(', ')} (no change)`;
    default:
      return m.countryGiven ? 'the party has no country on record' : null;
  }
}

/** The sentence of a name match: which name parts agree, what the birth date and country did, the score. */
export function explainName(m: NameMatch): string {
  const colon = m.partyId.indexOf(':');
  const sourceId = colon >= 0 ? m.partyId.slice(colon + 1) : m.partyId;
  const role = m.name === m.caption ? 'primary name' : 'alias';
  const label = `'${m.name}' (${role} of ${m.listName} party ${sourceId})`;
  const clauses = [nameParts(m.screened, m.name, label), birthDateClause(m)];
  const country = countryClause(m);
  if (country) clauses.push(country);
  if (m.explanation.party_type.effect === 'agrees') clauses.push('the party type agrees');
  const weak = m.explanation.weak_names_left_out;
  if (weak > 0) clauses.push(`${count(weak)} weak name${weak > 1 ? 's' : ''} left out`);
  clauses.push(`score ${score(m.score)}, threshold ${score(m.threshold)}`);
  return `${clauses.join('; ')}.`;
}

/** The sentence of a PEP candidate: who, in which positions and countries, and whether it reaches the threshold. */
export function explainPep(c: PepCandidate): string {
  const held = c.positions.length > 0 ? `, ${c.positions.slice(0, 3).join('; ')}` : '';
  const where = c.countries.length > 0 ? ` (${c.countries.map((s) => s.toUpperCase()).join(', ')})` : '';
  const verdict = c.score >= c.threshold ? 'reaches' : 'is below';
  return `${c.caption}${held}${where} is a politically exposed person candidate; score ${score(c.score)} ${verdict} the threshold ${score(c.threshold)}.`;
}
