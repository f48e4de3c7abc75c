import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BytePool } from '../../engine/byte-pool.js';
import { buildExactTable, ExactKeyCollector, ExactTable, partitionOf } from '../../engine/exact-table.js';
import { KeyBytes } from '../../engine/key-bytes.js';

const bytes = new KeyBytes(16);

/** The key in a KeyBytes, as a probe passes it (the tests choose the hashes themselves). */
function key(s: string): KeyBytes {
  bytes.set(s, 0);
  return bytes;
}

function ids(t: ExactTable, hi: number, lo: number, k: string, type = 1): number[] {
  const slot = t.find(hi, lo, key(k), type);
  if (slot < 0) return [];
  return Array.from({ length: t.count(slot) }, (_, i) => t.id(slot, i));
}

/** Published values in a pool, as the store keeps them: value i starts at `at(i)`. */
function pool(values: string[]): { pool: BytePool; at: (i: number) => number } {
  const p = new BytePool();
  const starts = values.map((v) => p.append(v));
  return { pool: p, at: (i) => starts[i] };
}

test("exact table groups ids per type and key, ascending; keys come from the value pool or the shard's own bytes", () => {
  const values = ['0xABC', 'abc', '0xabc', 'Ünïcode@Example.com', 'x'];
  const { pool: p, at } = pool(values);
  const c = new ExactKeyCollector(1);
  // Ids 0 and 2 share the key '0xabc' (one as published, one needing a copy).
  c.add(7, 1, 1, key('0xabc'), 0, false, 0);
  c.add(9, 2, 1, key('abc'), 1, true, at(1));
  c.add(7, 1, 1, key('0xabc'), 2, true, at(2));
  // Same hash, another key or another entity type: a 64-bit collision keeps its own postings.
  c.add(7, 1, 1, key('x'), 4, true, at(4));
  c.add(7, 1, 2, key('0xabc'), 5, false, 0);
  c.add(5, 5, 1, key('ünïcode@example.com'), 3, false, 0);
  for (let i = 0; i < 5000; i++) c.add(1000 + i, i, 1, key(`k${i}`), 100 + i, false, 0);
  c.add(0, 3, 1, key('zero'), 6, false, 0);
  const data = buildExactTable(c.seal(), p);
  assert.ok(data.table instanceof SharedArrayBuffer && data.overflow instanceof SharedArrayBuffer);
  // At most half full, a power of two; blocks of 64 slots (16 bytes each) and room for 1.5 times
  // their share of the key bytes (each key 4-byte aligned, the repeated '0xabc' counted too).
  assert.equal(data.capacity, 16384);
  const keys = [
    '0xabc',
    'abc',
    '0xabc',
    'x',
    '0xabc',
    'ünïcode@example.com',
    ...Array.from({ length: 5000 }, (_, i) => `k${i}`),
    'zero',
  ];
  const keyBytes = keys.reduce((n, k) => n + ((Buffer.byteLength(k) + 3) & ~3), 0);
  assert.equal(data.blockWords, 256 + ((Math.ceil((1.5 * keyBytes) / 256) + 3) & ~3) / 4);
  assert.equal(data.table.byteLength, 4 * data.blockWords * 256);
  // A tag (the high hash word, 1 for 0) per slot, 0 when empty: one per distinct key.
  const tags = new Uint32Array(data.tags);
  assert.equal(tags.length, 16384);
  assert.equal(tags.filter((t) => t !== 0).length, 5006);
  assert.deepEqual(
    [...new Set(tags.filter((t) => t !== 0 && t < 1000))].sort((a, b) => a - b),
    [1, 5, 7, 9],
  );
  const t = new ExactTable(data);
  assert.deepEqual(ids(t, 7, 1, '0xabc'), [0, 2]);
  assert.deepEqual(ids(t, 7, 1, 'x'), [4]);
  assert.deepEqual(ids(t, 7, 1, 'y'), []);
  assert.deepEqual(ids(t, 7, 1, '0xabc', 2), [5]);
  assert.deepEqual(ids(t, 7, 1, '0xabc', 3), []);
  assert.deepEqual(ids(t, 9, 2, 'abc'), [1]);
  assert.deepEqual(ids(t, 9, 2, 'abd'), []);
  assert.deepEqual(ids(t, 9, 2, 'ab'), []);
  assert.deepEqual(ids(t, 9, 2, 'abcd'), []);
  assert.deepEqual(ids(t, 5, 5, 'ünïcode@example.com'), [3]);
  assert.deepEqual(ids(t, 5, 5, 'unicode@example.com'), []);
  assert.deepEqual(ids(t, 1000 + 4321, 4321, 'k4321'), [4421]);
  assert.deepEqual(ids(t, 0, 3, 'zero'), [6]);
  assert.deepEqual(ids(t, 1, 3, 'zero'), []);
  assert.equal(t.find(123456, 654321, key('k1'), 1), -1);
  assert.deepEqual(Array.from(t.postings), [2, 0, 2]);
  // Whether a key is the published value of its one entity (a key of several never says so).
  const isValue = (hi: number, lo: number, k: string, type: number) => t.isValue(t.find(hi, lo, key(k), type));
  assert.equal(isValue(7, 1, '0xabc', 1), false);
  assert.equal(isValue(9, 2, 'abc', 1), true);
  assert.equal(isValue(7, 1, 'x', 1), true);
  assert.equal(isValue(5, 5, 'ünïcode@example.com', 1), false);
});

