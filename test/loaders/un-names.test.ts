import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { Engine } from '../../engine/engine.js';
import { nameScore, prepareName } from '../../engine/names/index.js';
import { parseListFromDir } from '../../loaders/registry.js';
import type { EntityRecord } from '../../engine/model.js';
import { SHARED_DATA, sharedData } from '../../harness/paths.js';

/**
 * The UN list through the loader and the engine, against OpenSanctions' name-matching cases:
 * every UN name as written elsewhere ("untreated") is in the top 10 of a fuzzy search of the UN
 * list, and at least 99% of synthetic people who are on no list score below 0.9 against every
 * UN name.
 */
let engine: Engine;
let unNames: string[];

before(async () => {
  const records: EntityRecord[] = [];
  for await (const r of parseListFromDir('un_sc', SHARED_DATA)) records.push(r);
  unNames = records.filter((r) => r.entity_type === 'name').map((r) => r.value);
  engine = await Engine.create({ shards: 1 });
  await engine.load({
    lists: [{ slug: 'un_sc', list_type: 'sanctions', version: 'test', last_updated: null }],
    records,
  });
});
after(async () => {
  await engine?.close();
});

const rows = (file: string) =>
  parse(readFileSync(sharedData('names', file), 'utf8'), { columns: true, skip_empty_lines: true }) as Record<
    string,
    string
  >[];

/**
 * Every full name and alias of the raw XML, letters only, read with regular expressions here (not
 * by the parser under test).
 */
function rawUnNames(): Set<string> {
  const xml = readFileSync(sharedData('un', 'consolidated.xml'), 'utf8');
  const letters = (s: string) => s.toLowerCase().replace(/[^a-z]/g, '');
  const out = new Set<string>();
  for (const block of xml.match(/<(INDIVIDUAL|ENTITY)>[\s\S]*?<\/\1>/g) ?? []) {
    const parts = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].map(
      (t) => new RegExp(`<${t}>([^<]*)</${t}>`).exec(block)?.[1] ?? '',
    );
    out.add(letters(parts.join('')));
    for (const m of block.matchAll(/<ALIAS_NAME>([^<]*)<\/ALIAS_NAME>/g)) out.add(letters(m[1]));
  }
  return out;
}

test('every name of un-positives-untreated.csv still on the list is in the top 10 of a fuzzy search of the UN list', async () => {
  const positives = rows('un-positives-untreated.csv').map((r) => r.full_name);
  assert.equal(positives.length, 683);
  const missed: string[] = [];
  for (const name of positives) {
    const hits = await engine.search({ q: name, mode: 'fuzzy', lists: ['un_sc'], limit: 10 });
    const query = prepareName(name);
    const found = hits.some(
      (h) => h.entity.entity_type === 'name' && nameScore(query, prepareName(h.entity.value)) >= 0.85,
    );
    if (!found) missed.push(name);
  }
  // The names file is from 2025; the list of 2026-02-27 no longer carries these three names: they
  // occur there only in other entries' comments or as a bare alias. Checked on the raw XML.
  assert.deepEqual(missed, ['ANAS HASAN KHATTAB', 'MUNIR AL QUBAYSI', 'ABU MOHAMMED AL-JAWLANI']);
  const raw = rawUnNames();
  for (const name of missed)
    assert.ok(!raw.has(name.toLowerCase().replace(/[^a-z]/g, '')), `${name} is a name on the list`);
});

test('at least 99% of negatives-us-small.csv score below 0.9 against every UN name', () => {
  const negatives = rows('negatives-us-small.csv').map((r) => r.full_name ?? Object.values(r)[0]);
  assert.equal(negatives.length, 1000);
  let flagged = 0;
  const listed = unNames.map((n) => prepareName(n));
  for (const name of negatives) {
    let best = 0;
    const query = prepareName(name);
    for (const un of listed) {
      const s = nameScore(query, un);
      if (s > best) best = s;
      if (best >= 0.9) break;
    }
    if (best >= 0.9) flagged++;
  }
  assert.ok(flagged <= 10, `${flagged} of 1000 negatives score ≥ 0.9 against a UN name`);
});
