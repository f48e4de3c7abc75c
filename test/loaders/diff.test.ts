import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import {
  changeId,
  diffVersion,
  entityKey,
  type ActiveKey,
  type ListChange,
  type PreviousVersion,
  type RecordBatch,
} from '../../loaders/diff.js';

const rec = (entity_type: EntityType, value: string, metadata: Record<string, unknown> = {}): EntityRecord => ({
  list: 'l',
  entity_type,
  value,
  metadata,
  source_url: null,
  listed_at: null,
  removed_at: null,
});

/** A committed version in memory: what the store's files would hold. */
interface Version {
  active: EntityRecord[];
  /** What the diff wrote beside `active`. */
  keys: ActiveKey[];
  ended: EntityRecord[];
  changes: ListChange[];
  droppedUntil: string | null;
  counts: { listed: number; delisted: number; relisted: number };
}

/** Records in batches of two (the diff reads its inputs a batch at a time); with `only`, those whose index it accepts, as the store reads them. */
function batches(records: EntityRecord[], only?: (index: number) => boolean): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (let i = 0; i < records.length; i += 2) {
    const batch = records.slice(i, i + 2).filter((_, j) => !only || only(i + j));
    if (batch.length > 0) out.push({ records: batch });
  }
  return out;
}

/** The committed version as the store gives it: read from its records, or with the keys the diff wrote. */
function previousOf(v: Version, withKeys: boolean): PreviousVersion {
  return {
    active: (only) => batches(v.active, only),
    ended: () => batches(v.ended),
    activeKeys: withKeys ? () => [v.keys.slice(0, 1), v.keys.slice(1)] : undefined,
  };
}

let seq = 1;
/** Diffs `next` against `previous` both ways (the committed records read and normalized again, and its keys file): the two must agree. */
async function diff(
  version: string,
  at: string,
  previous: Version | null,
  next: EntityRecord[],
  opts: { cutoff?: string; maxPeriods?: number } = {},
): Promise<Version> {
  const run = async (withKeys: boolean) => {
    const out: Version = {
      active: [],
      keys: [],
      ended: [],
      changes: [],
      droppedUntil: null,
      counts: { listed: 0, delisted: 0, relisted: 0 },
    };
    const r = await diffVersion({
      list: 'l',
      owner: 0,
      version,
      at,
      next: batches(next),
      previous: previous && previousOf(previous, withKeys),
      firstSeq: seq,
      cutoff: opts.cutoff ?? '',
      maxPeriods: opts.maxPeriods ?? 1_000_000,
      active: { write: (x) => void out.active.push(x) },
      activeKeys: { write: (k) => void out.keys.push(k) },
      ended: { write: (x) => void out.ended.push(x) },
      changes: { write: (c) => void out.changes.push(c) },
    });
    return { out, r };
  };
  const { out, r } = await run(true);
  assert.deepEqual(await run(false), { out, r });
  assert.deepEqual(
    out.keys,
    out.active.map((x) => [entityKey(x), x.listed_at]),
  );
  assert.equal(r.total, out.active.length);
  assert.equal(r.periods, out.ended.length);
  assert.equal(r.lastSeq, seq + out.changes.length - 1);
  out.changes.forEach((c, i) => assert.equal(c.seq, seq + i));
  seq = r.lastSeq + 1;
  out.droppedUntil = r.droppedUntil;
  out.counts = { listed: r.listed, delisted: r.delisted, relisted: r.relisted };
  return out;
}

const periods = (v: Version) => v.ended.map((r) => [r.value, r.listed_at, r.removed_at, r.superseded === true]);