test('a key listed by several shards gets its ids from every shard, merged ascending', () => {
  const { pool: p, at } = pool(['same', 'same', 'same', 'same', 'other']);
  // Shards take ids in batches in turn: shard 0 had ids 0 and 2, shard 1 ids 1 and 3.
  const shard0 = new ExactKeyCollector(1);
  const shard1 = new ExactKeyCollector(1);
  shard0.add(3, 3, 0, key('same'), 0, true, at(0));
  shard1.add(3, 3, 0, key('same'), 1, true, at(1));
  shard0.add(3, 3, 0, key('same'), 2, true, at(2));
  shard1.add(3, 3, 0, key('same'), 3, false, 0);
  shard1.add(3, 3, 0, key('other'), 4, true, at(4));
  const t = new ExactTable(buildExactTable([shard0.seal()[0], shard1.seal()[0]], p));
  assert.deepEqual(ids(t, 3, 3, 'same', 0), [0, 1, 2, 3]);
  assert.deepEqual(ids(t, 3, 3, 'other', 0), [4]);
});

test("keys beyond their block's room go to the overflow area and are found there", () => {
  const long = (i: number) => `${i}`.padStart(100, 'k');
  const { pool: p } = pool([]);
  const c = new ExactKeyCollector(1);
  // Forty 100-byte keys with the same home slot fill block 0 (room: 1.5 × 4000 / 2 blocks).
  for (let i = 0; i < 40; i++) c.add(i + 1, 0, 1, key(long(i)), i, false, 0);
  const data = buildExactTable(c.seal(), p);
  assert.equal(data.capacity, 128);
  assert.equal(data.blockWords, 256 + 3000 / 4);
  assert.equal(
    new BytePool(data.overflow)
      .bytes()
      .subarray(0, 1000)
      .filter((b) => b !== 0).length,
    1000,
  );
  const t = new ExactTable(data);
  for (let i = 0; i < 40; i++) assert.deepEqual(ids(t, i + 1, 0, long(i)), [i], long(i));
  assert.deepEqual(ids(t, 41, 0, long(40)), []);
});

