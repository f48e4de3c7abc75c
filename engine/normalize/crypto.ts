/**
 * Crypto-address normalization: detect the address format (and so the chain) and produce the key the
 * exact index uses. The key never includes the chain, so an address listed for one asset matches
 * wherever the same canonical address is screened (an EVM address listed under ETH matches a
 * screening of the same address on BSC or Arbitrum).
 *
 * Case rules follow each encoding: hex and bech32/cashaddr are case-insensitive (keys lower-cased),
 * base58 is case-sensitive (keys keep their case; changing one letter's case is another address).
 */
import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import { base58, base58xmr, base58xrp, createBase58check, utils, type BytesCoder } from '@scure/base';

export interface CryptoKey {
  key: string;
  /**
   * Chain the format identifies, or null for an unknown format. Some formats are shared: a base58
   * address with version byte 0x00/0x05 is `bitcoin` but is also a legacy Bitcoin Cash/SV (and, for
   * 0x05, Litecoin) address; version 0x1e is `dogecoin` and Verge. An asset hint resolves these.
   */
  chain: string | null;
}

const sha256 = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest();
/** Base58check: base58 with the first 4 bytes of a double SHA-256 appended (Bitcoin's alphabet, or Ripple's). */
const BASE58CHECK = createBase58check(sha256);
const BASE58CHECK_XRP = utils.chain(
  utils.checksum(4, (data) => sha256(sha256(data))),
  base58xrp,
);

/** The bytes `coder` decodes `s` to, or null when `s` is not valid for it (alphabet, checksum, padding). */
function decoded(coder: BytesCoder, s: string): Uint8Array | null {
  try {
    return coder.decode(s);
  } catch {
    return null;
  }
}

/** One-byte base58check versions of 20-byte hashes, by version byte. */
const BASE58_VERSIONS: Record<number, string> = {
  0x00: 'bitcoin',
  0x05: 'bitcoin',
  0x6f: 'bitcoin-testnet',
  0xc4: 'bitcoin-testnet',
  0x30: 'litecoin',
  0x32: 'litecoin',
  0x41: 'tron',
  0x4c: 'dash',
  0x10: 'dash',
  0x26: 'bitcoin-gold',
  0x17: 'bitcoin-gold',
  0x1e: 'dogecoin',
  0x16: 'dogecoin',
  0x21: 'verge',
};

/** Two-byte versions (Zcash transparent addresses: t1 = P2PKH, t3 = P2SH). */
const BASE58_VERSIONS_2: Record<number, string> = {
  0x1cb8: 'zcash',
  0x1cbd: 'zcash',
  0x1d25: 'zcash-testnet',
  0x1cba: 'zcash-testnet',
};

/** Chains by bech32 human-readable part. */
const BECH32_HRPS: Record<string, string> = {
  bc: 'bitcoin',
  tb: 'bitcoin-testnet',
  bcrt: 'bitcoin-testnet',
  ltc: 'litecoin',
  tltc: 'litecoin-testnet',
  btg: 'bitcoin-gold',
  zs: 'zcash',
  u: 'zcash',
  bnb: 'bnb-beacon',
  ztestsapling: 'zcash-testnet',
};

/** Values of the bech32 alphabet's characters (CashAddr uses the same alphabet), -1 elsewhere. */
const BECH32_MAP = (() => {
  const map = new Int8Array(128).fill(-1);
  const alphabet = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
  for (let i = 0; i < alphabet.length; i++) map[alphabet.charCodeAt(i)] = i;
  return map;
})();

/** One step of the BIP 173 checksum polynomial. */
function polymodStep(chk: number, v: number): number {
  const top = chk >>> 25;
  chk = ((chk & 0x1ffffff) << 5) ^ v;
  if (top & 1) chk ^= 0x3b6a57b2;
  if (top & 2) chk ^= 0x26508e6d;
  if (top & 4) chk ^= 0x1ea119fa;
  if (top & 8) chk ^= 0x3d4233dd;
  if (top & 16) chk ^= 0x2a1462b3;
  return chk;
}

const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

