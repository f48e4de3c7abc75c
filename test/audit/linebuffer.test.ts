import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineBuffer, type Chunk } from '../../src/audit/linebuffer.js';

/**
 * The line buffer reuses its blocks once their rows are stored: a block must never be written
 * over while any chunk of it is still waiting for an insert (or kept for a retry).
 */
const row = (i: number) => `row-${i}\t${'x'.repeat(200)}\n`;
const textOf = (chunks: Chunk[]) => chunks.map((c) => c.bytes.toString('utf8')).join('');
const rowsOf = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => row(from + k)).join('');

test('a taken chunk keeps its bytes until recycled, while later rows fill and reuse other blocks', () => {
  const lines = new LineBuffer();
  for (let i = 0; i < 3000; i++) lines.append(row(i), 1);
  const held = lines.take();
  const heldText = textOf(held);
  assert.equal(heldText, rowsOf(0, 3000));
  let next = 3000;
  const arrayBuffers = new Set<ArrayBufferLike>();
  for (let round = 0; round < 40; round++) {
    for (let k = 0; k < 2000; k++) lines.append(row(next++), 1);
    const chunks = lines.take();
    for (const c of chunks) arrayBuffers.add(c.bytes.buffer);
    assert.equal(textOf(chunks), rowsOf(next - 2000, next));
    lines.recycle(chunks);
    assert.equal(textOf(held), heldText, `round ${round}: held rows written over`);
  }
  // 40 rounds of ~430 KB in 1 MiB blocks: a handful of blocks in turn, not one per megabyte.
  assert.ok(arrayBuffers.size <= 6, `${arrayBuffers.size} blocks allocated`);
  lines.recycle(held);
});

test('inserts of many blocks reuse them: no fresh block per insert once the first insert was recycled', () => {
  // ~10 MiB per take, like a 50,000-row audit insert: 10 blocks in flight while the next fill.
  const lines = new LineBuffer();
  const arrayBuffers = new Set<ArrayBufferLike>();
  let next = 0;
  let previous: Chunk[] = [];
  for (let round = 0; round < 20; round++) {
    for (let k = 0; k < 50_000; k++) lines.append(row(next++), 1);
    const chunks = lines.take();
    for (const c of chunks) arrayBuffers.add(c.bytes.buffer);
    assert.equal(
      chunks.reduce((n, c) => n + c.rows, 0),
      50_000,
    );
    // The previous insert finishes while this one's rows were buffered.
    lines.recycle(previous);
    previous = chunks;
  }
  lines.recycle(previous);
  // Two inserts' worth of blocks (one filling while the other is stored) and a spare, not 10 per round.
  assert.ok(arrayBuffers.size <= 2 * 11 + 1, `${arrayBuffers.size} blocks allocated`);
});

test('rows put back after a failed insert stay intact while new rows arrive; dropping the oldest releases them', () => {
  const lines = new LineBuffer();
  for (let i = 0; i < 6000; i++) lines.append(row(i), 1);
  const failed = lines.take();
  lines.putBack(failed);
  for (let i = 6000; i < 12_000; i++) lines.append(row(i), 1);
  assert.equal(lines.rows, 12_000);
  lines.dropOldest(6500);
  assert.equal(lines.rows, 5500);
  for (let i = 12_000; i < 20_000; i++) lines.append(row(i), 1);
  const all = lines.take();
  assert.equal(textOf(all), rowsOf(6500, 20_000));
  lines.recycle(all);
});

test('a push larger than a block gets a block of its own, intact', () => {
  const lines = new LineBuffer();
  lines.append(row(0), 1);
  const big = rowsOf(1, 8001);
  lines.append(big, 8000);
  lines.append(row(8001), 1);
  const chunks = lines.take();
  assert.equal(textOf(chunks), row(0) + big + row(8001));
  assert.equal(
    chunks.reduce((n, c) => n + c.rows, 0),
    8002,
  );
});
