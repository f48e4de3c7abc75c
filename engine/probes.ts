/**
 * The probes of a screening in the exact indexes, as each kind's rule (kinds.ts) makes them, and
 * those of a free-text search. The engine's screening (`Engine.screenExact`, and the exact part of
 * a government-ID screening), its free-text search and the matching of one record (match-one.ts:
 * webhook monitoring) all read them, so they cannot drift apart; test/engine/probes.test.ts holds screening
 * and monitoring equal for every entity type.
 */
import { kindRule, type ProbeSink, type ScreenKind } from './kinds.js';
import { ENTITY_TYPES, TYPE_INDEX as T, type MatchKind } from './model.js';
import { canonicalKey } from './normalize/index.js';
import { prepareValue, ValueProblem, type PreparedValue } from './normalize/validate.js';

export type { ScreenKind } from './kinds.js';

/**
 * Probes as parallel arrays, the first `length` entries valid: an entity type's exact index (its
 * TYPE_INDEX), the key, how a hit matches. Screening is the hot path: a list is reused from one
 * screening to the next, and its entries are plain numbers and strings.
 */
export class ProbeList implements ProbeSink {
  length = 0;
  readonly types: number[] = [];
  readonly keys: string[] = [];
  readonly matches: MatchKind[] = [];

  add(type: number, key: string, match: MatchKind): void {
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
    const prepared = prepareValue(kindRule(kind), value);
    if (prepared instanceof ValueProblem) {
      this.length = 0;
      return this;
    }
    return this.prepared(kind, prepared, caselessCrypto);
  }

  /**
   * The probes of a value already validated and normalized by `prepareValue`, so a value is
   * normalized once whether it came alone or in a batch. `caselessCrypto`: see `KindRule.probe`.
   */
  prepared(kind: ScreenKind, p: PreparedValue, caselessCrypto = false): this {
    this.length = 0;
    kindRule(kind).probe(this, p, caselessCrypto);
    return this;
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
