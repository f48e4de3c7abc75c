import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileAuditStore } from '../support/audit-store.js';
import type { AuditMatchRow, UsageRow } from '../../src/audit/rows.js';
import { renderDdl } from '../../src/audit/schema.js';

const storeOf = fileAuditStore('audit-test-');

async function count(table: string, where = '1'): Promise<number> {
  const rs = await storeOf().client.query({
    query: `SELECT toUInt32(count()) AS n FROM screening.${table} WHERE ${where}`,
    format: 'JSONEachRow',
  });
  return ((await rs.json()) as { n: number }[])[0].n;
}

function match(i: number, customer: number, time: number, list = i % 2 ? 'ofac_sdn' : 'un_sc'): AuditMatchRow {
  return {
    time,
    customer_id: customer,
    payer: '',
    request_id: `req-${i}`,
    endpoint: 'screen.crypto',
    screened_value: `0xabc${i}`,
    matched_value: `0xABC${i}`,
    list,
    list_type: 'sanctions',
    match: 'exact',
    list_version: 'v1',
    as_of: null,
    evidence: {},
  };
}

describe('ClickHouse audit store (chDB)', () => {
  test('a full batch is inserted at once; a partial one waits for the timer or close', async () => {
    const t = Date.parse('2025-05-01T10:00:00Z');
    storeOf().matches.push(Array.from({ length: 1000 }, (_, i) => match(i, 7, t)));
    await storeOf().matches.flush();
    assert.equal(await count('audit_matches', 'customer_id = 7'), 1000);
    storeOf().matches.push(Array.from({ length: 10 }, (_, i) => match(i, 8, t)));
    assert.equal(storeOf().matches.pending, 10, 'under the batch size, rows wait (AUDIT_FLUSH_MS is 60 s here)');
    assert.equal(await count('audit_matches', 'customer_id = 8'), 0);
    await storeOf().matches.write([match(99, 8, t)]);
    assert.equal(await count('audit_matches', 'customer_id = 8'), 11, 'write() resolves once its rows are stored');
  });

  test('the customer analytics, trail and CSV read what was written', async () => {
    const day1 = Date.parse('2025-06-01T08:00:00Z');
    const day2 = Date.parse('2025-06-02T09:30:00.250Z');
    await storeOf().matches.write([
      match(1, 21, day1, 'ofac_sdn'),
      match(2, 21, day1, 'un_sc'),
      match(3, 21, day2, 'ofac_sdn'),
      match(4, 22, day2),
    ]);
    const usage = (time: number, endpoint: string, credits: number, method: 'quota' | 'x402'): UsageRow => ({
      time,
      customer_id: 21,
      payer: method === 'x402' ? '0xpayer' : '',
      request_id: 'r',
      endpoint,
      status: 200,
      credits,
      method,
      amount: method === 'x402' ? '10000' : '0',
      tx_hash: '',
      network: '',
    });
    await storeOf().usage.write([
      usage(day1, 'screen.crypto', 1, 'quota'),
      usage(day1, 'screen.crypto', 3, 'x402'),
      usage(day2, 'screen.email', 1, 'quota'),
    ]);
    const range = { from: Date.parse('2025-06-01T00:00:00Z'), to: Date.parse('2025-07-01T00:00:00Z') };
    assert.deepEqual(await storeOf().queries.usageByDay(21, range), [
      { day: '2025-06-01', endpoint: 'screen.crypto', requests: 2, credits: 4, paid_requests: 1 },
      { day: '2025-06-02', endpoint: 'screen.email', requests: 1, credits: 1, paid_requests: 0 },
    ]);
    assert.deepEqual(await storeOf().queries.matchesByDay(21, range), [
      { day: '2025-06-01', list: 'ofac_sdn', matches: 1, requests: 1 },
      { day: '2025-06-01', list: 'un_sc', matches: 1, requests: 1 },
      { day: '2025-06-02', list: 'ofac_sdn', matches: 1, requests: 1 },
    ]);
    const page = await storeOf().queries.auditTrail(21, { ...range, list: 'ofac_sdn' }, { limit: 1, offset: 0 });
    assert.equal(page.total, 2);
    assert.deepEqual(page.items, [
      {
        time: '2025-06-02T09:30:00.250Z',
        request_id: 'req-3',
        endpoint: 'screen.crypto',
        screened_value: '0xabc3',
        matched_value: '0xABC3',
        list: 'ofac_sdn',
        list_type: 'sanctions',
        match: 'exact',
        list_version: 'v1',
        as_of: null,
      },
    ]);
    const byValue = await storeOf().queries.auditTrail(21, { ...range, value: '0xABC2' }, { limit: 10, offset: 0 });
    assert.deepEqual(
      byValue.items.map((i) => i.request_id),
      ['req-2'],
    );
    assert.deepEqual(await storeOf().queries.auditExport(21, range, 100), [
      [
        '2025-06-02T09:30:00.250Z',
        'req-3',
        'screen.crypto',
        '0xabc3',
        '0xABC3',
        'ofac_sdn',
        'sanctions',
        'exact',
        'v1',
        '',
      ],
      [
        '2025-06-01T08:00:00.000Z',
        'req-1',
        'screen.crypto',
        '0xabc1',
        '0xABC1',
        'ofac_sdn',
        'sanctions',
        'exact',
        'v1',
        '',
      ],
      [
        '2025-06-01T08:00:00.000Z',
        'req-2',
        'screen.crypto',
        '0xabc2',
        '0xABC2',
        'un_sc',
        'sanctions',
        'exact',
        'v1',
        '',
      ],
    ]);
  });

  test('list changes: the ChangeSink stores them and the delisting history follows the latest change', async () => {
    const rec = (value: string) => ({
      list: 'ofac_sdn',
      entity_type: 'crypto_address' as const,
      value,
      metadata: { programs: ['CYBER2'] },
      source_url: 'https://example.org/sdn',
      listed_at: null,
      removed_at: null,
    });
    const ids = { seq: 0, change_id: '', owner: 0 };
    await storeOf().changes.write([
      {
        ...ids,
        seq: 1,
        change_id: 'chg_1',
        list: 'ofac_sdn',
        version: 'v1',
        kind: 'listed',
        at: '2025-01-01T00:00:00Z',
        record: rec('0xA'),
      },
      {
        ...ids,
        seq: 2,
        change_id: 'chg_2',
        list: 'ofac_sdn',
        version: 'v1',
        kind: 'listed',
        at: '2025-01-01T00:00:00Z',
        record: rec('0xB'),
      },
      {
        ...ids,
        seq: 3,
        change_id: 'chg_3',
        list: 'ofac_sdn',
        version: 'v2',
        kind: 'delisted',
        at: '2025-02-01T00:00:00Z',
        record: rec('0xA'),
      },
      {
        ...ids,
        seq: 4,
        change_id: 'chg_4',
        list: 'ofac_sdn',
        version: 'v2',
        kind: 'delisted',
        at: '2025-02-01T00:00:00Z',
        record: rec('0xB'),
      },
      {
        ...ids,
        seq: 5,
        change_id: 'chg_5',
        list: 'ofac_sdn',
        version: 'v3',
        kind: 'relisted',
        at: '2025-03-01T00:00:00Z',
        record: rec('0xB'),
      },
    ]);
    assert.equal(await count('list_changes'), 5);
    assert.deepEqual(await storeOf().queries.delisted(['ofac_sdn', 'un_sc'], 10), [
      {
        entity_type: 'crypto_address',
        value: '0xA',
        list: 'ofac_sdn',
        metadata: { programs: ['CYBER2'] },
        source_url: 'https://example.org/sdn',
        removed_at: '2025-02-01T00:00:00.000Z',
      },
    ]);
    assert.deepEqual(await storeOf().queries.delisted(['un_sc'], 10), []);
  });

  test('close() inserts every buffered row', async () => {
    const t = Date.parse('2025-05-03T00:00:00Z');
    storeOf().matches.push(Array.from({ length: 123 }, (_, i) => match(i, 31, t)));
    storeOf().usage.push([
      {
        time: t,
        customer_id: 31,
        payer: '',
        request_id: 'x',
        endpoint: 'e',
        status: 200,
        credits: 1,
        method: 'quota',
        amount: '0',
        tx_hash: '',
        network: '',
      },
    ]);
    await storeOf().close();
    await storeOf.reopen();
    assert.equal(await count('audit_matches', 'customer_id = 31'), 123);
    assert.equal(await count('usage', 'customer_id = 31'), 1);
  });

  test('a table of the release before the evidence column gains it at start; its rows read an empty one', async () => {
    const t = Date.parse('2025-07-01T10:00:00Z');
    await storeOf().matches.write([match(1, 41, t)]);
    await storeOf().client.command({ query: 'ALTER TABLE screening.audit_matches DROP COLUMN evidence' });
    await storeOf().client.insert({
      table: 'screening.audit_matches',
      values: [{ time: t, customer_id: 41, payer: '', request_id: 'old', endpoint: 'screen.crypto', list: 'un_sc' }],
      format: 'JSONEachRow',
    });
    await storeOf().close();
    await storeOf.reopen();
    const evidence = { value: '0xABC2', list: 'un_sc', metadata: { program: 'DPRK' } };
    await storeOf().matches.write([{ ...match(2, 41, t), evidence }]);
    const rs = await storeOf().client.query({
      query: 'SELECT request_id, evidence FROM screening.audit_matches WHERE customer_id = 41 ORDER BY request_id',
      format: 'JSONEachRow',
    });
    assert.deepEqual(await rs.json(), [
      { request_id: 'old', evidence: '' },
      { request_id: 'req-1', evidence: '' },
      { request_id: 'req-2', evidence: JSON.stringify(evidence) },
    ]);
  });

  test('cluster DDL: replicated local tables behind distributed ones', () => {
    const ddl = renderDdl('screening', 'main');
    // The database, a local and a distributed table each, the columns audit_matches gained on
    // both, then each rollup's local and distributed table and its view on the local source.
    assert.equal(ddl.length, 1 + 2 * 5 + 2 + 2 * 3);
    assert.match(
      ddl[15],
      /^CREATE MATERIALIZED VIEW IF NOT EXISTS `screening`.`value_matches_mv` ON CLUSTER `main` TO `screening`.`value_matches_local`\nAS .* FROM `screening`.`audit_matches_local` /s,
    );
    assert.equal(
      ddl[3],
      "ALTER TABLE `screening`.`audit_matches_local` ON CLUSTER `main` ADD COLUMN IF NOT EXISTS `list_version` LowCardinality(String), ADD COLUMN IF NOT EXISTS `as_of` Nullable(DateTime64(3, 'UTC')), ADD COLUMN IF NOT EXISTS `evidence` String CODEC(ZSTD(3))",
    );
    assert.match(ddl[1], /^CREATE TABLE IF NOT EXISTS `screening`.`audit_matches_local` ON CLUSTER `main`/);
    assert.match(
      ddl[1],
      /ENGINE = ReplicatedMergeTree\('\/clickhouse\/tables\/\{shard\}\/screening\/audit_matches_local', '\{replica\}'\)/,
    );
    assert.equal(
      ddl[2],
      'CREATE TABLE IF NOT EXISTS `screening`.`audit_matches` ON CLUSTER `main` AS `screening`.`audit_matches_local`\nENGINE = Distributed(`main`, `screening`, `audit_matches_local`, sipHash64(customer_id, payer))',
    );
  });
});