test('keys are split by hash into partitions, each holding only its own', () => {
  const { pool: p } = pool([]);
  const c = new ExactKeyCollector(3);
  const his = [0, 0x55555555, 0x55555556, 0xaaaaaaaa, 0xaaaaaaab, 0xffffffff];
  assert.deepEqual(
    his.map((hi) => partitionOf(hi, 3)),
    [0, 0, 1, 1, 2, 2],
  );
  his.forEach((hi, id) => c.add(hi, id, 1, key(`key${id}`), id, false, 0));
  const sets = c.seal();
  assert.deepEqual(
    sets.map((s) => s.count),
    [2, 2, 2],
  );
  const tables = sets.map((s) => new ExactTable(buildExactTable([s], p)));
  his.forEach((hi, id) => {
    tables.forEach((t, part) => assert.deepEqual(ids(t, hi, id, `key${id}`), part === partitionOf(hi, 3) ? [id] : []));
  });
});

test('an empty table answers every probe with a miss', () => {
  const p = new BytePool();
  const t = new ExactTable(buildExactTable(new ExactKeyCollector(1).seal(), p));
  assert.equal(t.find(0, 0, key(''), 1), -1);
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
  const copy = new BytePool();
  const bigAt = copy.appendBytes(p.bytes(), at[4][0], at[4][1]);
  const clefAt = copy.appendBytes(p.bytes(), at[3][0], at[3][1]);
  assert.equal(copy.text(bigAt, clefAt), samples[4]);
  assert.equal(copy.text(clefAt, copy.size), '𝄞 clef');
});

/** The key hash written out over UTF-8 bytes: little-endian words, then the last 1-3 bytes and the length. */
function referenceHash(bytes: Buffer, seed: number): number[] {
  const mix = (h: number, x: number, k: number) => Math.imul(h ^ x, k);
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  const full = bytes.length >>> 2;
  for (let w = 0; w < full; w++) {
    const x = bytes.readInt32LE(4 * w);
    h1 = mix(h1, x, 2654435761);
    h2 = mix(h2, x, 1597334677);
  }
  let tail = 0;
  for (let i = 4 * full; i < bytes.length; i++) tail |= bytes[i] << (8 * (i - 4 * full));
  h1 = mix(h1, tail ^ bytes.length, 2654435761);
  h2 = mix(h2, tail, 1597334677);
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h2 >>> 0, h1 >>> 0];
}

test('key bytes: UTF-8 hashes stable, separated by seed, length and content; word-wise comparison at any offset', () => {
  const hash = (s: string, seed = 1) => {
    const k = new KeyBytes(4);
    k.set(s, seed);
    return [k.hi, k.lo];
  };
  const address = '0x7f367cc41522ce07553e823bf3be79a889debe1b';
  assert.deepEqual(hash(address), hash(address));
  assert.notDeepEqual(hash(address, 2), hash(address));
  assert.notDeepEqual(hash(address.replace(/b$/, 'c')), hash(address));
  assert.notDeepEqual(hash('a'), hash('a\0'));
  assert.notDeepEqual(hash(''), hash('\0'));
  assert.notDeepEqual(hash('abcd'), hash('abc'));
  const k = new KeyBytes(4);
  k.set('é✓x', 1);
  assert.equal(k.length, 6);
  assert.deepEqual(Array.from(k.bytes.subarray(0, 6)), [...Buffer.from('é✓x')]);
  // ASCII is packed in script, anything else encoded natively: both hash the UTF-8 bytes alike.
  for (const s of [
    '',
    'a',
    'ab',
    'abc',
    'abcd',
    'abcde',
    address,
    'é',
    'aé',
    'abé',
    'abcé',
    '✓✓✓✓x',
    '𝄞',
    'a\ud800b',
  ]) {
    assert.deepEqual(hash(s, 7), referenceHash(Buffer.from(s), 7), s);
  }
  const p = new BytePool();
  p.append('-');
  const samples = ['', 'a', 'abcd', 'abcde', address, 'ünïcode@example.com', 'x'.repeat(5000)];
  for (const s of samples) {
    const at = p.append(s);
    k.set(s, 1);
    assert.equal(k.equals(p.dataView(), at), true, s);
    if (s.length > 0) {
      k.set(s.slice(0, -1) + (s.endsWith('z') ? 'y' : 'z'), 1);
      assert.equal(k.equals(p.dataView(), at), false, s);
    }
  }
});
