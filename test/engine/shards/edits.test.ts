import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachEdit } from '../../../engine/shards/edits.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Every text one deletion, swap of neighbours, substitution or insertion (letters A-Z) away. */
function bruteForce(token: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < token.length; i++) out.add(token.slice(0, i) + token.slice(i + 1));
  for (let i = 0; i + 1 < token.length; i++) out.add(token.slice(0, i) + token[i + 1] + token[i] + token.slice(i + 2));
  for (let i = 0; i < token.length; i++) for (const c of LETTERS) out.add(token.slice(0, i) + c + token.slice(i + 1));
  for (let i = 0; i <= token.length; i++) for (const c of LETTERS) out.add(token.slice(0, i) + c + token.slice(i));
  out.delete(token);
  return out;
}

function visited(token: string): string[] {
  const out: string[] = [];
  forEachEdit(token, (codes, n) => out.push(String.fromCharCode(...codes.subarray(0, n))));
  return out;
}

test('forEachEdit visits exactly the texts one edit away, never the token itself', () => {
  for (const token of ['A', 'AB', 'ALLA', 'QUIXOTIC', 'ZZZ', 'X7Y', 'A'.repeat(70)]) {
    const got = visited(token);
    assert.deepEqual(new Set(got), bruteForce(token), token);
    assert.ok(!got.includes(token), token);
  }
  // 8 deletions, 7 swaps, 8 × 25 substitutions, 9 × 26 insertions.
  assert.equal(visited('QUIXOTIC').length, 8 + 7 + 200 + 234);
  assert.deepEqual(visited(''), LETTERS.split(''));
});
