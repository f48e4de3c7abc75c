import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCache } from '../../../engine/shards/bounded-cache.js';

function counting(limit: number) {
  const made: number[] = [];
  const cache = new BoundedCache<{ key: number }>(limit);
  const get = (key: number) =>
    cache.get(key, () => {
      made.push(key);
      return { key };
    });
  return { made, get };
}

describe('BoundedCache', () => {
  test('a value is kept from the second time its key is met, then answered from memory', () => {
    const { made, get } = counting(10);
    const first = get(7);
    const second = get(7);
    assert.notEqual(first, second);
    assert.deepEqual(second, { key: 7 });
    assert.equal(get(7), second);
    assert.equal(get(7), second);
    assert.deepEqual(made, [7, 7]);
  });

  test('negative keys (names without a party record) are kept the same way', () => {
    const { made, get } = counting(10);
    get(-1);
    get(-2);
    const kept = get(-1);
    assert.equal(get(-1), kept);
    assert.deepEqual(made, [-1, -2, -1]);
  });

  test('starts over once it holds `limit` values', () => {
    const { made, get } = counting(2);
    for (const key of [1, 2, 1, 2]) get(key);
    assert.deepEqual(made, [1, 2, 1, 2]);
    get(1);
    get(2);
    assert.equal(made.length, 4, 'both kept');
    get(3);
    get(3);
    assert.deepEqual(made, [1, 2, 1, 2, 3, 3]);
    // Keeping 3 started the map over: 1 is made again once, and kept at once (its sighting is remembered).
    get(1);
    get(1);
    assert.deepEqual(made, [1, 2, 1, 2, 3, 3, 1]);
  });

  test('every key is answered correctly while the doorkeeper starts over (300,000 distinct keys, each met twice)', () => {
    const { made, get } = counting(50_000);
    for (let key = 0; key < 300_000; key++) {
      assert.equal(get(key).key, key);
      assert.equal(get(key).key, key);
    }
    // The last keys met twice are kept: met a third time, none is made again.
    const before = made.length;
    for (let key = 299_000; key < 300_000; key++) assert.equal(get(key).key, key);
    assert.equal(made.length, before);
  });
});
