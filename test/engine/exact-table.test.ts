import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExactTable, ExactTableBuilder } from '../../engine/exact-table.js';
import { hashKey } from '../../engine/hash.js';

function ids(t: ExactTable, hi: number, lo: number): number[] {
  const slot = t.find(hi, lo);
  if (slot < 0) return [];
  return Array.from(t.postings.subarray(t.start(slot), t.start(slot) + t.count(slot)));
}

test('exact table groups ids per 64-bit hash, ascending, and misses cleanly', () => {
  const b = new ExactTableBuilder();
  b.add(7, 1, 3);
  b.add(9, 2, 4);
  b.add(7, 1, 8);
  // Same high lane, different low lane: a distinct key probing the same slot first.
  b.add(7, 5, 10);
  for (let i = 0; i < 5000; i++) b.add(1000 + i, i, 100 + i);
  const data = b.build();
  assert.ok(data.buffer instanceof SharedArrayBuffer);
  const t = new ExactTable(data);
  assert.deepEqual(ids(t, 7, 1), [3, 8]);
  assert.deepEqual(ids(t, 9, 2), [4]);
  assert.deepEqual(ids(t, 7, 5), [10]);
  assert.deepEqual(ids(t, 1000 + 4321, 4321), [4421]);
  assert.deepEqual(ids(t, 7, 2), []);
  assert.equal(t.find(123456, 654321), -1);
});

test('an empty table answers every probe with a miss', () => {
  const t = new ExactTable(new ExactTableBuilder().build());
  assert.equal(t.find(0, 0), -1);
  assert.equal(t.postings.length, 0);
});

test('key hashes are stable and separated by entity-type seed', () => {
  const a = new Uint32Array(2);
  const b = new Uint32Array(2);
  hashKey('0x7f367cc41522ce07553e823bf3be79a889debe1b', 1, a);
  hashKey('0x7f367cc41522ce07553e823bf3be79a889debe1b', 1, b);
  assert.deepEqual(a, b);
  hashKey('0x7f367cc41522ce07553e823bf3be79a889debe1b', 2, b);
  assert.notDeepEqual(a, b);
  hashKey('0x7f367cc41522ce07553e823bf3be79a889debe1c', 1, b);
  assert.notDeepEqual(a, b);
});