/**
 * Lower-cased bech32/bech32m string with a known prefix and valid checksum, or null. Screening
 * runs it on every upper-case address, so the checksum is computed in place: @scure/base's
 * `decodeUnsafe` builds the word arrays first and halved the rate of screening such addresses
 * (docs/performance.md). No length limit: Zcash unified addresses are longer than BIP 173's 90.
 */
function bech32(lower: string): { hrp: string; chain: string } | null {
  const sep = lower.lastIndexOf('1');
  if (sep < 1 || lower.length - sep < 7) return null;
  const hrp = lower.slice(0, sep);
  const chain = Object.hasOwn(BECH32_HRPS, hrp) ? BECH32_HRPS[hrp] : undefined;
  if (!chain) return null;
  let chk = 1;
  for (let i = 0; i < sep; i++) chk = polymodStep(chk, lower.charCodeAt(i) >> 5);
  chk = polymodStep(chk, 0);
  for (let i = 0; i < sep; i++) chk = polymodStep(chk, lower.charCodeAt(i) & 31);
  for (let i = sep + 1; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    const v = c < 128 ? BECH32_MAP[c] : -1;
    if (v < 0) return null;
    chk = polymodStep(chk, v);
  }
  const mod = chk >>> 0;
  return mod === BECH32_CONST || mod === BECH32M_CONST ? { hrp, chain } : null;
}

/**
 * CashAddr is written here: neither @scure/base nor @noble has a codec for it, and no maintained,
 * audited package does.
 */
/** CashAddr checksum (a 40-bit BCH code over the prefix's low 5 bits, a 0 and the payload). */
function cashaddrPolymod(values: number[]): bigint {
  const GEN = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    for (let i = 0; i < 5; i++) if ((c0 >> BigInt(i)) & 1n) c ^= GEN[i];
  }
  return c ^ 1n;
}

const CASHADDR_PREFIXES: Record<string, string> = {
  bitcoincash: 'bitcoin-cash',
  bchtest: 'bitcoin-cash-testnet',
  bchreg: 'bitcoin-cash-testnet',
};

/** Canonical `prefix:payload` of a CashAddr (prefix optional in the input), or null. */
function cashaddr(lower: string): { key: string; chain: string } | null {
  const colon = lower.indexOf(':');
  const prefixes = colon >= 0 ? [lower.slice(0, colon)] : Object.keys(CASHADDR_PREFIXES);
  const payload = colon >= 0 ? lower.slice(colon + 1) : lower;
  if (payload.length < 42 || (payload[0] !== 'q' && payload[0] !== 'p')) return null;
  const data: number[] = [];
  for (let i = 0; i < payload.length; i++) {
    const c = payload.charCodeAt(i);
    const v = c < 128 ? BECH32_MAP[c] : -1;
    if (v < 0) return null;
    data.push(v);
  }
  for (const prefix of prefixes) {
    const chain = CASHADDR_PREFIXES[prefix];
    if (!chain) return null;
    const values: number[] = [];
    for (let i = 0; i < prefix.length; i++) values.push(prefix.charCodeAt(i) & 31);
    values.push(0, ...data);
    if (cashaddrPolymod(values) === 0n) return { key: `${prefix}:${payload}`, chain };
  }
  return null;
}

/** Monero network bytes (varint, all single-byte for mainnet/stagenet/testnet standard forms). */
const MONERO_TAGS = new Set([0x12, 0x13, 0x2a, 0x18, 0x19, 0x24, 0x35, 0x36, 0x3f]);

function isMonero(s: string): boolean {
  if ((s.length !== 95 && s.length !== 106) || !/^[4589AB]/.test(s)) return false;
  const raw = decoded(base58xmr, s);
  // 1 tag byte + two 32-byte keys (+ 8-byte payment id for integrated addresses) + the first 4
  // bytes of the Keccak-256 of the rest.
  if (raw === null || (raw.length !== 69 && raw.length !== 77) || !MONERO_TAGS.has(raw[0])) return false;
  const sum = keccak_256(raw.subarray(0, raw.length - 4));
  for (let i = 0; i < 4; i++) if (sum[i] !== raw[raw.length - 4 + i]) return false;
  return true;
}

