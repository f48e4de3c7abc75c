import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { indexTerms, nameIndexTerms, prepareName, type PartyType } from '../../../engine/names/index.js';
import { numberTokens } from '../../../engine/names/numbers.js';
import { parseListFromDir } from '../../../loaders/registry.js';
import { SHARED_DATA, sharedData } from '../../../harness/paths.js';
import { syntheticRecords } from '../../../harness/synthetic.js';

/**
 * A shard indexes a name by `nameIndexTerms(value)`, which remembers what each distinct token gives
 * instead of preparing the name for the scorer; it must give exactly the terms (and their order)
 * of `indexTerms(prepareName(value))`, which the queries look up.
 */

/** Every name and alias of the real lists (UN, OFAC SDN and consolidated: every script) and of the name test files. */
async function realNames(): Promise<string[]> {
  const names = new Set<string>();
  for (const slug of ['un_sc', 'ofac_sdn', 'ofac_consolidated']) {
    for await (const r of parseListFromDir(slug, SHARED_DATA)) {
      if (r.entity_type === 'name') names.add(r.value);
      if (r.entity_type === 'party') {
        const m = r.metadata as { name?: string; aliases?: { name?: string }[] };
        if (m.name) names.add(m.name);
        for (const a of m.aliases ?? []) if (a.name) names.add(a.name);
      }
    }
  }
  const csv = (file: string, from = 0) =>
    parse(readFileSync(sharedData('names', file), 'utf8'), {
      from_line: from,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as string[][];
  for (const row of csv('name-bench-dev.csv', 2)) names.add(row[2]).add(row[3]);
  for (const file of ['negatives-us-small.csv', 'un-positives-untreated.csv'])
    for (const row of csv(file, 2)) names.add(row[0]);
  for (const row of readFileSync(sharedData('names', 'cross-script-pairs.csv'), 'utf8').split('\n')) {
    if (row && !row.startsWith('#')) for (const v of row.split(',').slice(0, 2)) names.add(v);
  }
  return [...names];
}

test('nameIndexTerms gives the terms of indexTerms(prepareName(...)), in order, for every real name, each type, remembered or not', async () => {
  const names = await realNames();
  assert.ok(names.length > 25_000, `${names.length} names`);
  const scripts = new Set(names.map((n) => prepareName(n).script));
  for (const s of ['Latin', 'Arabic', 'Cyrillic', 'Han']) assert.ok(scripts.has(s), `names in ${s} script`);
  const types: (PartyType | null)[] = [null, 'person', 'organization', 'vessel'];
  // Twice: the first pass fills the memory of tokens, the second reads from it.
  for (let pass = 0; pass < 2; pass++) {
    for (const type of types) {
      for (const name of names)
        assert.deepEqual(nameIndexTerms(name, type), indexTerms(prepareName(name, { type })), `${name} (${type})`);
    }
  }
});

test('nameIndexTerms: the same terms while the memory of tokens fills and starts over (synthetic names, ~150k distinct tokens)', () => {
  let names = 0;
  for (const r of syntheticRecords(400_000, 3)) {
    if (r.entity_type !== 'name') continue;
    names++;
    assert.deepEqual(nameIndexTerms(r.value), indexTerms(prepareName(r.value)), r.value);
  }
  assert.ok(names > 100_000, `${names} names`);
});

test('nameIndexTerms: particles, titles, initials, numbers, nicknames, romanization keys and original script', () => {
  const cases = [
    'Ted Mohammed',
    '김정은',
    'Sheikh A. bin Laden',
    'Brigade Forty-Four',
    'Fund XII Holdings LLC',
    'Mao Tse-tung',
    'XI JINPING TRADING CO',
    'محمد علي',
    'J.P. Morgan',
    'AL QAIDA',
    'Владимир Путин',
    'A',
    '--',
  ];
  for (const name of cases) assert.deepEqual(nameIndexTerms(name), indexTerms(prepareName(name)), name);
  assert.deepEqual(nameIndexTerms('Ted Mohammed'), ['TED', 'TD', 'EDWARD', 'THEODORE', 'MOHAMMED', 'MOHAMED', 'MHMD']);
  assert.deepEqual(nameIndexTerms('--'), []);
});

test('number words misspelled by one letter are tens; words two edits away or of other lengths are not', () => {
  assert.deepEqual(numberTokens(['FOURTY', 'FOUR'], false), ['44']);
  assert.deepEqual(numberTokens(['FRTY'], false), ['FRTY']);
  assert.deepEqual(numberTokens(['FORTYY'], false), ['40']);
  assert.deepEqual(numberTokens(['FOTRY'], false), ['FOTRY']);
  assert.deepEqual(numberTokens(['NINETYS', 'SIXTI', 'XSIXTY', 'SIXT'], false), ['90', '60', '60', 'SIXT']);
  assert.deepEqual(numberTokens(['TWENTYONE', 'TWENTIETH'], false), ['TWENTYONE', '20']);
});
