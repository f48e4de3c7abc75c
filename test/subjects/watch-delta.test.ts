import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EntityRecord } from '../../engine/model.js';
import { prepareParty, prepareQuery, scoreParty } from '../../engine/names/index.js';
import type { ListChange } from '../../loaders/diff.js';
import { unXmlParser } from '../../loaders/sources/un-xml.js';
import { SHARED_DATA } from '../../harness/paths.js';
import { DeltaIndex, type DeltaSubject } from '../../src/subjects/delta.js';

/**
 * The delta index of a list version's changes (src/subjects/delta.ts) skips the parties sharing
 * fewer than two of a name's terms (unless two tokens are within one edit): on the real UN list
 * and its untreated positives it must find exactly the parties that scoring all of them finds,
 * and the exact values a screening would.
 */

const change = (record: EntityRecord, i: number): ListChange => ({
  seq: i + 1,
  change_id: `chg_${i}`,
  list: record.list,
  owner: 0,
  version: 'v2',
  kind: 'listed',
  at: '2026-11-28T07:00:00.000Z',
  record,
});

const subject = (names: string[], birth: string | null, extra: Partial<DeltaSubject> = {}): DeltaSubject => ({
  external_id: 'S-1',
  type: 'unknown',
  names,
  birth_date: birth,
  countries: [],
  identifiers: [],
  values: { crypto: [], email: [], website: [] },
  ...extra,
});

test('on the UN list, the index finds a party for every positive that scoring every party finds', async () => {
  const records: EntityRecord[] = [];
  for await (const r of unXmlParser('un_sc', 'c')({ c: join(SHARED_DATA, 'un/consolidated.xml') }, {})) records.push(r);
  const parties = records.filter((r) => r.entity_type === 'party');
  const index = new DeltaIndex(parties.map(change));
  const prepared = parties.map((r) =>
    prepareParty({
      names: [
        { value: String(r.metadata.name), weak: false },
        ...(r.metadata.aliases as { name: string; weak: boolean }[]).map((a) => ({ value: a.name, weak: a.weak })),
      ],
      birth_dates: r.metadata.birth_dates as string[],
      countries: r.metadata.countries as string[],
      party_type: (r.metadata.party_type as 'person' | 'organization' | null) ?? null,
    }),
  );
  const rows = readFileSync(join(SHARED_DATA, 'names/un-positives-untreated.csv'), 'utf8')
    .split('\n')
    .slice(1, 201)
    .map((l) => l.split(','));
  let checked = 0;
  for (const [name, , , , , born] of rows) {
    const birth = /^\d{4}$/.test(born) ? born : null;
    const found = new Set(index.match(subject([name], birth), 0.7).map((h) => h.record.value));
    const q = prepareQuery({ name, birth_date: birth });
    const all = new Set(parties.filter((_, i) => scoreParty(q, prepared[i]).score >= 0.7).map((r) => r.value));
    assert.deepEqual([...found].sort(), [...all].sort(), name);
    checked += all.size > 0 ? 1 : 0;
  }
  assert.ok(checked >= 190, `${checked} of 200 positives found`);
});

test('a second party sharing one term, but two tokens within one edit, is found as scoring finds it', async () => {
  const records: EntityRecord[] = [];
  for await (const r of unXmlParser('un_sc', 'c')({ c: join(SHARED_DATA, 'un/consolidated.xml') }, {})) records.push(r);
  const parties = records.filter((r) => r.entity_type === 'party');
  const index = new DeltaIndex(parties.map(change));
  // "Abdul Rahman" (an alias of QDi.057) shares only the skeleton RHMN with the name, and scores 0.77.
  const hits = index.match(subject(['ABDUR REHMAN'], null), 0.7);
  assert.deepEqual(hits.map((h) => [h.record.value, h.matched, Math.round(h.score * 100)]).sort(), [
    ['QDi.057', 'Abdul Rahman', 77],
    ['QDi.309', 'ABDUR REHMAN', 100],
    ['QDi.433', 'Abdur Rehman Makki', 80],
  ]);
});

test('values and identifiers match exactly as a screening of them would', () => {
  const record = (entity_type: EntityRecord['entity_type'], value: string): EntityRecord => ({
    list: 'ops',
    entity_type,
    value,
    metadata: {},
    source_url: null,
    listed_at: null,
    removed_at: null,
  });
  const index = new DeltaIndex(
    [
      record('crypto_address', '0x7F367cC41522cE07553e823bf3be79A889DEbe1B'),
      record('email_domain', 'mailinator.com'),
      record('government_id', 'AB1234567'),
    ].map(change),
  );
  const hits = index.match(
    subject(['Nobody Listed'], null, {
      values: { crypto: ['0x7f367cc41522ce07553e823bf3be79a889debe1b'], email: ['x@eu.mailinator.com'], website: [] },
      identifiers: [{ type: 'passport', value: 'AB1234568' }],
    }),
    0.7,
  );
  assert.deepEqual(
    hits.map((h) => [h.record.entity_type, h.screened, h.match]),
    [
      ['crypto_address', '0x7f367cc41522ce07553e823bf3be79a889debe1b', 'exact'],
      ['email_domain', 'x@eu.mailinator.com', 'domain'],
      ['government_id', 'AB1234568', 'fuzzy'],
    ],
  );
});
