import { hashRange } from '../hash.js';

/**
 * Documents by one hashed term each (a key's prefix, seeded by the key's length: see
 * shard-data.ts), for the free search's prefix matches of addresses, e-mails and domains. Each
 * entry is one u64, the term's 32-bit hash above the document number, in a BigUint64Array sorted
 * once at `seal`: 8 bytes per document, a lookup is a binary search. A hash collision only adds a
 * candidate, which the caller verifies against the key.
 */
export class PrefixIndex {
  private entries = new BigUint64Array(1024);
  /** The same memory as u32 words: [document, hash] per entry (little-endian). */
  private words = new Uint32Array(this.entries.buffer);
  private n = 0;
  private readonly h = new Uint32Array(2);

  /** Adds `text.slice(start, end)` (hashed with `seed`) for `doc`. */
  add(text: string, start: number, end: number, seed: number, doc: number): void {
    if (this.n === this.entries.length) {
      const next = new BigUint64Array(2 * this.n);
      next.set(this.entries);
      this.entries = next;
      this.words = new Uint32Array(next.buffer);
    }
    hashRange(text, start, end, seed, this.h);
    this.words[2 * this.n] = doc;
    this.words[2 * this.n + 1] = this.h[0];
    this.n++;
  }

  /** Ends adding: sorts the entries by hash (then document). */
  seal(): void {
    this.entries = this.entries.slice(0, this.n).sort();
    this.words = new Uint32Array(this.entries.buffer);
  }

  /** Calls `visit` with each document of the term `text.slice(start, end)` (and of any term colliding with it). */
  forEach(text: string, start: number, end: number, seed: number, visit: (doc: number) => boolean): void {
    hashRange(text, start, end, seed, this.h);
    const hash = this.h[0];
    const w = this.words;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (w[2 * mid + 1] < hash) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.n && w[2 * i + 1] === hash; i++) if (!visit(w[2 * i])) return;
  }
}
