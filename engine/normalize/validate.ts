/**
 * The validators of the kinds of screened values (engine/kinds.ts gives each kind its own),
 * shared by every way a value arrives (REST, batch items, MCP, tRPC, monitored values): a value
 * that cannot be of its kind is refused, never screened as "not listed". Each accepts at least
 * what its normalizer keys, and every value on the loaded lists (test/engine/normalize/validate.test.ts).
 * The accepted shapes are listed in the README ("Accepted values").
 *
 * Validating a value normalizes it (`prepareValue`), and screening uses that result: the engine
 * probes with the prepared keys (`Engine.screenPrepared`), so a value is normalized once whether
 * it came alone or in a batch.
 */
import { normalize as ensNormalize } from 'viem/ens';
import { normalizeCountry, type CountryRef } from './country.js';
import { ADDRESS_MAX, ADDRESS_MIN, addressKey, cryptoKey } from './crypto.js';
import { normalizeEmail } from './email.js';
import { normalizeGovernmentId } from './government-id.js';
import { normalizeWebsite } from './website.js';

/**
 * A valid value's canonical form, as the engine's exact tables key it (what it is depends on the
 * kind, known to the caller): crypto, website and government ID a key string, e-mail its key and
 * domain, country its place. Nothing is allocated beyond what the normalizer returns: a batch
 * prepares 10,000 values at a time.
 */
export type PreparedValue = string | { key: string; domain: string } | CountryRef;

/** Why a value cannot be of its kind: the message of its 422. */
export class ValueProblem {
  constructor(readonly message: string) {}
}

/** A kind's validator and normalizer (the table of kinds, engine/kinds.ts, holds one per kind). */
export interface ValueValidator {
  prepare(value: string): PreparedValue | ValueProblem;
}

/** Longest government identifier (letters and digits once punctuation is dropped). */
const ID_MAX = 64;
const ALPHANUMERIC_ADDRESS = new RegExp(`^(?:[a-z][a-z0-9-]{0,31}:)?[A-Za-z0-9]{${ADDRESS_MIN},${ADDRESS_MAX}}$`);
/** C0 and C1 control characters (NUL, line breaks, escapes): no kind of value holds one. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const CONTROL_OR_SPACE = /[\s\x00-\x1f\x7f-\x9f]/;

const problem = (message: string) => new ValueProblem(message);
const NOT_CRYPTO = problem(
  `not a crypto address: expected 0x and 40 hexadecimal digits (EVM), ${ADDRESS_MIN} to ${ADDRESS_MAX} letters and digits ` +
    '(other chains, optionally after a chain prefix such as bitcoincash:), or an ENS name',
);
const NOT_HEX_ADDRESS = problem('not a crypto address: an EVM address is 0x and 40 hexadecimal digits');
const NOT_ENS_NAME = problem('not a valid ENS name');
const NOT_EMAIL = problem('not a valid e-mail address');
const NOT_WEBSITE = problem('not a website address or domain');
const NO_ID_CHARACTERS = problem('not a government identifier: it has no letters or digits');
const ID_TOO_LONG = problem(`not a government identifier: more than ${ID_MAX} letters and digits`);
const NOT_COUNTRY = problem(
  'not a known country or region: use an ISO 3166 alpha-2, alpha-3 or numeric code, an English name, or a designated region (e.g. Crimea, UA-43)',
);
const CONTROL_CHARACTERS = problem('control characters are not allowed');

/**
 * Crypto: `0x` and 40 to 64 hex digits (EVM; Aptos, Sui, StarkNet), any address of 25 to 128
 * ASCII letters and digits, optionally after a chain prefix and a colon (base58, bech32/bech32m,
 * CashAddr, Monero, bare hex keys: every format of the chains the lists carry, and the usual form
 * of other chains), or an ENS name (anything with a dot, ENSIP-15 normalizable). The shapes
 * admit no control character.
 */
export function prepareCrypto(raw: string): PreparedValue | ValueProblem {
  const key = addressKey(raw);
  if (key !== null) return key;
  const v = raw.trim();
  if (/^0x/i.test(v)) return NOT_HEX_ADDRESS;
  if (ALPHANUMERIC_ADDRESS.test(v)) return cryptoKey(v);
  if (!v.includes('.')) return NOT_CRYPTO;
  if (CONTROL_OR_SPACE.test(v)) return NOT_ENS_NAME;
  try {
    ensNormalize(v);
  } catch {
    return NOT_ENS_NAME;
  }
  return cryptoKey(v);
}

export function prepareEmail(v: string): PreparedValue | ValueProblem {
  // The local part's pattern admits no control character, the domain's labels neither.
  return normalizeEmail(v) ?? NOT_EMAIL;
}

export function prepareWebsite(v: string): PreparedValue | ValueProblem {
  if (CONTROL.test(v)) return CONTROL_CHARACTERS;
  return normalizeWebsite(v) ?? NOT_WEBSITE;
}

export function prepareId(v: string): PreparedValue | ValueProblem {
  if (CONTROL.test(v)) return CONTROL_CHARACTERS;
  const key = normalizeGovernmentId(v);
  if (key === '') return NO_ID_CHARACTERS;
  return key.length > ID_MAX ? ID_TOO_LONG : key;
}

export function prepareCountry(v: string): PreparedValue | ValueProblem {
  if (CONTROL.test(v)) return CONTROL_CHARACTERS;
  return normalizeCountry(v) ?? NOT_COUNTRY;
}

/**
 * The last value prepared: a request's value is validated (its schema) and then screened within
 * the same turn, so the engine finds it here instead of normalizing it again.
 */
let lastKind: ValueValidator | null = null;
let lastValue = '';
let lastPrepared: PreparedValue | ValueProblem = NOT_CRYPTO;

/** The canonical form of a value of `kind`, or why it cannot be one. */
export function prepareValue(kind: ValueValidator, value: string): PreparedValue | ValueProblem {
  if (kind === lastKind && value === lastValue) return lastPrepared;
  const prepared = kind.prepare(value);
  lastKind = kind;
  lastValue = value;
  lastPrepared = prepared;
  return prepared;
}

/** Why `value` cannot be a value of `kind` (the 422's message); null when it can. */
export function valueProblem(kind: ValueValidator, value: string): string | null {
  const prepared = prepareValue(kind, value);
  return prepared instanceof ValueProblem ? prepared.message : null;
}
