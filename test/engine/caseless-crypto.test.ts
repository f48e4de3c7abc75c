import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../engine/engine.js';
import { matchOne } from '../../engine/match-one.js';
import type { EntityRecord } from '../../engine/model.js';

/**
 * A base58 address a source published only in lower case (the OFAC address extract lost its
 * case, loaders/sources/ofac-crypto.ts) still matches the address as wallets write it, in
 * screening and in monitoring alike; without such records no lower-case probe is made.
 */
const TRON = 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre';
const LISTS = [{ slug: 'ofac_crypto', list_type: 'sanctions' as const, version: 't', last_updated: null }];

function record(value: string, metadata: Record<string, unknown> = {}): EntityRecord {
  return {
    list: 'ofac_crypto',
    entity_type: 'crypto_address',
    value,
    metadata,
    source_url: null,
    listed_at: null,
    removed_at: null,
  };
}

test('an address listed in lower case only matches its mixed-case form; others still need their case', async () => {
  const engine = await Engine.create({ shards: 1 });
  try {
    await engine.load({ lists: LISTS, records: [record(TRON.toLowerCase(), { address_case: 'unknown' })] });
    const hits = engine.screenExact({ kind: 'crypto', value: TRON, lists: ['ofac_crypto'] })!;
    assert.deepEqual(
      hits.map((h) => [h.entity.value, h.match]),
      [[TRON.toLowerCase(), 'exact']],
    );
    assert.deepEqual(matchOne('crypto', TRON, record(TRON.toLowerCase())), { match: 'exact', similarity: 1 });
    await engine.load({ lists: LISTS, records: [record(TRON.toLowerCase())] });
    assert.deepEqual(engine.screenExact({ kind: 'crypto', value: TRON, lists: ['ofac_crypto'] }), []);
  } finally {
    await engine.close();
  }
});
