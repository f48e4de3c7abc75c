/**
 * An immutable interval index over IP ranges (CIDR blocks and single addresses), one table per
 * address family. Ranges are sorted and merged (overlapping and adjacent ranges become one), so a
 * lookup is one binary search for the last range starting at or below the address.
 *
 * IPv4 ranges are u32 pairs; IPv6 ranges are 4×u32 big-endian words per bound, compared
 * lexicographically, which keeps lookups free of bigint arithmetic (build uses bigint, once).
 * Address text is parsed by hand: the lookup path allocates nothing.
 */

export type IpFamily = 4 | 6;

/** Parses dotted-quad IPv4 text to its u32 value; -1 when the text is not an IPv4 address. */
export function parseIPv4(s: string, from = 0, to = s.length): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      // A leading zero makes an octet ambiguous (octal in some parsers): reject it as node:net does.
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (++digits > 3 || part > 255) return -1;
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + part;
}

/** Hex digit values by character code; -1 for anything else. */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX[48 + c] = c;
for (let c = 0; c < 6; c++) HEX[65 + c] = HEX[97 + c] = 10 + c;

function hexValue(c: number): number {
  return c < 128 ? HEX[c] : -1;
}

/**
 * Parses IPv6 text (with `::` compression, an embedded IPv4 tail and an optional `%zone`) into
 * `out[0..3]` as big-endian u32 words. Returns false when the text is not an IPv6 address.
 */
const groups = new Uint16Array(8);

export function parseIPv6(s: string, out: Uint32Array): boolean {
  let end = s.indexOf('%');
  if (end < 0) end = s.length;
  groups.fill(0);
  let n = 0;
  let gap = -1;
  let i = 0;
  if (end >= 2 && s.charCodeAt(0) === 58 && s.charCodeAt(1) === 58) {
    gap = 0;
    i = 2;
  } else if (end > 0 && s.charCodeAt(0) === 58) {
    return false;
  }
  while (i < end) {
    let j = i;
    let v = 0;
    while (j < end && j - i < 5) {
      const h = hexValue(s.charCodeAt(j));
      if (h < 0) break;
      v = v * 16 + h;
      j++;
    }
    if (j < end && s.charCodeAt(j) === 46) {
      // Embedded IPv4 (e.g. ::ffff:192.0.2.1): it fills the last two groups.
      const v4 = parseIPv4(s, i, end);
      if (v4 < 0 || n > 6) return false;
      groups[n++] = v4 >>> 16;
      groups[n++] = v4 & 0xffff;
      break;
    }
    if (j === i || j - i > 4 || n >= 8) return false;
    groups[n++] = v;
    if (j === end) break;
    if (s.charCodeAt(j) !== 58) return false;
    if (j + 1 < end && s.charCodeAt(j + 1) === 58) {
      if (gap >= 0) return false;
      gap = n;
      i = j + 2;
    } else {
      if (j + 1 === end) return false;
      i = j + 1;
    }
  }
  if (gap < 0) {
    if (n !== 8) return false;
  } else {
    if (n > 7) return false;
    const move = n - gap;
    for (let k = 0; k < move; k++) groups[7 - k] = groups[n - 1 - k];
    for (let k = gap; k < 8 - move; k++) groups[k] = 0;
  }
  out[0] = ((groups[0] << 16) | groups[1]) >>> 0;
  out[1] = ((groups[2] << 16) | groups[3]) >>> 0;
  out[2] = ((groups[4] << 16) | groups[5]) >>> 0;
  out[3] = ((groups[6] << 16) | groups[7]) >>> 0;
  return true;
}

/** True for `::ffff:a.b.c.d` (and its hex form), which dual-stack sockets report for IPv4 peers. */
export function isV4Mapped(words: Uint32Array): boolean {
  return words[0] === 0 && words[1] === 0 && words[2] === 0xffff;
}

export interface ParsedRange {
  family: IpFamily;
  /** Inclusive bounds; u32 values for IPv4, 128-bit values for IPv6. */
  start: bigint;
  end: bigint;
}

const scratch = new Uint32Array(4);

function wordsToBigint(w: Uint32Array): bigint {
  return (BigInt(w[0]) << 96n) | (BigInt(w[1]) << 64n) | (BigInt(w[2]) << 32n) | BigInt(w[3]);
}

/** Parses `a.b.c.d`, `a.b.c.d/n`, an IPv6 address or `x::/n`. Host bits of a CIDR are ignored. */
export function parseRange(text: string): ParsedRange | null {
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  let family: IpFamily;
  let value: bigint;
  const v4 = parseIPv4(addr);
  if (v4 >= 0) {
    family = 4;
    value = BigInt(v4);
  } else if (addr.indexOf('%') < 0 && parseIPv6(addr, scratch)) {
    family = 6;
    value = wordsToBigint(scratch);
  } else {
    return null;
  }
  const width = family === 4 ? 32 : 128;
  let bits = width;
  if (slash >= 0) {
    const b = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(b) || Number(b) > width) return null;
    bits = Number(b);
  }
  const host = (1n << BigInt(width - bits)) - 1n;
  const start = value & ~host & ((1n << BigInt(width)) - 1n);
  return { family, start, end: start | host };
}

