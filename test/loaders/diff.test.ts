import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import { diffVersion, entityKey } from '../../loaders/diff.js';

const rec = (entity_type: EntityType, value: string, metadata: Record<string, unknown> = {}): EntityRecord => ({
  list: 'l',
  entity_type,
  value,
  metadata,
  source_url: null,
  listed_at: null,
  removed_at: null,
});

describe('diffVersion', () => {
  test('keys are (entity_type, canonical key): case and format do not make a new entity', () => {
    assert.equal(entityKey(rec('email', 'A@Example.COM')), entityKey(rec('email', 'a@example.com')));
    assert.equal(entityKey(rec('crypto_address', '0xABCDEF0000000000000000000000000000000001')), entityKey(rec('crypto_address', '0xabcdef0000000000000000000000000000000001')));
    assert.notEqual(entityKey(rec('crypto_address', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT')), entityKey(rec('crypto_address', '1boatslrhtknngkdxeeobr76b53lettpyt')));
    assert.notEqual(entityKey(rec('website', 'x.example')), entityKey(rec('email_domain', 'x.example')));
  });

  test('baseline: no changes; every record listed at the ingestion time', () => {
    const d = diffVersion({ list: 'l', version: 'v1', at: 'T1', previous: null, next: [rec('name', 'Ali Hassan'), rec('email', 'x@y.org')] });
    assert.deepEqual(d.changes, []);
    assert.deepEqual(d.delisted, []);
    assert.deepEqual(d.active.map((r) => [r.value, r.listed_at, r.removed_at]), [
      ['Ali Hassan', 'T1', null],
      ['x@y.org', 'T1', null],
    ]);
  });

  test('records sharing a key move together and give one change', () => {
    const v1 = diffVersion({
      list: 'l',
      version: 'v1',
      at: 'T1',
      previous: null,
      next: [rec('name', 'Ali Hassan', { uid: 1 }), rec('name', 'ALI HASSAN', { uid: 2 }), rec('name', 'Omar')],
    });
    const v2 = diffVersion({ list: 'l', version: 'v2', at: 'T2', previous: v1, next: [rec('name', 'Omar')] });
    assert.deepEqual(
      v2.changes.map((c) => [c.kind, c.record.value, c.record.metadata, c.record.listed_at, c.record.removed_at]),
      [['delisted', 'Ali Hassan', { uid: 1 }, 'T1', 'T2']],
    );
    assert.deepEqual(v2.delisted.map((r) => [r.value, r.removed_at]), [
      ['Ali Hassan', 'T2'],
      ['ALI HASSAN', 'T2'],
    ]);
    const v3 = diffVersion({ list: 'l', version: 'v3', at: 'T3', previous: v2, next: [rec('name', 'Omar'), rec('name', 'ali hassan')] });
    assert.deepEqual(v3.changes.map((c) => [c.kind, c.version, c.at, c.record.value, c.record.listed_at]), [['relisted', 'v3', 'T3', 'ali hassan', 'T3']]);
    assert.deepEqual(v3.delisted, []);
    assert.deepEqual(v3.active.map((r) => [r.value, r.listed_at]), [
      ['Omar', 'T1'],
      ['ali hassan', 'T3'],
    ]);
  });

  test('a delisted key stays in the history, older removals first; removed again gets the new time', () => {
    const v1 = diffVersion({ list: 'l', version: 'v1', at: 'T1', previous: null, next: [rec('email', 'a@x.org'), rec('email', 'b@x.org')] });
    const v2 = diffVersion({ list: 'l', version: 'v2', at: 'T2', previous: v1, next: [rec('email', 'b@x.org')] });
    const v3 = diffVersion({ list: 'l', version: 'v3', at: 'T3', previous: v2, next: [rec('email', 'c@x.org')] });
    assert.deepEqual(v3.changes.map((c) => [c.kind, c.record.value]), [
      ['listed', 'c@x.org'],
      ['delisted', 'b@x.org'],
    ]);
    assert.deepEqual(v3.delisted.map((r) => [r.value, r.listed_at, r.removed_at]), [
      ['a@x.org', 'T1', 'T2'],
      ['b@x.org', 'T1', 'T3'],
    ]);
    const v4 = diffVersion({ list: 'l', version: 'v4', at: 'T4', previous: v3, next: [rec('email', 'a@x.org')] });
    const v5 = diffVersion({ list: 'l', version: 'v5', at: 'T5', previous: v4, next: [] });
    assert.deepEqual(v5.delisted.map((r) => [r.value, r.listed_at, r.removed_at]), [
      ['b@x.org', 'T1', 'T3'],
      ['c@x.org', 'T3', 'T4'],
      ['a@x.org', 'T4', 'T5'],
    ]);
  });
});
