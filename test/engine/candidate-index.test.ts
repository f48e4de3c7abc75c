import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CandidateIndex } from '../../engine/shards/candidate-index.js';
import { PrefixIndex } from '../../engine/shards/prefix-index.js';

function build(docs: string[][], ranking: 'idf' | 'flexsearch', maxFrequency = 1000): CandidateIndex {
  const index = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking }, maxFrequency);
  docs.forEach((terms, doc) => index.add(doc, terms));
  return index;
}

const DOCS = [
  ['A', 'COMMON'], // 0
  ['A', 'B', 'COMMON'], // 1
  ['B', 'COMMON'], // 2
  ['C', 'COMMON'], // 3
  ['A', 'B', 'C', 'COMMON'], // 4
];

test('candidate index (FlexSearch): document frequencies, a repeated term posted once', () => {
  const index = build([['ALI', 'ALI', 'HASSAN'], ['ALI'], [], ['HASSAN']], 'idf');
  assert.equal(index.frequency('ALI'), 2);
  assert.equal(index.frequency('HASSAN'), 2);
  assert.equal(index.frequency('NOPE'), 0);
  assert.equal(index.size, 4);
});

test('idf ranking: more and rarer shared terms first, ties by document, filter and limit applied', () => {
  const index = build(DOCS, 'idf');
  assert.deepEqual(
    index.candidates(['A', 'B', 'COMMON', 'MISSING'], 10, () => true),
    [1, 4, 0, 2, 3],
  );
  assert.deepEqual(
    index.candidates(['A', 'B', 'COMMON'], 2, () => true),
    [1, 4],
  );
  assert.deepEqual(
    index.candidates(['A', 'B'], 10, (d) => d !== 1),
    [4, 0, 2],
  );
  // Repeated query terms count once; scratch state is clean between calls.
  assert.deepEqual(
    index.candidates(['C', 'C'], 10, () => true),
    [3, 4],
  );
  assert.deepEqual(
    index.candidates([], 10, () => true),
    [],
  );
});

test('idf ranking: terms above the frequency cap add no candidates once rarer terms have', () => {
  const index = build([['RARE', 'COMMON'], ['COMMON'], ['COMMON'], ['COMMON']], 'idf', 2);
  assert.deepEqual(
    index.candidates(['RARE', 'COMMON'], 10, () => true),
    [0],
  );
  // Alone, a common term still gives candidates.
  assert.deepEqual(
    index.candidates(['COMMON'], 10, () => true),
    [0, 1, 2, 3],
  );
});

test("FlexSearch's ranking: documents with more of the query's terms first, filter and limit applied", () => {
  const index = build(DOCS, 'flexsearch');
  const top = index.candidates(['A', 'B', 'COMMON'], 10, () => true);
  assert.deepEqual(new Set(top.slice(0, 2)), new Set([1, 4]));
  assert.deepEqual(new Set(top), new Set([0, 1, 2, 3, 4]));
  assert.deepEqual(index.candidates(['A', 'B', 'COMMON'], 2, (d) => d !== 1).length, 2);
  assert.ok(!index.candidates(['A', 'B', 'COMMON'], 10, (d) => d !== 1).includes(1));
  assert.deepEqual(
    index.candidates(['MISSING'], 10, () => true),
    [],
  );
});

test('prefix index: documents by hashed term after sealing, ascending, any seed kept apart', () => {
  const index = new PrefixIndex();
  const terms = ['abc', 'abd', 'abc', 'xyz', 'abc'];
  terms.forEach((t, doc) => index.add(`${t}-tail`, 0, 3, 7, doc));
  index.add('abc', 0, 3, 8, 5);
  index.seal();
  const docs = (t: string, seed = 7) => {
    const out: number[] = [];
    index.forEach(t, 0, t.length, seed, (d) => (out.push(d), true));
    return out;
  };
  assert.deepEqual(docs('abc'), [0, 2, 4]);
  assert.deepEqual(docs('abc', 8), [5]);
  assert.deepEqual(docs('xyz'), [3]);
  assert.deepEqual(docs('nope'), []);
  const first: number[] = [];
  index.forEach('abc', 0, 3, 7, (d) => (first.push(d), false));
  assert.deepEqual(first, [0]);
});
