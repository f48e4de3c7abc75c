import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { BulkNameQuery, PartyHit } from '../../engine/engine.js';
import type { PartyType } from '../../engine/model.js';
import { startTestService } from '../../harness/service.js';
import { sharedData } from '../../harness/paths.js';
import { xorshift32 } from '../../harness/random.js';

/**
 * Bulk name screening (issue #39: a customer's book) answers each query exactly as a single
 * `screenName` does: the same parties, scores, best names and explanations, over two shards and
 * the real lists, for people on no list and listed UN names (as listed, with birth dates and
 * countries that agree, conflict or are missing, as organizations, and with a typo whose
 * candidates come from the listed tokens one edit away, which bulk screening keeps).
 */

interface Row {
  full_name: string;
  first_name: string;
  last_name: string;
  date_of_birth: string;
  nationality: string;
}

const read = (file: string) => parse(readFileSync(sharedData('names', file)), { columns: true }) as Row[];

/** The name with the middle letter of its longest token doubled. */
function typo(name: string): string {
  const longest = name.split(' ').reduce((a, b) => (b.length > a.length ? b : a));
  const at = Math.floor(longest.length / 2);
  return name.replace(longest, longest.slice(0, at) + longest[at] + longest.slice(at));
}

function book(): BulkNameQuery[] {
  const people = read('negatives-us-small.csv');
  const listed = read('un-positives-untreated.csv');
  const next = xorshift32(39);
  const pick = <T>(xs: readonly T[]) => xs[next() % xs.length];
  const types: (PartyType | null)[] = ['person', 'person', null, 'organization'];
  const queries: BulkNameQuery[] = [];
  for (let i = 0; i < 300; i++) {
    const p = pick(people);
    const planted = i % 10 === 0 || i % 10 === 5 ? pick(listed) : null;
    const other = pick(people);
    // Half the listed names with a typo: their candidates come from the edit neighbours of a token no list has.
    const name = planted ? (i % 10 === 5 ? typo(planted.full_name) : planted.full_name) : null;
    queries.push({
      name: name ?? `${p.first_name} ${other.last_name}`,
      birth_date: i % 3 === 0 ? null : (planted ?? p).date_of_birth || null,
      country: i % 4 === 0 ? null : (planted ?? p).nationality || null,
      party_type: pick(types),
    });
  }
  return queries;
}

const shape = (hits: PartyHit[]) =>
  hits.map((h) => ({ id: h.entity.id, list: h.entity.list, score: h.score, name: h.name, why: h.explanation }));

test('bulk name screening answers every query as a single screening does', async () => {
  const svc = await startTestService({ ENGINE_SHARDS: '2' });
  try {
    const { engine } = svc.service;
    const lists = engine.served().map((l) => l.slug);
    const queries = book();
    const opts = { lists, threshold: 0.7, limit: 5 };
    const single = await Promise.all(queries.map((q) => engine.screenName({ ...q, ...opts })));
    const expected = single.map(shape);
    // Twice: the second round meets the query tokens' edit neighbours the first one kept.
    for (let round = 0; round < 2; round++) {
      const bulk = await engine.screenNames(queries, opts);
      assert.equal(bulk.length, queries.length);
      bulk.forEach((hits, i) => assert.deepEqual(shape(hits), expected[i], `query ${i}: ${queries[i].name}`));
    }
    const matched = expected.filter((hits) => hits.length > 0).length;
    // 48 of the 300 queries meet 78 listed parties: the comparison is not one of empty answers.
    assert.deepEqual([matched, expected.flat().length], [48, 78]);
    assert.deepEqual(await engine.screenNames(queries.slice(0, 3), { ...opts, lists: [] }), [[], [], []]);
    assert.deepEqual(await engine.screenNames([], opts), []);
  } finally {
    await svc.close();
  }
});
