import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CandidateIndex } from '../../../engine/shards/candidate-index.js';
import { PrefixIndex } from '../../../engine/shards/prefix-index.js';

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

test('candidate index: the postings built at once are the term map FlexSearch builds document by document', () => {
  // Terms repeated within and across documents, documents without terms, a document added after the seal.
  const docs = [['ALI', 'HASSAN', 'ALI*', 'ALI'], [], ['HASSAN', 'OMAR'], ['OMAR', 'ALI', 'OMAR*'], ['ZED']];
  const bulk = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 1000);
  docs.slice(0, 4).forEach((terms, doc) => bulk.add(doc, terms));
  bulk.seal();
  bulk.add(4, docs[4]);
  // With a resolution of 2 FlexSearch adds each document itself; its map is then read with the scores.
  const chunks = (index: CandidateIndex) => {
    const out: [string, string][] = [];
    index.export((key, data) => out.push([key, data]));
    return out;
  };
  const reference = new CandidateIndex({ tokenize: 'strict', resolution: 2, ranking: 'idf' }, 1000);
  docs.forEach((terms, doc) => reference.add(doc, terms));
  // Positions set the score slot at resolution 2: compare documents per term, slots merged.
  const flat = (index: CandidateIndex) =>
    chunks(index)
      .filter(([key]) => key.includes('map'))
      .flatMap(([, data]) => JSON.parse(data) as [string, (number[] | null)[]][])
      .map(([term, slots]) => [term, slots.flatMap((ids) => ids ?? []).sort((a, b) => a - b)]);
  assert.deepEqual(flat(bulk), flat(reference));
  assert.deepEqual(flat(bulk), [
    ['ALI', [0, 3]],
    ['HASSAN', [0, 2]],
    ['ALI*', [0]],
    ['OMAR', [2, 3]],
    ['OMAR*', [3]],
    ['ZED', [4]],
  ]);
  assert.deepEqual(
    chunks(bulk).find(([key]) => key.includes('reg')),
    chunks(reference).find(([key]) => key.includes('reg')),
  );
  assert.deepEqual(
    bulk.candidates(['ALI', 'OMAR'], 10, () => true),
    [3, 0, 2],
  );
});

test('idf ranking: a term above the scan frequency only adds weight to the candidates rarer terms found', () => {
  for (const common of [200, 5000]) {
    const docs = Array.from({ length: common }, (_, d) =>
      d < 70 ? ['RARE', 'COMMON'] : d === 100 ? ['OTHER', 'COMMON'] : ['COMMON'],
    );
    const capped = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 1_000_000, 100);
    const full = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 1_000_000);
    docs.forEach((terms, doc) => {
      capped.add(doc, terms);
      full.add(doc, terms);
    });
    const late = (d: number) => d >= 60;
    const ten = Array.from({ length: 10 }, (_, i) => 60 + i);
    // 70 documents hold the rarer term, enough candidates for 50: the common one (binary search in
    // its postings, or a pass over them when the candidates are many for its length) raises them
    // and brings in no other, where scanning it whole brings in every document.
    assert.deepEqual(capped.candidates(['COMMON', 'RARE'], 50, late), ten);
    const all = full.candidates(['COMMON', 'RARE'], 50, late);
    assert.deepEqual(all.slice(0, 10), ten);
    assert.equal(all.length, 50);
    // Fewer candidates than the pool: the common term is scanned whole.
    assert.deepEqual(
      capped.candidates(['OTHER', 'COMMON'], 3, () => true),
      [100, 0, 1],
    );
  }
});

test('the filter of present terms: every added or imported term may be held, few absent ones pass, before and after sealing', () => {
  const codes = (t: string) => Array.from(t, (c) => c.charCodeAt(0));
  const present = Array.from({ length: 200_000 }, (_, i) => `T${i.toString(36)}`);
  const absent = Array.from({ length: 20_000 }, (_, i) => `U${i.toString(36)}`);
  // Built at seal, sized for the terms (strict, resolution 1); filled by FlexSearch's add otherwise.
  for (const options of [
    { tokenize: 'strict', resolution: 1 },
    { tokenize: 'strict', resolution: 9 },
  ] as const) {
    const index = new CandidateIndex({ ...options, ranking: 'idf' }, 1000);
    for (let doc = 0; doc < present.length; doc += 4) index.add(doc, present.slice(doc, doc + 4));
    // Asked before any query sealed it: the filter is built first.
    for (const t of present) assert.ok(index.mayHold(codes(t), t.length), t);
    const passed = absent.filter((t) => index.mayHold(codes(t), t.length)).length;
    // Two bits a term, 16 bits a term when sized (~1.4% at most; 140 of 20,000 here).
    assert.ok(passed / absent.length < 0.015, `${passed} of ${absent.length} absent terms passed`);
    index.add(present.length, ['LATE']);
    assert.ok(index.mayHold(codes('LATE'), 4));
    assert.equal(index.frequency('LATE'), 1);
  }
  // An index restored from an export knows its terms without having seen an `add`.
  const built = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 1000);
  built.add(0, ['ALI', 'HASSAN']);
  built.add(1, ['OMAR']);
  const restored = new CandidateIndex({ tokenize: 'strict', resolution: 1, ranking: 'idf' }, 1000);
  built.export((key, data) => restored.import(key, data));
  for (const t of ['ALI', 'HASSAN', 'OMAR']) assert.ok(restored.mayHold(codes(t), t.length), t);
  assert.equal(restored.frequency('OMAR'), 1);
});
