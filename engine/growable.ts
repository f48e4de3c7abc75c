type Typed = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** Returns `arr` or a copy at least `need` long (doubling), for columns filled while streaming. */
export function ensure<T extends Typed>(arr: T, need: number): T {
  if (need <= arr.length) return arr;
  let size = Math.max(arr.length, 1024);
  while (size < need) size *= 2;
  const next = new (arr.constructor as new (n: number) => T)(size);
  next.set(arr);
  return next;
}
