/**
 * One exact-table key at a time as UTF-8 in a reusable buffer, with its 64-bit hash: the hash and
 * the comparison against the UTF-8 the value pool holds both run a 32-bit word at a time.
 *
 * A lookup runs on the calling thread for every screened value. An ASCII key (nearly all:
 * addresses, punycode domains) is packed into words and hashed in the same single pass of
 * `charCodeAt`; only other keys go through Buffer's native encoder, whose call costs more than
 * the whole pass and also slows the probe that follows (the native code's own memory traffic).
 * A lone surrogate encodes as U+FFFD, as it does in the value pool.
 */
export class KeyBytes {
  /** Bytes of the current key. */
  length = 0;
  /** Hash of the current key (see `set`). */
  hi = 0;
  lo = 0;
  bytes: Uint8Array;
  private buf: Buffer;
  private words: Uint32Array;

  constructor(capacity = 1024) {
    this.buf = Buffer.alloc(capacity);
    this.bytes = new Uint8Array(this.buf.buffer, this.buf.byteOffset, capacity);
    this.words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, capacity >>> 2);
  }

  /**
   * Makes `key` the current key and hashes it (two 32-bit lanes, cyrb53-style mixing, one
   * little-endian word of UTF-8 per step) with `seed` (the entity type, which separates equal keys
   * of different types).
   */
  set(key: string, seed: number): void {
    const n = key.length;
    // UTF-8 takes at most 3 bytes per UTF-16 unit, and the last word is written whole.
    if (3 * n + 4 > this.bytes.length) this.grow(3 * n + 4);
    const words = this.words;
    let h1 = 0xdeadbeef ^ seed;
    let h2 = 0x41c6ce57 ^ seed;
    let units = 0;
    let i = 0;
    let w = 0;
    for (; i + 3 < n; i += 4, w++) {
      const a = key.charCodeAt(i);
      const b = key.charCodeAt(i + 1);
      const c = key.charCodeAt(i + 2);
      const d = key.charCodeAt(i + 3);
      units |= a | b | c | d;
      const x = a | (b << 8) | (c << 16) | (d << 24);
      words[w] = x;
      h1 = Math.imul(h1 ^ x, 2654435761);
      h2 = Math.imul(h2 ^ x, 1597334677);
    }
    let tail = 0;
    for (let shift = 0; i < n; i++, shift += 8) {
      const c = key.charCodeAt(i);
      units |= c;
      tail |= c << shift;
    }
    if (units >= 0x80) {
      this.setUtf8(key, seed);
      return;
    }
    words[w] = tail;
    this.length = n;
    this.finish(h1, h2, tail);
  }

  /** `set` of a key with non-ASCII characters: natively encoded, then hashed from the bytes. */
  private setUtf8(key: string, seed: number): void {
    const n = (this.buf as Buffer & { utf8Write(s: string, offset: number): number }).utf8Write(key, 0);
    this.length = n;
    const words = this.words;
    const full = n >>> 2;
    let h1 = 0xdeadbeef ^ seed;
    let h2 = 0x41c6ce57 ^ seed;
    for (let w = 0; w < full; w++) {
      const x = words[w];
      h1 = Math.imul(h1 ^ x, 2654435761);
      h2 = Math.imul(h2 ^ x, 1597334677);
    }
    const tail = n & 3 ? words[full] & ((1 << (8 * (n & 3))) - 1) : 0;
    words[full] = tail;
    this.finish(h1, h2, tail);
  }

  /** Mixes in the last 1-3 bytes and the length (keys differing only in trailing zero bytes differ). */
  private finish(h1: number, h2: number, tail: number): void {
    h1 = Math.imul(h1 ^ tail ^ this.length, 2654435761);
    h2 = Math.imul(h2 ^ tail, 1597334677);
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    this.hi = h2 >>> 0;
    this.lo = h1 >>> 0;
  }

  private grow(capacity: number): void {
    const size = (Math.max(capacity, 2 * this.bytes.length) + 3) & ~3;
    this.buf = Buffer.alloc(size);
    this.bytes = new Uint8Array(this.buf.buffer, this.buf.byteOffset, size);
    this.words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, size >>> 2);
  }

  /** Whether the current key is the `length` bytes at `offset` of `view` (any alignment). */
  equals(view: DataView, offset: number): boolean {
    const n = this.length;
    const words = this.words;
    const full = n >>> 2;
    for (let i = 0; i < full; i++) if (view.getUint32(offset + 4 * i, true) !== words[i]) return false;
    const bytes = this.bytes;
    for (let i = 4 * full; i < n; i++) if (view.getUint8(offset + i) !== bytes[i]) return false;
    return true;
  }
}
