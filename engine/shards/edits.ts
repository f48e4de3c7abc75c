const A = 65;
const LETTERS = 26;
let buffer = new Uint16Array(64);

/**
 * Calls `visit(codes, n)` for each text one edit away from `token`: a character deleted, two
 * neighbours swapped, a character replaced by a letter A-Z or a letter A-Z inserted (the typos a
 * query token of a canonical name may have). The text is `codes[0 .. n)`, in a buffer reused
 * between calls; a text may be visited more than once (`ALLA` without either `L`), and `token`
 * itself is not visited.
 */
export function forEachEdit(token: string, visit: (codes: Uint16Array, n: number) => void): void {
  const n = token.length;
  if (buffer.length < n + 1) buffer = new Uint16Array(2 * (n + 1));
  const b = buffer;
  for (let i = 0; i < n; i++) b[i] = token.charCodeAt(i);
  // Deletions: shift the tail left by one, one position at a time from the end.
  for (let i = n - 1; i >= 0; i--) {
    visit(b, n - 1);
    // Bring back the character at i - 1 .. for the next deletion: b[0 .. i-1) + token[i ..).
    if (i > 0) b[i - 1] = token.charCodeAt(i);
  }
  for (let i = 0; i < n; i++) b[i] = token.charCodeAt(i);
  for (let i = 0; i + 1 < n; i++) {
    const x = b[i];
    const y = b[i + 1];
    if (x === y) continue;
    b[i] = y;
    b[i + 1] = x;
    visit(b, n);
    b[i] = x;
    b[i + 1] = y;
  }
  for (let i = 0; i < n; i++) {
    const x = b[i];
    for (let c = A; c < A + LETTERS; c++) {
      if (c === x) continue;
      b[i] = c;
      visit(b, n);
    }
    b[i] = x;
  }
  // Insertions: the gap walks from the end to the front.
  for (let i = n; i >= 0; i--) {
    for (let c = A; c < A + LETTERS; c++) {
      b[i] = c;
      visit(b, n + 1);
    }
    if (i > 0) b[i] = token.charCodeAt(i - 1);
  }
}
