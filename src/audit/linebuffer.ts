/** A block of encoded lines; `refs` counts its chunks not yet recycled, plus one while lines are written into it. */
interface Block {
  bytes: Buffer;
  refs: number;
}

/** Encoded lines and how many rows they hold. */
export interface Chunk {
  bytes: Buffer;
  rows: number;
  block: Block;
}

/** Bytes allocated at a time; a push larger than this gets a block of its own. */
const BLOCK_BYTES = 1 << 20;
/** Free blocks always kept for reuse (more while inserts are larger, see `recycle`). */
const FREE_MIN = 4;
/** Pending text written into a block once it is this long (or when the lines are taken). */
const PENDING_CHARS = 16 * 1024;

/**
 * Newline-terminated rows in UTF-8, written into large blocks: what a writer buffers is a few
 * Buffers outside the JS heap, not one object per row for the garbage collector to trace and
 * promote. Every row ends with the only newline byte it has (values escape theirs), which is
 * how `dropOldest` finds row boundaries.
 *
 * Blocks are reused once inserted (`recycle`): each new off-heap block counts as external memory,
 * and at audit rates fresh blocks made V8 start full collections ("external memory pressure").
 * As many blocks as the last insert held are kept, since a fixed few still left a large insert
 * allocating.
 */
export class LineBuffer {
  private chunks: Chunk[] = [];
  private block: Block | null = null;
  private readonly free: Buffer[] = [];
  private freeMax = FREE_MIN;
  /** Start of the bytes of `block` not yet in `chunks`, and the end of what is written. */
  private start = 0;
  private end = 0;
  private blockRows = 0;
  /**
   * Lines appended since the last write into a block. Small pushes are joined as text first: each
   * write into a Buffer has a fixed cost besides its bytes, which a request's one or two rows
   * paid every time.
   */
  private pendingText = '';
  private pendingRows = 0;
  /** Rows held. */
  rows = 0;

  /** Appends `text`, which holds `rows` whole lines. */
  append(text: string, rows: number): void {
    this.pendingText += text;
    this.pendingRows += rows;
    this.rows += rows;
    if (this.pendingText.length >= PENDING_CHARS) this.writePending();
  }

  private writePending(): void {
    const text = this.pendingText;
    if (text === '') return;
    // At most 3 bytes per UTF-16 unit (a surrogate pair, 2 units, is 4 bytes).
    const room = text.length * 3;
    if (this.block === null || this.end + room > this.block.bytes.length) {
      this.sealBlock();
      if (this.block) this.release(this.block);
      const bytes = (room <= BLOCK_BYTES && this.free.pop()) || Buffer.allocUnsafe(Math.max(BLOCK_BYTES, room));
      this.block = { bytes, refs: 1 };
      this.start = this.end = 0;
    }
    this.end += this.block.bytes.write(text, this.end, 'utf8');
    this.blockRows += this.pendingRows;
    this.pendingText = '';
    this.pendingRows = 0;
  }

  /** Removes and returns everything held, oldest first. */
  take(): Chunk[] {
    this.seal();
    const chunks = this.chunks;
    this.chunks = [];
    this.rows = 0;
    return chunks;
  }

  /** Puts taken chunks back in front of what arrived since (a failed insert). */
  putBack(chunks: Chunk[]): void {
    this.seal();
    this.chunks = chunks.concat(this.chunks);
    for (const c of chunks) this.rows += c.rows;
  }

  /**
   * Taken chunks that are stored: their bytes may be written over. The next insert likely needs
   * as many blocks (plus the one being filled), so that many are kept; fewer once inserts shrink.
   */
  recycle(chunks: Chunk[]): void {
    let blocks = 0;
    for (let i = 0; i < chunks.length; i++) if (i === 0 || chunks[i].block !== chunks[i - 1].block) blocks++;
    this.freeMax = Math.max(FREE_MIN, blocks + 1);
    if (this.free.length > this.freeMax) this.free.length = this.freeMax;
    for (const c of chunks) this.release(c.block);
  }

  /** Drops the `n` oldest rows. */
  dropOldest(n: number): void {
    this.seal();
    let left = Math.min(n, this.rows);
    this.rows -= left;
    while (left > 0) {
      const first = this.chunks[0];
      if (first.rows <= left) {
        this.chunks.shift();
        this.release(first.block);
        left -= first.rows;
        continue;
      }
      let at = 0;
      for (let i = 0; i < left; i++) at = first.bytes.indexOf(0x0a, at) + 1;
      this.chunks[0] = { bytes: first.bytes.subarray(at), rows: first.rows - left, block: first.block };
      left = 0;
    }
  }

  /** Ends the current chunk, pending lines included; later appends go to the rest of the block or a new one. */
  private seal(): void {
    this.writePending();
    this.sealBlock();
  }

  private sealBlock(): void {
    const block = this.block;
    if (block === null || this.end === this.start) return;
    this.chunks.push({ bytes: block.bytes.subarray(this.start, this.end), rows: this.blockRows, block });
    block.refs++;
    this.start = this.end;
    this.blockRows = 0;
  }

  private release(block: Block): void {
    if (--block.refs === 0 && block.bytes.length === BLOCK_BYTES && this.free.length < this.freeMax)
      this.free.push(block.bytes);
  }
}
