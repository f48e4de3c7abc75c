import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { EntityRecord } from '../../../engine/model.js';
import { parseListFromDir } from '../../../loaders/registry.js';
import { SHARED_DATA, sharedData } from '../../../harness/paths.js';

async function collect(it: AsyncIterable<EntityRecord>): Promise<EntityRecord[]> {
  const out: EntityRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

/** The raw XML blocks of one element name, read with a regular expression. */
function blocks(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]);
}

function texts(block: string, name: string): string[] {
  return [...block.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1].trim()).filter(Boolean);
}

describe('UN Security Council consolidated list (real file)', () => {
  let records: EntityRecord[];
  let xml: string;
  before(async () => {
    records = await collect(parseListFromDir('un_sc', SHARED_DATA));
    xml = readFileSync(sharedData('un', 'consolidated.xml'), 'utf8');
  });

  test('730 individuals and 273 entities, one primary name each', () => {
    const primary = records.filter((r) => r.entity_type === 'name' && r.metadata.alias_type === 'primary');
    const individuals = primary.filter((r) => r.metadata.subject_type === 'individual').length;
    const entities = primary.filter((r) => r.metadata.subject_type === 'entity').length;
    assert.equal(individuals, blocks(xml, 'INDIVIDUAL').length);
    assert.equal(entities, blocks(xml, 'ENTITY').length);
    assert.equal(individuals, 730);
    assert.equal(entities, 273);
  });

  test('documents: every INDIVIDUAL_DOCUMENT with a number', () => {
    const expected = blocks(xml, 'INDIVIDUAL_DOCUMENT').filter((b) => texts(b, 'NUMBER').length > 0).length;
    const docs = records.filter((r) => r.entity_type === 'government_id');
    assert.equal(docs.length, expected);
    assert.equal(docs.length, 454);
    const passports = docs.filter((r) => r.metadata.document_type === 'Passport').length;
    const rawPassports = blocks(xml, 'INDIVIDUAL_DOCUMENT').filter(
      (b) =>
        texts(b, 'NUMBER').length > 0 &&
        texts(b, 'TYPE_OF_DOCUMENT')[0] === 'Passport' &&
        texts(b, 'TYPE_OF_DOCUMENT2').length === 0,
    ).length;
    assert.equal(passports, rawPassports);
  });

  test('aliases: distinct non-empty alias names of each party other than its own name', () => {
    let expected = 0;
    for (const [name, aliasTag] of [
      ['INDIVIDUAL', 'INDIVIDUAL_ALIAS'],
      ['ENTITY', 'ENTITY_ALIAS'],
    ] as const) {
      for (const b of blocks(xml, name)) {
        const own = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
          .map((t) => texts(b, t)[0] ?? '')
          .filter(Boolean)
          .join(' ');
        const aliases = new Set(blocks(b, aliasTag).flatMap((a) => texts(a, 'ALIAS_NAME')));
        aliases.delete(own);
        expected += aliases.size;
      }
    }
    assert.equal(records.filter((r) => r.entity_type === 'name' && r.metadata.alias_type === 'alias').length, expected);
  });

  test('a known individual with its document', () => {
    const name = records.find(
      (r) =>
        r.entity_type === 'name' && r.metadata.reference_number === 'CDi.001' && r.metadata.alias_type === 'primary',
    );
    assert.equal(name?.value, 'ERIC BADEGE');
    assert.equal(name?.metadata.un_list_type, 'DRC');
    const doc = records.find((r) => r.entity_type === 'government_id' && r.value === 'OB 0243318');
    assert.equal(doc?.metadata.document_type, 'Passport');
    assert.equal(doc?.metadata.country, 'Democratic Republic of the Congo');
    assert.ok(records.every((r) => r.list === 'un_sc' && r.listed_at === null && r.removed_at === null));
  });
});
