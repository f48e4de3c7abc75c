import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CandidateRanker, TermIndexBuilder, type TermIndex } from '../../engine/shards/term-index.js';

function postings(index: TermIndex, term: string, seed = 1): number[] {
  const t = index.term(term, 0, term.length, seed);
  return t < 0 ? [] : Array.from(index.postings.subarray(index.offsets[t], index.offsets[t + 1]));
}

function build(docs: string[][]): TermIndex {
  const b = new TermIndexBuilder();
  docs.forEach((terms, doc) => {
    for (const t of terms) b.add(t, 0, t.length, 1, doc);
  });
  return b.build();
}

test('term index: ascending postings per term, a repeated term posted once, seeds and substrings', () => {
  const b = new TermIndexBuilder();
  b.add('ALI ALI', 0, 3, 1, 0);
  b.add('ALI ALI', 4, 7, 1, 0);
  b.add('HASSAN', 0, 6, 1, 0);
  b.add('ALI', 0, 3, 2, 1);
  b.add('XHASSANX', 1, 7, 1, 2);
  for (let d = 3; d < 3000; d++) b.add(`T${d % 7}`, 0, 2, 1, d);
  const index = b.build();
  assert.deepEqual(postings(index, 'ALI'), [0]);
  assert.deepEqual(postings(index, 'ALI', 2), [1]);
  assert.deepEqual(postings(index, 'HASSAN'), [0, 2]);
  assert.deepEqual(postings(index, 'T3').slice(0, 3), [3, 10, 17]);
  assert.equal(postings(index, 'T3').length, 429);
  assert.deepEqual(postings(index, 'NOPE'), []);
  assert.equal(index.documents, 3000);
  assert.equal(index.term('xALIx', 1, 4, 1), index.term('ALI', 0, 3, 1));
});

test('term index: 40k documents agree with a plain map of term to documents', () => {
  // A small LCG: deterministic terms with skewed frequencies, repeats within documents included.
  let x = 12345;
  const next = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x % n;
  };
  const expected = new Map<string, number[]>();
  const b = new TermIndexBuilder();
  for (let doc = 0; doc < 40_000; doc++) {
    const count = 1 + next(6);
    for (let k = 0; k < count; k++) {
      const term = `w${next(k === 0 ? 50 : 200_000)}`;
      b.add(term, 0, term.length, 1, doc);
      const docs = expected.get(term) ?? [];
      if (docs[docs.length - 1] !== doc) docs.push(doc);
      expected.set(term, docs);
    }
  }
  const index = b.build();
  assert.equal(index.documents, 40_000);
  for (const [term, docs] of expected) assert.deepEqual(postings(index, term), docs, term);
  assert.equal(index.postings.length, [...expected.values()].reduce((n, d) => n + d.length, 0));
  assert.deepEqual(postings(index, 'w200000'), []);
});

test('ranker: more and rarer shared terms first, ties by document, filter and limit applied', () => {
  const index = build([
    ['A', 'COMMON'], // 0
    ['A', 'B', 'COMMON'], // 1
    ['B', 'COMMON'], // 2
    ['C', 'COMMON'], // 3
    ['A', 'B', 'C', 'COMMON'], // 4
  ]);
  const ranker = new CandidateRanker(1000);
  const terms = (...ts: string[]) => ts.map((t) => index.term(t, 0, t.length, 1)).filter((t) => t >= 0);
  assert.deepEqual(ranker.rank(index, terms('A', 'B', 'COMMON', 'MISSING'), 5, 10, () => true), [1, 4, 0, 2, 3]);
  assert.deepEqual(ranker.rank(index, terms('A', 'B', 'COMMON'), 5, 2, () => true), [1, 4]);
  assert.deepEqual(ranker.rank(index, terms('A', 'B'), 5, 10, (d) => d !== 1), [4, 0, 2]);
  // Repeated query terms count once; scratch state is clean between calls.
  assert.deepEqual(ranker.rank(index, terms('C', 'C'), 5, 10, () => true), [3, 4]);
  assert.deepEqual(ranker.rank(index, [], 5, 10, () => true), []);
});

test('ranker: terms above the frequency cap add no candidates once rarer terms have', () => {
  const index = build([['RARE', 'COMMON'], ['COMMON'], ['COMMON'], ['COMMON']]);
  const ranker = new CandidateRanker(2);
  const t = (s: string) => index.term(s, 0, s.length, 1);
  assert.deepEqual(ranker.rank(index, [t('RARE'), t('COMMON')], 4, 10, () => true), [0]);
  // Alone, a common term still gives candidates.
  assert.deepEqual(ranker.rank(index, [t('COMMON')], 4, 10, () => true), [0, 1, 2, 3]);
});
