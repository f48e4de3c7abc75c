/**
 * Growable SharedArrayBuffers (ES2024; in Node 20's V8, not yet in this project's TypeScript lib):
 * the buffer reserves `maxBytes` of address space and grows in place, so views other threads hold
 * stay valid (fixed-length views over the new length see the growth).
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
