/**
 * The results of a pure function for the keys it saw last. Domains repeat in screening traffic (a
 * batch's e-mail addresses share a few providers, a site's pages one host), and working out a
 * host's IDNA form and parent domains was most of what screening an e-mail cost.
 * Two generations of at most `size` entries: a key seen within the last `size` new keys stays,
 * older ones go in bulk, without per-entry bookkeeping. Keys longer than `maxKeyLength` are
 * computed each time, so what the memo holds stays bounded whatever callers send.
 */
export function recentMemo<V>(compute: (key: string) => V, size = 4096, maxKeyLength = 256): (key: string) => V {
  let recent = new Map<string, V>();
  let older = new Map<string, V>();
  return (key) => {
    let value = recent.get(key);
    if (value !== undefined || recent.has(key)) return value as V;
    if (key.length > maxKeyLength) return compute(key);
    value = older.get(key);
    if (value === undefined && !older.has(key)) value = compute(key);
    if (recent.size >= size) {
      older = recent;
      recent = new Map();
    }
    recent.set(key, value as V);
    return value as V;
  };
}