export interface RangeListParse {
  ranges: ParsedRange[];
  /** Lines that were neither blank, a comment, nor a range (reported, not fatal). */
  invalid: string[];
}

/** Reads a one-entry-per-line list; `#` starts a comment, blank lines are skipped. */
export function parseRangeList(text: string): RangeListParse {
  const ranges: ParsedRange[] = [];
  const invalid: string[] = [];
  for (const raw of text.split('\n')) {
    const hash = raw.indexOf('#');
    const line = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    if (!line) continue;
    const r = parseRange(line);
    if (r) ranges.push(r);
    else invalid.push(line);
  }
  return { ranges, invalid };
}

function mergeSorted(ranges: ParsedRange[]): ParsedRange[] {
  ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: ParsedRange[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end + 1n) {
      if (r.end > last.end) last.end = r.end;
    } else {
      merged.push({ ...r });
    }
  }
  return merged;
}

export class IpRangeSet {
  private readonly v4Start: Uint32Array;
  private readonly v4End: Uint32Array;
  /** 8 words per range: start[0..3], end[0..3]. */
  private readonly v6: Uint32Array;
  private readonly words = new Uint32Array(4);

  private constructor(v4Start: Uint32Array, v4End: Uint32Array, v6: Uint32Array) {
    this.v4Start = v4Start;
    this.v4End = v4End;
    this.v6 = v6;
  }

  static empty(): IpRangeSet {
    return new IpRangeSet(new Uint32Array(0), new Uint32Array(0), new Uint32Array(0));
  }

  static fromRanges(ranges: Iterable<ParsedRange>): IpRangeSet {
    const four: ParsedRange[] = [];
    const six: ParsedRange[] = [];
    for (const r of ranges) (r.family === 4 ? four : six).push(r);
    const m4 = mergeSorted(four);
    const m6 = mergeSorted(six);
    const v4Start = new Uint32Array(m4.length);
    const v4End = new Uint32Array(m4.length);
    m4.forEach((r, i) => {
      v4Start[i] = Number(r.start);
      v4End[i] = Number(r.end);
    });
    const v6 = new Uint32Array(m6.length * 8);
    m6.forEach((r, i) => {
      for (let k = 0; k < 4; k++) {
        const shift = BigInt(96 - 32 * k);
        v6[i * 8 + k] = Number((r.start >> shift) & 0xffffffffn);
        v6[i * 8 + 4 + k] = Number((r.end >> shift) & 0xffffffffn);
      }
    });
    return new IpRangeSet(v4Start, v4End, v6);
  }

  /** Builds from list entries (CIDRs or addresses); throws on an invalid entry. */
  static fromList(entries: Iterable<string>): IpRangeSet {
    const ranges: ParsedRange[] = [];
    for (const e of entries) {
      const r = parseRange(e.trim());
      if (!r) throw new Error(`not an IP address or CIDR range: ${e}`);
      ranges.push(r);
    }
    return IpRangeSet.fromRanges(ranges);
  }

  /** Merged range counts per family. */
  get size(): { v4: number; v6: number } {
    return { v4: this.v4Start.length, v6: this.v6.length / 8 };
  }

  hasFamily(family: IpFamily): boolean {
    return family === 4 ? this.v4Start.length > 0 : this.v6.length > 0;
  }

  containsV4(value: number): boolean {
    const starts = this.v4Start;
    let lo = 0;
    let hi = starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] <= value) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found >= 0 && value <= this.v4End[found];
  }

  /** `w` holds the address as 4 big-endian u32 words. */
  containsV6(w: Uint32Array): boolean {
    const t = this.v6;
    const w0 = w[0];
    const w1 = w[1];
    const w2 = w[2];
    const w3 = w[3];
    let lo = 0;
    let hi = t.length / 8 - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareAt(t, mid * 8, w0, w1, w2, w3) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found >= 0 && compareAt(t, found * 8 + 4, w0, w1, w2, w3) >= 0;
  }

  /** Whether an address (IPv4 or IPv6 text) lies in a range; false for text that is no address. */
  contains(ip: string): boolean {
    const v4 = parseIPv4(ip);
    if (v4 >= 0) return this.containsV4(v4);
    if (!parseIPv6(ip, this.words)) return false;
    return this.containsV6(this.words);
  }
}

/** Sign of table[at..at+3] − (w0, w1, w2, w3), as 128-bit big-endian numbers. */
function compareAt(table: Uint32Array, at: number, w0: number, w1: number, w2: number, w3: number): number {
  let a = table[at];
  if (a !== w0) return a < w0 ? -1 : 1;
  a = table[at + 1];
  if (a !== w1) return a < w1 ? -1 : 1;
  a = table[at + 2];
  if (a !== w2) return a < w2 ? -1 : 1;
  a = table[at + 3];
  return a === w3 ? 0 : a < w3 ? -1 : 1;
}
