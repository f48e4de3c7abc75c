import { hash } from 'node:crypto';
import type { EntityRecord, EntityType, ListSnapshotInfo, Metadata, PartyMetadata } from '../engine/model.js';
import { rng } from './random.js';

/**
 * Deterministic synthetic list data for engine tests and benchmarks. The entity-type mix follows
 * the shared real data (OFAC SDN + UN names, aliases and documents; OFAC and scam-database
 * addresses and sites; disposable e-mail domains): roughly 36% names, 17% government IDs,
 * 16% websites, 12% crypto addresses, 12% e-mail domains, 7% e-mails, a handful of countries.
 * About 2% of entities are delisted.
 */
export const SYNTHETIC_LISTS: ListSnapshotInfo[] = [
  { slug: 'ofac_sdn', list_type: 'sanctions', version: 'synthetic', last_updated: '2026-01-01T00:00:00Z' },
  { slug: 'un_consolidated', list_type: 'sanctions', version: 'synthetic', last_updated: '2026-01-01T00:00:00Z' },
  { slug: 'crypto_scam', list_type: 'crime', version: 'synthetic', last_updated: '2026-01-01T00:00:00Z' },
  { slug: 'disposable_email', list_type: 'risk', version: 'synthetic', last_updated: '2026-01-01T00:00:00Z' },
];

const MIX: [EntityType, number][] = [
  ['name', 0.36],
  ['government_id', 0.17],
  ['website', 0.16],
  ['crypto_address', 0.12],
  ['email_domain', 0.12],
  ['email', 0.069],
  ['country', 0.001],
];

const ONSETS = [
  'b',
  'ch',
  'd',
  'f',
  'g',
  'h',
  'j',
  'k',
  'kh',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  'sh',
  't',
  'v',
  'y',
  'z',
  'al',
  'ab',
  'o',
  'i',
  'e',
];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ia', 'ei', 'ar', 'an', 'in', 'or', 'ov', 'ev', 'im', 'ul'];
const CODAS = ['', '', 'n', 'r', 'm', 'd', 'v', 'k', 'sh', 'z', 'l', 'ev', 'ova', 'ian', 'ez', 'i', 'ed'];
const COMPANY = [
  'TRADING',
  'LLC',
  'LTD',
  'COMPANY',
  'HOLDING',
  'GROUP',
  'INDUSTRIES',
  'SHIPPING',
  'BANK',
  'JSC',
  'GMBH',
  'FZE',
  'CORP',
];
const TLDS = ['com', 'net', 'org', 'io', 'ru', 'co', 'info', 'xyz', 'biz', 'cn', 'ir', 'me'];
const COUNTRIES = [
  'Iran',
  'KP',
  'Syria',
  'CUB',
  'Russia',
  'Belarus',
  'Venezuela',
  'Myanmar',
  'Crimea',
  'Sudan',
  'IQ',
  'LY',
  'SO',
  'YE',
  'ZW',
  'AF',
];
const HEX = '0123456789abcdef';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
/** Base58check version bytes: Bitcoin P2PKH (`1...`) and Tron (`T...`). */
const VERSION_BTC = 0x00;
const VERSION_TRON = 0x41;

function base58(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '';
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out += '1';
  for (let i = digits.length - 1; i >= 0; i--) out += BASE58[digits[i]];
  return out;
}

/** Base58check of a version byte and a 20-byte hash: what wallets publish. */
function base58check(version: number, payload: Uint8Array): string {
  const body = new Uint8Array(21);
  body[0] = version;
  body.set(payload, 1);
  const sum = hash('sha256', hash('sha256', body, 'buffer'), 'buffer');
  const full = new Uint8Array(25);
  full.set(body);
  full.set(sum.subarray(0, 4), 21);
  return base58(full);
}

function bech32Polymod(values: number[]): number {
  const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i];
  }
  return chk >>> 0;
}

/** Segwit v0 address (BIP 173) of a 20-byte program: `bc1q` + 38 characters with a valid checksum. */
function segwitV0(program: Uint8Array): string {
  const data = [0];
  let acc = 0;
  let bits = 0;
  for (const b of program) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      data.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) data.push((acc << (5 - bits)) & 31);
  const hrp = [3, 3, 0, 2, 3]; // 'bc' expanded: high bits, 0, low bits
  const mod = bech32Polymod([...hrp, ...data, 0, 0, 0, 0, 0, 0]) ^ 1;
  let out = 'bc1';
  for (const d of data) out += BECH32[d];
  for (let i = 0; i < 6; i++) out += BECH32[(mod >>> (5 * (5 - i))) & 31];
  return out;
}

