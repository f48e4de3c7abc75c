/**
 * Strings stored back to back as UTF-8 in a growable SharedArrayBuffer, addressed by byte range.
 * Millions of short strings cost their bytes instead of a V8 string object each (~2x smaller for
 * ASCII), and the shard workers read the calling thread's pool in place instead of receiving
 * copies. The buffer grows in place (a growable SharedArrayBuffer reserves its address range),
 * so views held by other threads stay valid. Views are fixed-length and recreated after growth:
 * V8 11 (Node 20) runs length-tracking views ~5x slower.
 */
import { growableBuffer, growBuffer } from './growable.js';

const INITIAL_BYTES = 1 << 16;
/** Offsets are u32. */
const MAX_POOL_BYTES = 2 ** 32 - 1;

class BytePoolFullError extends Error {}

export class BytePool {
  /** Bytes written so far (by the owning thread; readers track ranges they were given). */
  size = 0;
  private u8: Uint8Array;
  private buf: Buffer;
  private dv: DataView;

  constructor(readonly sab: SharedArrayBuffer = growableBuffer(INITIAL_BYTES, MAX_POOL_BYTES)) {
    this.u8 = new Uint8Array(sab, 0, sab.byteLength);
    this.buf = Buffer.from(sab, 0, sab.byteLength);
    this.dv = new DataView(sab, 0, sab.byteLength);
  }

  /** New views over the buffer's current length (grown here or by another thread). */
  private refresh(): void {
    this.u8 = new Uint8Array(this.sab, 0, this.sab.byteLength);
    this.buf = Buffer.from(this.sab, 0, this.sab.byteLength);
  }

  /** Appends `s`; its bytes are [returned offset, this.size). */
  append(s: string): number {
    const start = this.size;
    const n = s.length;
    this.reserve(start + 3 * n);
    const u8 = this.u8;
    let p = start;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        p = start + this.buf.write(s, start, 'utf8');
        break;
      }
      u8[p++] = c;
    }
    this.size = p;
    return start;
  }

  /** Appends bytes [start, end) of `src` (UTF-8 from another pool); returns their offset here. */
  appendBytes(src: Uint8Array, start: number, end: number): number {
    const at = this.size;
    this.reserve(at + end - start);
    this.u8.set(src.subarray(start, end), at);
    this.size = at + end - start;
    return at;
  }

  /** A view of the whole buffer as it is now (grown here or by another thread). */
  bytes(): Uint8Array {
    if (this.u8.length < this.sab.byteLength) this.refresh();
    return this.u8;
  }

  /** The same as a DataView (unaligned word reads). */
  dataView(): DataView {
    if (this.dv.byteLength < this.sab.byteLength) this.dv = new DataView(this.sab, 0, this.sab.byteLength);
    return this.dv;
  }

  private reserve(end: number): void {
    // Only the writing thread grows the buffer, so its views know the length (the shared
    // buffer's own length getter is an atomic read, measurably slow per append).
    if (end <= this.u8.length) return;
    if (end > MAX_POOL_BYTES) throw new BytePoolFullError(`string pool exceeds ${MAX_POOL_BYTES} bytes`);
    growBuffer(this.sab, Math.min(MAX_POOL_BYTES, Math.max(end, this.sab.byteLength * 2)));
    this.refresh();
  }

  text(start: number, end: number): string {
    if (end > this.buf.length) this.refresh();
    // Buffer's own decoder, without toString's argument handling.
    return (this.buf as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(start, end);
  }

  /** Whether bytes [start, end) are the UTF-8 encoding of `s`, without decoding ASCII. */
  equals(s: string, start: number, end: number): boolean {
    const len = end - start;
    // UTF-8 never takes fewer bytes than UTF-16 code units.
    if (s.length > len) return false;
    if (end > this.u8.length) this.refresh();
    const u8 = this.u8;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return this.text(start, end) === s;
      if (u8[start + i] !== c) return false;
    }
    return s.length === len;
  }
}
