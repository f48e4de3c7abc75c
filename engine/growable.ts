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

/**
 * Growable SharedArrayBuffers (ES2024; in Node 20's V8, not yet in this project's TypeScript lib):
 * the buffer reserves `maxBytes` of address space and grows in place, so views other threads hold
 * stay valid and length-tracking views see the new size.
 */
interface Growable {
  grow(bytes: number): void;
}
type GrowableConstructor = new (bytes: number, options: { maxByteLength: number }) => SharedArrayBuffer;

export function growableBuffer(bytes: number, maxBytes: number): SharedArrayBuffer {
  return new (SharedArrayBuffer as unknown as GrowableConstructor)(bytes, { maxByteLength: maxBytes });
}

export function growBuffer(sab: SharedArrayBuffer, bytes: number): void {
  (sab as unknown as Growable).grow(bytes);
}