/** Dates as the records carry them, made once (fresh strings per record would only churn the heap). */
const LISTED_AT = Array.from({ length: 15 }, (_, y) =>
  Array.from({ length: 9 }, (_, m) => `20${10 + y}-0${1 + m}-15T00:00:00Z`),
);
const REMOVED_AT = Array.from({ length: 9 }, (_, m) =>
  Array.from({ length: 18 }, (_, d) => `2025-0${1 + m}-${10 + d}T00:00:00Z`),
);
const DIGITS = '0123456789';
const UPPER = 'ABCDEFGHJKLMNPRSTUVWXYZ';

export class Synth {
  constructor(readonly r: () => number) {}

  int(n: number): number {
    return Math.floor(this.r() * n);
  }

  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }

  /**
   * `n` random characters of `alphabet`, as one flat string: appending them one by one builds a
   * rope of `n` pieces, which V8 reads a character at a time more slowly than the flat strings
   * parsed list files and requests give (an exact lookup of a 42-character rope took ~1.5x as long).
   */
  chars(alphabet: string, n: number): string {
    const codes = new Array<number>(n);
    for (let i = 0; i < n; i++) codes[i] = alphabet.charCodeAt(this.int(alphabet.length));
    return String.fromCharCode(...codes);
  }

  word(): string {
    let w = '';
    const syllables = 1 + this.int(3);
    for (let i = 0; i < syllables; i++) w += this.pick(ONSETS) + this.pick(NUCLEI);
    return w + this.pick(CODAS);
  }

  cap(w: string): string {
    return w[0].toUpperCase() + w.slice(1);
  }

  name(): string {
    if (this.r() < 0.3) return `${this.word().toUpperCase()} ${this.word().toUpperCase()} ${this.pick(COMPANY)}`;
    const parts = [this.cap(this.word()), this.cap(this.word())];
    if (this.r() < 0.4) parts.splice(1, 0, this.cap(this.word()));
    return this.r() < 0.5
      ? `${parts[parts.length - 1].toUpperCase()}, ${parts.slice(0, -1).join(' ')}`
      : parts.join(' ');
  }

  governmentId(): string {
    switch (this.int(4)) {
      case 0:
        return this.chars(UPPER, 1) + this.chars(DIGITS, 8);
      case 1:
        return this.chars(DIGITS, 10 + this.int(3));
      case 2:
        return `${this.chars(UPPER, 2)}-${this.chars(DIGITS, 6)}`;
      default:
        return `${this.chars(DIGITS, 3)} ${this.chars(DIGITS, 3)} ${this.chars(DIGITS, 3)}`;
    }
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }

  /** Half EVM (lower-case hex), a quarter bech32 segwit, a quarter base58check (Bitcoin, Tron); valid checksums. */
  crypto(): string {
    switch (this.int(4)) {
      case 0:
      case 1:
        return '0x' + this.chars(HEX, 40);
      case 2:
        return segwitV0(this.bytes(20));
      default:
        return base58check(this.r() < 0.5 ? VERSION_BTC : VERSION_TRON, this.bytes(20));
    }
  }

  domain(): string {
    return `${this.word()}${this.r() < 0.3 ? '-' + this.word() : ''}${this.int(100)}.${this.pick(TLDS)}`;
  }
}

function listFor(type: EntityType, s: Synth): string {
  switch (type) {
    case 'email_domain':
      return 'disposable_email';
    case 'website':
    case 'crypto_address':
      return s.r() < 0.7 ? 'crypto_scam' : 'ofac_sdn';
    default:
      return s.r() < 0.8 ? 'ofac_sdn' : 'un_consolidated';
  }
}

const SOURCE: Record<string, string> = {
  ofac_sdn: 'https://www.treasury.gov/ofac/downloads/sdn.csv',
  un_consolidated: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml',
  crypto_scam: 'https://cryptoscamdb.org/',
  disposable_email: 'https://github.com/disposable-email-domains/disposable-email-domains',
};

const BIRTH_YEARS = 60;

