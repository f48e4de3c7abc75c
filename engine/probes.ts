/**
 * How each kind of screened value is probed in the exact indexes: the one table of screening
 * rules. The engine's screening (`Engine.screenExact`, and the exact part of a government-ID
 * screening), its free-text search and the matching of one record (match-one.ts: webhook
 * monitoring) all read it, so they cannot drift apart; test/engine/probes.test.ts holds screening
 * and monitoring equal for every entity type.
 */
import { ENTITY_TYPES, TYPE_INDEX as T, type MatchKind } from './model.js';
import { canonicalKey, domainAncestors, regionsOf } from './normalize/index.js';
import type { CountryRef } from './normalize/country.js';
import { prepareValue, ValueProblem, type PreparedValue, type ValueKind } from './normalize/validate.js';

/** The kinds of screened values (one validator each, normalize/validate.ts). */
export type ScreenKind = ValueKind;

/** A base58 address (Bitcoin legacy, Tron, Litecoin, Monero, ...): its case is part of it. */
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{25,110}$/;

/**
 * Probes as parallel arrays, the first `length` entries valid: an entity type's exact index (its
 * TYPE_INDEX), the key, how a hit matches. Screening is the hot path: a list is reused from one
 * screening to the next, and its entries are plain numbers and strings.
 */
export class ProbeList {
  length = 0;
  readonly types: number[] = [];
  readonly keys: string[] = [];
  readonly matches: MatchKind[] = [];

  private add(type: number, key: string, match: MatchKind): void {
    const i = this.length++;
    this.types[i] = type;
    this.keys[i] = key;
    this.matches[i] = match;
  }

  /**
   * The exact-index probes of a screening of `value`, in order; none when the value is not of its
   * kind (normalize/validate.ts refuses it before it gets here on every request path).
   * `caselessCrypto`: see `prepared`.
   */
  screening(kind: ScreenKind, value: string, caselessCrypto = false): this {
    const prepared = prepareValue(kind, value);
    if (prepared instanceof ValueProblem) {
      this.length = 0;
      return this;
    }
    return this.prepared(kind, prepared, caselessCrypto);
  }

  /**
   * The probes of a value already validated and normalized by `prepareValue`, so a value is
   * normalized once whether it came alone or in a batch. A crypto address is keyed by its key
   * alone (the chain detection of `normalizeCrypto` costs base58 checksums for the same key).
   * `caselessCrypto`: some listed base58 addresses are known only in lower case (a source lost
   * their case), so a mixed-case key is also probed in lower case.
   */
  prepared(kind: ScreenKind, p: PreparedValue, caselessCrypto = false): this {
    this.length = 0;
    switch (kind) {
      case 'crypto': {
        const key = p as string;
        this.add(T.crypto_address, key, 'exact');
        if (caselessCrypto && BASE58.test(key)) {
          const lower = key.toLowerCase();
          if (lower !== key) this.add(T.crypto_address, lower, 'exact');
        }
        return this;
      }
      case 'id':
        this.add(T.government_id, p as string, 'exact');
        return this;
      case 'email': {
        const e = p as { key: string; domain: string };
        this.add(T.email, e.key, 'exact');
        this.add(T.email_domain, e.domain, 'domain');
        for (const d of domainAncestors(e.domain)) this.add(T.email_domain, d, 'domain');
        return this;
      }
      case 'website': {
        const host = p as string;
        this.add(T.website, host, 'exact');
        for (const d of domainAncestors(host)) this.add(T.website, d, 'subdomain');
        return this;
      }
      case 'country': {
        const c = p as CountryRef;
        this.add(T.country, c.code, 'exact');
        for (const r of regionsOf(c.code)) this.add(T.country, r.code, 'region');
        if (c.parent) this.add(T.country, c.parent, 'region');
        return this;
      }
    }
  }

  /**
   * The exact-index probes of a free-text search: the query as a value of each entity type, keyed
   * as the indexes key that type (`canonicalKey`), every hit `exact`.
   */
  search(query: string): this {
    this.length = 0;
    for (const type of SEARCHED_TYPES) {
      const key = canonicalKey(type, query);
      if (key !== null) this.add(T[type], key, 'exact');
    }
    return this;
  }
}

/**
 * Entity types a free-text search looks up exactly (names are searched by similarity; a party is
 * found through its names, not its source id).
 */
const SEARCHED_TYPES = ENTITY_TYPES.filter((t) => t !== 'name' && t !== 'party');