const EVM_RE = /^0x[0-9a-fA-F]{40}$/;
const HEX64_RE = /^(?:0x)?[0-9a-fA-F]{64}$/;
const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;

function detect(v: string): CryptoKey {
  if (EVM_RE.test(v)) return { key: v.toLowerCase(), chain: 'evm' };
  const lower = v.toLowerCase();
  // Bech32 and CashAddr are case-insensitive but must not mix cases.
  const uniformCase = v === lower || v === v.toUpperCase();
  if (uniformCase) {
    const b = bech32(lower);
    if (b) return { key: lower, chain: b.chain };
    const ca = cashaddr(lower);
    if (ca) return ca;
  }
  if (v.startsWith('r') && v.length >= 25 && v.length <= 35) {
    const p = decoded(BASE58CHECK_XRP, v);
    if (p && p.length === 21 && p[0] === 0x00) return { key: v, chain: 'xrp' };
  }
  if (BASE58_RE.test(v)) {
    if (isMonero(v)) return { key: v, chain: 'monero' };
    if (v.length >= 25 && v.length <= 36) {
      const p = decoded(BASE58CHECK, v);
      if (p && p.length === 21 && BASE58_VERSIONS[p[0]]) return { key: v, chain: BASE58_VERSIONS[p[0]] };
      if (p && p.length === 22) {
        const chain = BASE58_VERSIONS_2[(p[0] << 8) | p[1]];
        if (chain) return { key: v, chain };
      }
    }
    if (v.length >= 32 && v.length <= 44) {
      const raw = decoded(base58, v);
      if (raw && raw.length === 32) return { key: v, chain: 'solana' };
    }
  }
  // Bare 32-byte hex (published for some assets as keys or ids) is case-insensitive.
  if (HEX64_RE.test(v)) return { key: lower, chain: null };
  return { key: v, chain: null };
}

const LOWER = 1;
const UPPER = 2;
const NOT_HEX = 4;
const NOT_ALNUM = 8;
/** Per ASCII code: LOWER / UPPER for letters, NOT_HEX for anything but 0-9, a-f, A-F, NOT_ALNUM for anything but letters and digits. */
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, c) => {
  if (c >= 48 && c <= 57) return 0;
  if (c >= 97 && c <= 122) return LOWER | (c > 102 ? NOT_HEX : 0);
  if (c >= 65 && c <= 90) return UPPER | (c > 70 ? NOT_HEX : 0);
  return NOT_HEX | NOT_ALNUM;
});

/** Lengths of the address shapes `addressKey` accepts (validate.ts documents them). */
export const ADDRESS_MIN = 25;
export const ADDRESS_MAX = 128;

/**
 * The key alone, as `normalizeCrypto(value).key` gives it, without the checksum work that only
 * chain detection needs: base58 keys are the trimmed text whatever their chain. This is the
 * screening hot path, so ASCII input is classified in one pass instead of by regular expressions:
 * hex forms (EVM, bare 32-byte hex) are lower-cased, mixed-case text is kept, a lower-case text
 * is itself unless it is a CashAddr without its prefix (a valid bech32 text never is one: its
 * separator `1` is outside the CashAddr alphabet), and an upper-case text is lower-cased only when
 * it is valid bech32 or CashAddr.
 */
export function cryptoKey(value: string): string {
  return keyOf(value.trim(), false)!;
}

/**
 * `cryptoKey` of a value with an address's shape — `0x` and 40 to 64 hex digits, or 25 to 128
 * ASCII letters and digits — found in the same single pass; null for any other value.
 */
export function addressKey(value: string): string | null {
  return keyOf(value.trim(), true);
}