/** A party of the names drawn so far: its id, list, names and type. */
interface OpenParty {
  id: string;
  list: string;
  names: string[];
  /** Names it takes before its record is published (1 to 3). */
  size: number;
}

/** The `party` record of a synthetic party: its names, a birth year for a person, a country. */
function partyRecord(p: OpenParty, s: Synth): EntityRecord {
  const organization = /\b(TRADING|LLC|LTD|COMPANY|HOLDING|GROUP|INDUSTRIES|SHIPPING|BANK|JSC|GMBH|FZE|CORP)$/.test(
    p.names[0],
  );
  const metadata: PartyMetadata = {
    name: p.names[0],
    party_type: organization ? 'organization' : 'person',
    aliases: p.names.slice(1).map((name) => ({ name, type: 'a.k.a.', weak: false })),
    birth_dates: organization ? [] : [String(1940 + s.int(BIRTH_YEARS))],
    countries: [s.pick(COUNTRIES)],
    identifiers: [],
    programs: [],
  };
  return {
    list: p.list,
    entity_type: 'party',
    value: p.id,
    metadata,
    source_url: SOURCE[p.list],
    listed_at: LISTED_AT[0][0],
    removed_at: null,
  };
}

export interface SyntheticOptions {
  /**
   * Names grouped into listed parties of 1 to 3 names (a typo variant or another name as aliases),
   * each name carrying `party_id` and each party published as a `party` record after its last
   * name, in addition to the `n` records.
   */
  parties?: boolean;
}

/** `n` records (and, with `parties`, the party records) in a stable order for a given seed; streamed, nothing is held. */
export function* syntheticRecords(n: number, seed = 1, opts: SyntheticOptions = {}): Generator<EntityRecord> {
  const s = new Synth(rng(seed));
  const partySynth = new Synth(rng(seed + 1_000_003));
  let party: OpenParty | null = null;
  let parties = 0;
  const cumulative: [EntityType, number][] = [];
  let acc = 0;
  for (const [t, p] of MIX) cumulative.push([t, (acc += p)]);
  for (let i = 0; i < n; i++) {
    const x = s.r() * acc;
    const type = cumulative.find(([, c]) => x < c)![0];
    let value: string;
    switch (type) {
      case 'name':
        value = party && party.names.length > 0 && partySynth.r() < 0.5 ? typo(party.names[0], partySynth) : s.name();
        break;
      case 'government_id':
        value = s.governmentId();
        break;
      case 'website':
        value = s.r() < 0.5 ? `https://${s.domain()}/` : s.domain();
        break;
      case 'crypto_address':
        value = s.crypto();
        break;
      case 'email_domain':
        value = s.domain();
        break;
      case 'email':
        value = `${s.word()}.${s.int(1000)}@${s.domain()}`;
        break;
      default:
        value = s.pick(COUNTRIES);
    }
    let list = listFor(type, s);
    const delisted = s.r() < 0.02;
    const metadata: Metadata = { uid: i };
    if (opts.parties && type === 'name') {
      party ??= { id: `P${++parties}`, list, names: [], size: 1 + partySynth.int(3) };
      list = party.list;
      party.names.push(value);
      metadata.party_id = party.id;
    }
    yield {
      list,
      entity_type: type,
      value,
      metadata,
      source_url: SOURCE[list],
      listed_at: LISTED_AT[s.int(15)][s.int(9)],
      removed_at: delisted ? REMOVED_AT[s.int(9)][s.int(18)] : null,
    };
    if (party && party.names.length === party.size) {
      yield partyRecord(party, partySynth);
      party = null;
    }
  }
  if (party) yield partyRecord(party, partySynth);
}

/** A typo variant of a name (one letter replaced, dropped or swapped), for fuzzy benchmarks. */
export function typo(value: string, s: Synth): string {
  const letters = [...value].map((c, i) => (/[A-Za-z]/.test(c) ? i : -1)).filter((i) => i > 0);
  if (letters.length === 0) return value;
  const i = s.pick(letters);
  switch (s.int(3)) {
    case 0:
      return value.slice(0, i) + s.chars('abcdefghijklmnopqrstuvwxyz', 1) + value.slice(i + 1);
    case 1:
      return value.slice(0, i) + value.slice(i + 1);
    default:
      return i + 1 < value.length ? value.slice(0, i) + value[i + 1] + value[i] + value.slice(i + 2) : value;
  }
}
