/**
 * 64-bit hash (two 32-bit lanes, cyrb53-style mixing) of `s.slice(start, end)` for the prefix
 * index, without making the substring (its terms are prefixes of keys). It writes into a
 * caller-owned pair instead of allocating, and takes two UTF-16 units per multiply. The seed keeps
 * kinds of terms apart. (Exact-table keys are hashed as UTF-8 words: see `KeyBytes`.)
 */
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
  finish(h1, h2, out);
}

/** The final avalanche of both lanes. */
function finish(h1: number, h2: number, out: Uint32Array): void {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out[0] = h2 >>> 0;
  out[1] = h1 >>> 0;
}