function keyOf(v: string, shaped: boolean): string | null {
  const n = v.length;
  if (shaped && (n < ADDRESS_MIN || n > ADDRESS_MAX)) return null;
  const prefixed = n >= 2 && v.charCodeAt(0) === 48 && v.charCodeAt(1) === 120; // `0x`
  // One table lookup per character, no branch on its class: hex digits and letters alternate at
  // random, which would mispredict a branch on every other character.
  let classes = prefixed ? LOWER : 0;
  for (let i = prefixed ? 2 : 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c >= 128) return shaped ? null : nonAsciiKey(v);
    classes |= ASCII_CLASS[c];
  }
  if (shaped && (prefixed ? (classes & NOT_HEX) !== 0 || n < 42 || n > 66 : (classes & NOT_ALNUM) !== 0)) return null;
  if ((classes & NOT_HEX) === 0 && (prefixed ? n === 42 || n === 66 : n === 64))
    return classes & UPPER ? v.toLowerCase() : v;
  if ((classes & (LOWER | UPPER)) === (LOWER | UPPER)) return v;
  if ((classes & UPPER) === 0) return cashaddr(v)?.key ?? v;
  const lower = v.toLowerCase();
  if (bech32(lower)) return lower;
  return cashaddr(lower)?.key ?? v;
}

/** `cryptoKey` of a trimmed text with non-ASCII characters (whose case rules are Unicode's). */
function nonAsciiKey(v: string): string {
  const lower = v.toLowerCase();
  if (v === lower || v === v.toUpperCase()) {
    if (bech32(lower)) return lower;
    const ca = cashaddr(lower);
    if (ca) return ca.key;
  }
  return v;
}

/**
 * The chain an asset ticker (as OFAC publishes them: XBT, ETH, USDT, ...) stands for, and the
 * detected formats such a listing may take.
 */
const ASSETS: Record<string, { chain: string | null; formats: readonly (string | null)[] }> = {
  XBT: { chain: 'bitcoin', formats: ['bitcoin'] },
  BTC: { chain: 'bitcoin', formats: ['bitcoin'] },
  BCH: { chain: 'bitcoin-cash', formats: ['bitcoin-cash', 'bitcoin'] },
  BSV: { chain: 'bitcoin-sv', formats: ['bitcoin'] },
  BTG: { chain: 'bitcoin-gold', formats: ['bitcoin-gold'] },
  LTC: { chain: 'litecoin', formats: ['litecoin', 'bitcoin'] },
  DASH: { chain: 'dash', formats: ['dash'] },
  DOGE: { chain: 'dogecoin', formats: ['dogecoin'] },
  XVG: { chain: 'verge', formats: ['dogecoin', 'verge'] },
  ZEC: { chain: 'zcash', formats: ['zcash'] },
  XMR: { chain: 'monero', formats: ['monero', null] },
  XRP: { chain: 'xrp', formats: ['xrp'] },
  TRX: { chain: 'tron', formats: ['tron'] },
  SOL: { chain: 'solana', formats: ['solana'] },
  ETH: { chain: 'ethereum', formats: ['evm'] },
  ETC: { chain: 'ethereum-classic', formats: ['evm'] },
  BSC: { chain: 'bsc', formats: ['evm'] },
  ARB: { chain: 'arbitrum', formats: ['evm'] },
  BNB: { chain: 'bnb', formats: ['evm', 'bnb-beacon'] },
  // Stablecoins live on several chains (USDT also on Omni, i.e. Bitcoin addresses): the address
  // format tells which family.
  USDT: { chain: null, formats: ['evm', 'tron', 'solana', 'bitcoin'] },
  USDC: { chain: null, formats: ['evm', 'tron', 'solana'] },
};

/** Chains an asset's listings are expected to show (null in the set: the asset allows unknown formats). */
export function assetFormats(asset: string): readonly (string | null)[] | null {
  return ASSETS[asset.toUpperCase()]?.formats ?? null;
}

/**
 * Canonical key and chain of a crypto address. Never fails: an unknown format is keyed by its
 * trimmed text. `asset` (a ticker such as OFAC's `XBT`) names the chain when the format is
 * compatible with that asset, which tells apart chains sharing one format.
 */
export function normalizeCrypto(value: string, asset?: string): CryptoKey {
  const detected = detect(value.trim());
  if (!asset) return detected;
  const a = ASSETS[asset.toUpperCase()];
  if (!a || !a.formats.includes(detected.chain)) return detected;
  return { key: detected.key, chain: a.chain ?? detected.chain };
}
