import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BytePool } from '../../engine/byte-pool.js';
import { ExactTable, ExactTableBuilder } from '../../engine/exact-table.js';
import { hashKey } from '../../engine/hash.js';

function ids(t: ExactTable, hi: number, lo: number, key: string, type = 1): number[] {
  const k = t.find(hi, lo, key, type);
  if (k < 0) return [];
  return Array.from({ length: t.count(k) }, (_, i) => t.id(k, i));
}

/** Published values in a pool, as the store keeps them: value i is `values[i]`. */
function pool(values: string[]): { pool: BytePool; at: (i: number) => [number, number] } {
  const p = new BytePool();
  const ranges = values.map((v) => {
    const start = p.append(v);
    return [start, p.size] as [number, number];
  });
  return { pool: p, at: (i) => ranges[i] };
}

test('exact table groups ids per type and key, ascending; keys live in the value pool or their own bytes', () => {
  const values = ['0xABC', 'abc', '0xabc', 'Ünïcode@Example.com', 'x'];
  const { pool: p, at } = pool(values);
  const b = new ExactTableBuilder(p);
  // Ids 0 and 2 share the key '0xabc' (one as published, one needing a copy).
  b.add(7, 1, 1, '0xabc', 0, ...at(0), false);
  b.add(9, 2, 1, 'abc', 1, ...at(1), true);
  b.add(7, 1, 1, '0xabc', 2, ...at(2), true);
  // Same hash, another key or another entity type: a 64-bit collision keeps its own postings.
  b.add(7, 1, 1, 'x', 4, ...at(4), true);
  b.add(7, 1, 2, '0xabc', 5, 0, 0, false);
  b.add(5, 5, 1, 'ünïcode@example.com', 3, ...at(3), false);
  for (let i = 0; i < 5000; i++) b.add(1000 + i, i, 1, `k${i}`, 100 + i, 0, 0, false);
  const data = b.build();
  assert.ok(data.index instanceof SharedArrayBuffer && data.keyBytes instanceof SharedArrayBuffer);
  const t = new ExactTable(data, p);
  assert.deepEqual(ids(t, 7, 1, '0xabc'), [0, 2]);
  assert.deepEqual(ids(t, 7, 1, 'x'), [4]);
  assert.deepEqual(ids(t, 7, 1, 'y'), []);
  assert.deepEqual(ids(t, 7, 1, '0xabc', 2), [5]);
  assert.deepEqual(ids(t, 7, 1, '0xabc', 3), []);
  assert.deepEqual(ids(t, 9, 2, 'abc'), [1]);
  assert.deepEqual(ids(t, 9, 2, 'abd'), []);
  assert.deepEqual(ids(t, 5, 5, 'ünïcode@example.com'), [3]);
  assert.deepEqual(ids(t, 5, 5, 'unicode@example.com'), []);
  assert.deepEqual(ids(t, 1000 + 4321, 4321, 'k4321'), [4421]);
  assert.equal(t.find(123456, 654321, 'k1', 1), -1);
});

test('an empty table answers every probe with a miss', () => {
  const p = new BytePool();
  const t = new ExactTable(new ExactTableBuilder(p).build(), p);
  assert.equal(t.find(0, 0, '', 1), -1);
  assert.equal(t.postings.length, 0);
});

test('byte pool round-trips UTF-8 and compares without decoding ASCII', () => {
  const p = new BytePool();
  const samples = ['', 'plain', 'Ünïcode ✓', '𝄞 clef', 'x'.repeat(100_000)];
  const at = samples.map((s) => [p.append(s), p.size]);
  samples.forEach((s, i) => {
    assert.equal(p.text(at[i][0], at[i][1]), s);
    assert.equal(p.equals(s, at[i][0], at[i][1]), true);
    assert.equal(p.equals(s + 'a', at[i][0], at[i][1]), false);
  });
  assert.equal(p.equals('plaiN', at[1][0], at[1][1]), false);
  assert.equal(p.equals('plai', at[1][0], at[1][1]), false);
  assert.equal(p.equals('Ünïcode ✗', at[2][0], at[2][1]), false);
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
