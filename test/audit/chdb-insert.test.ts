import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { connectClickHouse, migrateClickHouse } from '../../src/audit/clickhouse.js';
import { usageLines } from '../../src/audit/formats.js';
import { loadConfig } from '../../src/config.js';

// A data directory whose path needs quoting in SQL: the staged file's name is a string literal.
const dataDir = mkdtempSync(join(tmpdir(), "audit-staged-o'brien\\-"));
const staging = join(dataDir, 'audit-staging');
after(() => rmSync(dataDir, { recursive: true, force: true }));

const usageLine = (requestId: string) =>
  usageLines.line({
    time: Date.parse('2025-08-01T12:00:00.125Z'),
    customer_id: 41,
    payer: '',
    request_id: requestId,
    endpoint: 'screen.crypto',
    status: 200,
    credits: 1,
    method: 'quota',
    amount: '0',
    tx_hash: '',
    network: '',
  });

describe('embedded inserts through a staged file', () => {
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'screening.usage.7.tsv'), usageLine('left-by-a-crash'));
  const cfg = loadConfig({ DATA_DIR: dataDir });
  const { client, insertLines } = connectClickHouse(cfg);
  after(() => client.close());

  test('files left by a crash are removed at start, not inserted', async () => {
    assert.deepEqual(readdirSync(staging), []);
    await migrateClickHouse(client, cfg);
    const rs = await client.query({
      query: "SELECT count() AS n FROM screening.usage WHERE request_id = 'left-by-a-crash'",
      format: 'JSONEachRow',
    });
    assert.deepEqual(await rs.json(), [{ n: 0 }]);
  });

  test('a batch of several chunks is stored in order and its file removed', async () => {
    const chunks = ['a', 'b', 'c'].map((id) => Buffer.from(usageLine(id) + usageLine(`${id}2`)));
    await insertLines('screening.usage', usageLines.columns, chunks);
    const rs = await client.query({
      query:
        'SELECT request_id, toString(time) AS time, method FROM screening.usage WHERE customer_id = 41 ORDER BY request_id',
      format: 'JSONEachRow',
    });
    assert.deepEqual(
      await rs.json(),
      ['a', 'a2', 'b', 'b2', 'c', 'c2'].map((id) => ({
        request_id: id,
        time: '2025-08-01 12:00:00.125',
        method: 'quota',
      })),
    );
    assert.deepEqual(readdirSync(staging), []);
  });

  test('an insert ClickHouse refuses rejects, stores nothing and removes its file', async () => {
    await assert.rejects(
      insertLines('screening.usage', usageLines.columns, [
        Buffer.from(usageLine('ok')),
        Buffer.from('not\ta\tusage\trow\n'),
      ]),
      /Cannot parse|CANNOT_PARSE/,
    );
    const rs = await client.query({
      query: "SELECT count() AS n FROM screening.usage WHERE request_id = 'ok'",
      format: 'JSONEachRow',
    });
    assert.deepEqual(await rs.json(), [{ n: 0 }]);
    assert.deepEqual(readdirSync(staging), []);
  });

  test('a table or column the schema does not declare is refused before anything is written', async () => {
    await assert.rejects(
      insertLines('screening.nope', ['x'], [Buffer.from('1\n')]),
      /unknown ClickHouse table screening\.nope/,
    );
    await assert.rejects(
      insertLines('screening.usage', ['time', 'nope'], [Buffer.from('1\t2\n')]),
      /unknown column nope of screening\.usage/,
    );
    assert.deepEqual(readdirSync(staging), []);
  });
});