describe('diffVersion', () => {
  test('keys are (entity_type, canonical key): case and format do not make a new entity', () => {
    assert.equal(entityKey(rec('email', 'A@Example.COM')), entityKey(rec('email', 'a@example.com')));
    assert.equal(
      entityKey(rec('crypto_address', '0xABCDEF0000000000000000000000000000000001')),
      entityKey(rec('crypto_address', '0xabcdef0000000000000000000000000000000001')),
    );
    assert.notEqual(
      entityKey(rec('crypto_address', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT')),
      entityKey(rec('crypto_address', '1boatslrhtknngkdxeeobr76b53lettpyt')),
    );
    assert.notEqual(entityKey(rec('website', 'x.example')), entityKey(rec('email_domain', 'x.example')));
  });

  test('baseline: no changes; every record listed at the ingestion time', async () => {
    const d = await diff('v1', 'T1', null, [rec('name', 'Ali Hassan'), rec('email', 'x@y.org')]);
    assert.deepEqual(d.changes, []);
    assert.deepEqual(d.ended, []);
    assert.deepEqual(
      d.active.map((r) => [r.value, r.listed_at, r.removed_at]),
      [
        ['Ali Hassan', 'T1', null],
        ['x@y.org', 'T1', null],
      ],
    );
  });

  test('records sharing a key move together and give one change, with a deterministic change id', async () => {
    const v1 = await diff('v1', 'T1', null, [
      rec('name', 'Ali Hassan', { uid: 1 }),
      rec('name', 'ALI HASSAN', { uid: 2 }),
      rec('name', 'Omar'),
    ]);
    const v2 = await diff('v2', 'T2', v1, [rec('name', 'Omar')]);
    assert.deepEqual(
      v2.changes.map((c) => [c.kind, c.record.value, c.record.metadata, c.record.listed_at, c.record.removed_at]),
      [['delisted', 'Ali Hassan', { uid: 1 }, 'T1', 'T2']],
    );
    assert.equal(v2.changes[0].change_id, changeId('l', 'v2', 'T2', 'delisted', entityKey(rec('name', 'Ali Hassan'))));
    assert.match(v2.changes[0].change_id, /^chg_[0-9a-f]{32}$/);
    assert.deepEqual(periods(v2), [
      ['Ali Hassan', 'T1', 'T2', false],
      ['ALI HASSAN', 'T1', 'T2', false],
    ]);
    const v3 = await diff('v3', 'T3', v2, [rec('name', 'Omar'), rec('name', 'ali hassan')]);
    assert.deepEqual(
      v3.changes.map((c) => [c.kind, c.version, c.at, c.record.value, c.record.listed_at]),
      [['relisted', 'v3', 'T3', 'ali hassan', 'T3']],
    );
    assert.deepEqual(v3.counts, { listed: 0, delisted: 0, relisted: 1 });
    // The ended period stays, superseded: screening as of T2 still sees the key as removed, as of T1 as listed.
    assert.deepEqual(periods(v3), [
      ['Ali Hassan', 'T1', 'T2', true],
      ['ALI HASSAN', 'T1', 'T2', true],
    ]);
    assert.deepEqual(
      v3.active.map((r) => [r.value, r.listed_at]),
      [
        ['Omar', 'T1'],
        ['ali hassan', 'T3'],
      ],
    );
  });

  test('identities given with a batch are taken as they are (an upload keys its rows when it checks them)', async () => {
    const v1 = await diff('v1', 'T1', null, [rec('email', 'a@x.org')]);
    const next = [rec('email', 'b@x.org'), rec('email', 'c@x.org')];
    const out: EntityRecord[] = [];
    const changes: ListChange[] = [];
    const r = await diffVersion({
      list: 'l',
      owner: 0,
      version: 'v2',
      at: 'T2',
      // b@x.org comes keyed as a@x.org: the same entity, so no change and its listing time stays.
      next: [{ records: next, keys: [entityKey(rec('email', 'a@x.org')), entityKey(next[1])] }],
      previous: previousOf(v1, true),
      firstSeq: seq,
      cutoff: '',
      maxPeriods: 1_000,
      active: { write: (x) => void out.push(x) },
      ended: { write: () => assert.fail('nothing ends') },
      changes: { write: (c) => void changes.push(c) },
    });
    seq = r.lastSeq + 1;
    assert.deepEqual(
      out.map((x) => [x.value, x.listed_at]),
      [
        ['b@x.org', 'T1'],
        ['c@x.org', 'T2'],
      ],
    );
    assert.deepEqual(
      changes.map((c) => [c.kind, c.record.value]),
      [['listed', 'c@x.org']],
    );
  });

  test('every listing period stays in the history, oldest end first; only the latest of a key is not superseded', async () => {
    const v1 = await diff('v1', 'T1', null, [rec('email', 'a@x.org'), rec('email', 'b@x.org')]);
    const v2 = await diff('v2', 'T2', v1, [rec('email', 'b@x.org')]);
    const v3 = await diff('v3', 'T3', v2, [rec('email', 'c@x.org')]);
    assert.deepEqual(
      v3.changes.map((c) => [c.kind, c.record.value]),
      [
        ['listed', 'c@x.org'],
        ['delisted', 'b@x.org'],
      ],
    );
    assert.deepEqual(periods(v3), [
      ['a@x.org', 'T1', 'T2', false],
      ['b@x.org', 'T1', 'T3', false],
    ]);
    const v4 = await diff('v4', 'T4', v3, [rec('email', 'a@x.org')]);
    const v5 = await diff('v5', 'T5', v4, []);
    assert.deepEqual(periods(v5), [
      ['a@x.org', 'T1', 'T2', true],
      ['b@x.org', 'T1', 'T3', false],
      ['c@x.org', 'T3', 'T4', false],
      ['a@x.org', 'T4', 'T5', false],
    ]);
  });

  test('compaction: periods ended before the cut-off or beyond the cap go, and the reach says from when answers are complete', async () => {
    const v1 = await diff('v1', 'T1', null, [
      rec('email', 'a@x.org'),
      rec('email', 'b@x.org'),
      rec('email', 'c@x.org'),
      rec('email', 'd@x.org'),
    ]);
    const v2 = await diff('v2', 'T2', v1, [rec('email', 'b@x.org'), rec('email', 'c@x.org'), rec('email', 'd@x.org')]);
    const v3 = await diff('v3', 'T3', v2, [rec('email', 'c@x.org'), rec('email', 'd@x.org')]);
    const v4 = await diff('v4', 'T4', v3, [rec('email', 'd@x.org')], { cutoff: 'T3' });
    assert.deepEqual(periods(v4), [
      ['b@x.org', 'T1', 'T3', false],
      ['c@x.org', 'T1', 'T4', false],
    ]);
    assert.equal(v4.droppedUntil, 'T2');
    const v5 = await diff('v5', 'T5', v4, [], { maxPeriods: 2 });
    assert.deepEqual(periods(v5), [
      ['c@x.org', 'T1', 'T4', false],
      ['d@x.org', 'T1', 'T5', false],
    ]);
    assert.equal(v5.droppedUntil, 'T3');
  });
});
