/**
 * 64-bit string hash (two 32-bit lanes, cyrb53-style mixing) for the exact tables and term
 * indexes. It runs on the calling thread for every exact lookup, so it writes into a caller-owned
 * pair instead of allocating, and takes two UTF-16 units per multiply: the lanes' multiply chains
 * are the cost, halving them halves the hash of a 42-character address. The entity-type code
 * seeds it: the same key string under two entity types lands in different slots.
 */
export function hashKey(s: string, seed: number, out: Uint32Array): void {
  hashRange(s, 0, s.length, seed, out);
}

/** `hashKey(s.slice(start, end), ...)` without making the substring (index terms are substrings). */
export function hashRange(s: string, start: number, end: number, seed: number, out: Uint32Array): void {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  let i = start;
  for (; i + 1 < end; i += 2) {
    const c = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  // An odd last unit, marked so `ab` + `c` and `a` + `bc`-style splits cannot meet.
  if (i < end) {
    const c = s.charCodeAt(i) | 0x80000000;
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out[0] = h2 >>> 0;
  out[1] = h1 >>> 0;
}
