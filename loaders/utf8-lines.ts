/**
 * Strict UTF-8 decoding of a byte stream that knows the line of a fault: TextDecoder says only
 * that a chunk is not UTF-8, not where, and an upload refused at "line 1" for a byte on line 701
 * sends its sender looking in the wrong place. Lines are counted in the bytes (a newline byte
 * never occurs inside a multi-byte character), and the faulty byte is found only when there is
 * one, so valid text costs a newline count per chunk.
 */

/** Bytes that are not UTF-8 text: `line` (1-based) holds the first faulty byte. */
export class NotUtf8Error extends Error {
  constructor(readonly line: number) {
    super(`line ${line}: not UTF-8 text`);
  }
}

const NEWLINE = 0x0a;

function newlinesIn(bytes: Uint8Array, end = bytes.length): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE); i >= 0 && i < end; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/**
 * Index of the first byte of the first ill-formed sequence in `b` (read from a character
 * boundary), or -1 when there is none; a sequence cut off by the end is not ill-formed.
 */
function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    // Continuation bytes after the lead, and the range of the first (no overlong forms, no
    // surrogates, nothing beyond U+10FFFF).
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k++) {
      if (i + k >= b.length) return -1;
      const d = b[i + k];
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** Length of the sequence a lead byte starts (1 for anything that is not a multi-byte lead). */
function sequenceLength(c: number): number {
  return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/** Decodes chunks of a stream into text; throws NotUtf8Error with the line of the first faulty byte. */
export class Utf8Lines {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  /** Newlines in the chunks decoded so far. */
  private newlines = 0;
  /** The start of a character the last chunk cut off (at most 3 bytes), which the decoder holds. */
  private carry: Uint8Array = new Uint8Array(0);

  decode(chunk: Uint8Array): string {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new NotUtf8Error(this.faultLine(chunk));
    }
    this.newlines += newlinesIn(chunk);
    this.carry = cutOff(this.carry, chunk);
    return text;
  }

  /** The rest of the text: a character cut off at the very end is a fault on the last line. */
  end(): string {
    try {
      return this.decoder.decode();
    } catch {
      throw new NotUtf8Error(this.newlines + 1);
    }
  }

  private faultLine(chunk: Uint8Array): number {
    const bytes = new Uint8Array(this.carry.length + chunk.length);
    bytes.set(this.carry);
    bytes.set(chunk, this.carry.length);
    const at = firstInvalidUtf8(bytes);
    const inChunk = at < 0 ? chunk.length : Math.max(0, at - this.carry.length);
    return this.newlines + newlinesIn(chunk, inChunk) + 1;
  }
}

/**
 * The bytes of a character left incomplete at the end of `carry` + `chunk` (valid UTF-8 so far):
 * it starts within the last three bytes, so only those are looked at.
 */
function cutOff(carry: Uint8Array, chunk: Uint8Array): Uint8Array {
  const tail = chunk.subarray(Math.max(0, chunk.length - 3));
  const last = new Uint8Array(carry.length + tail.length);
  last.set(carry);
  last.set(tail, carry.length);
  for (let p = last.length - 1; p >= Math.max(0, last.length - 3); p--) {
    const c = last[p];
    if (c >= 0x80 && c < 0xc0) continue;
    return sequenceLength(c) > last.length - p ? last.slice(p) : new Uint8Array(0);
  }
  return new Uint8Array(0);
}
