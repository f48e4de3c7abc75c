import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityRecord, EntityType } from '../../engine/model.js';
import { entityKey } from '../../loaders/diff.js';
import {
  stagedBatches,
  stageUpload,
  UploadLimitError,
  UploadRowError,
  type UploadFormat,
} from '../../loaders/upload.js';

/** Uploads of operator and private lists: the three formats, streamed in arbitrary chunks, checked row by row. */
const dir = mkdtempSync(join(tmpdir(), 'upload-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const TYPES: EntityType[] = ['crypto_address', 'email', 'website', 'name', 'government_id', 'country', 'email_domain'];
let n = 0;

/** The body in chunks of `size` bytes (splitting multi-byte characters and rows anywhere). */
async function* chunks(text: string, size: number): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function stage(
  format: UploadFormat,
  text: string,
  opts: { size?: number; maxRows?: number; types?: EntityType[] } = {},
) {
  const path = join(dir, `u${n++}.ndjson`);
  const staged = await stageUpload(chunks(text, opts.size ?? 7), {
    format,
    list: 'my_list',
    entityTypes: opts.types ?? TYPES,
    path,
    maxRows: opts.maxRows ?? 1_000_000,
  });
  const records: EntityRecord[] = [];
  for await (const batch of stagedBatches(path)) {
    // Each row carries the identity its check worked out, the one the diff would compute.
    assert.deepEqual(batch.keys, batch.records.map(entityKey));
    records.push(...batch.records);
  }
  return { staged, records, path };
}

async function refused(
  format: UploadFormat,
  text: string,
  opts: { size?: number; maxRows?: number; types?: EntityType[] } = {},
) {
  const path = join(dir, `u${n}.ndjson`);
  const err = await stage(format, text, opts).then(
    () => assert.fail('the upload was accepted'),
    (e: unknown) => e,
  );
  assert.equal(existsSync(path), false, 'the staged file is removed');
  return err as UploadRowError;
}

const ROWS = [
  {
    entity_type: 'crypto_address',
    value: '0x1111111111111111111111111111111111111111',
    metadata: { note: 'a, "quoted"\nnote' },
  },
  { entity_type: 'email', value: ' Bad@Example.COM ', metadata: {} },
  { entity_type: 'name', value: 'Jürgen Müller', metadata: { programs: ['X'] } },
];

describe('stageUpload', () => {
  test('CSV, JSON array and NDJSON of the same rows give the same records and content version, whatever the chunking', async () => {
    const csv =
      'entity_type,value,metadata\r\n' +
      ROWS.map((r) =>
        [r.entity_type, `"${r.value.replace(/"/g, '""')}"`, `"${JSON.stringify(r.metadata).replace(/"/g, '""')}"`].join(
          ',',
        ),
      ).join('\r\n') +
      '\r\n';
    const json = ' [\n' + ROWS.map((r) => '  ' + JSON.stringify(r)).join(',\n') + '\n] \n';
    const ndjson = ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n\n';
    const expected: EntityRecord[] = ROWS.map((r) => ({
      list: 'my_list',
      entity_type: r.entity_type as EntityType,
      value: r.value.trim(),
      metadata: r.metadata,
      source_url: null,
      listed_at: null,
      removed_at: null,
    }));
    const versions = new Set<string>();
    for (const size of [1, 3, 64, 1 << 20]) {
      for (const [format, text] of [
        ['csv', csv],
        ['json', json],
        ['ndjson', ndjson],
      ] as const) {
        const { staged, records } = await stage(format, text, { size });
        assert.deepEqual(records, expected, `${format} in chunks of ${size}`);
        assert.equal(staged.rows, 3);
        versions.add(staged.version);
      }
    }
    assert.equal(versions.size, 1, 'one content, one version');
    assert.notEqual((await stage('ndjson', JSON.stringify(ROWS[0]))).staged.version, [...versions][0]);
  });

  test('each staged row carries its identity, the key the diff and the engine would compute from its value', async () => {
    const rows: [EntityType, string][] = [
      ['crypto_address', '0xABCDEF0000000000000000000000000000000001'],
      ['crypto_address', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
      ['crypto_address', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'],
      ['email', ' Bad@Example.COM '],
      ['website', 'HTTPS://Www.Example.com/some/path?q=1'],
      ['website', 'bücher.example'],
      ['email_domain', '@Mail.Example.org'],
      ['government_id', 'ab-12 345/6'],
      ['country', 'Iran'],
      ['country', 'Crimea'],
      ['name', 'Jürgen  MÜLLER'],
    ];
    // stage() compares each row's staged key with entityKey(record).
    const { records } = await stage(
      'ndjson',
      rows.map(([entity_type, value]) => JSON.stringify({ entity_type, value })).join('\n'),
    );
    assert.equal(records.length, rows.length);
  });

  test('a file staged by an earlier release (one record per line, no key) reads as the same rows with the same keys', async () => {
    const { path, records } = await stage('ndjson', ROWS.map((r) => JSON.stringify(r)).join('\n'));
    const oldPath = join(dir, `old${n++}.ndjson`);
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    writeFileSync(
      oldPath,
      lines.map((l) => JSON.stringify((JSON.parse(l) as [string, EntityRecord])[1]) + '\n').join(''),
    );
    const read: EntityRecord[] = [];
    const keys: string[] = [];
    for await (const batch of stagedBatches(oldPath)) {
      read.push(...batch.records);
      keys.push(...(batch.keys ?? []));
    }
    assert.deepEqual(read, records);
    // The keys the check staged with the rows in today's format.
    assert.deepEqual(
      keys,
      lines.map((l) => (JSON.parse(l) as [string, EntityRecord])[0]),
    );
    assert.equal(keys[1], 'email\u0000bad@example.com');
  });

  test('rows of one identity are merged into the first (its value and metadata kept), the others counted', async () => {
    const rows = [
      { entity_type: 'email', value: 'Same@Example.com', metadata: { case: 'first' } },
      { entity_type: 'name', value: 'Ivan Petrov' },
      ...Array.from({ length: 5_000 }, (_, i) => ({
        entity_type: 'email',
        value: i % 2 ? ' same@EXAMPLE.COM ' : 'same@example.com',
        metadata: { case: `copy ${i}` },
      })),
      { entity_type: 'name', value: 'IVAN  PETROV', metadata: { other: true } },
      { entity_type: 'email_domain', value: 'same@example.com'.split('@')[1] },
    ];
    const csv =
      'entity_type,value,metadata\n' +
      rows
        .map((r) => `${r.entity_type},${r.value},"${JSON.stringify(r.metadata ?? {}).replace(/"/g, '""')}"`)
        .join('\n');
    const versions = new Set<string>();
    for (const [format, text] of [
      ['ndjson', rows.map((r) => JSON.stringify(r)).join('\n')],
      ['json', JSON.stringify(rows)],
      ['csv', csv],
    ] as const) {
      const { staged, records } = await stage(format, text, { size: 4096 });
      assert.deepEqual(
        records.map((r) => [r.entity_type, r.value, r.metadata]),
        [
          ['email', 'Same@Example.com', { case: 'first' }],
          ['name', 'Ivan Petrov', {}],
          ['email_domain', 'example.com', {}],
        ],
        format,
      );
      assert.deepEqual([staged.rows, staged.duplicates], [3, 5_001], format);
      versions.add(staged.version);
    }
    assert.equal(versions.size, 1, 'the same content whatever the format');
    const unique = await stage('ndjson', [rows[0], rows[1], rows.at(-1)].map((r) => JSON.stringify(r)).join('\n'));
    assert.deepEqual([unique.staged.duplicates, unique.staged.version], [0, [...versions][0]]);
    // The row limit counts the rows kept: duplicates beyond it are no rows of the list.
    assert.equal((await stage('ndjson', rows.map((r) => JSON.stringify(r)).join('\n'), { maxRows: 3 })).staged.rows, 3);
  });

  test('a byte that is not UTF-8 is refused at its own line, however the body is cut into chunks', async () => {
    const ndjsonLines = Array.from({ length: 1_000 }, (_, i) =>
      JSON.stringify({ entity_type: 'name', value: `Jürgen Müller ${i}` }),
    );
    const csvLines = ['entity_type,value', ...Array.from({ length: 999 }, (_, i) => `name,Jürgen Müller ${i}`)];
    for (const [format, lines] of [
      ['ndjson', ndjsonLines],
      ['csv', csvLines],
    ] as const) {
      const utf8 = Buffer.from(lines.join('\n') + '\n');
      // Line 701 (from 1) spelled in Latin-1: its ü is the lone byte 0xfc.
      const start = utf8.indexOf(Buffer.from(lines[700]));
      const bad = Buffer.concat([
        utf8.subarray(0, start),
        Buffer.from(lines[700], 'latin1'),
        utf8.subarray(start + Buffer.byteLength(lines[700])),
      ]);
      for (const size of [1, 2, 3, 5, 4096, 1 << 20]) {
        const err = await stageUpload(
          (async function* () {
            for (let i = 0; i < bad.length; i += size) yield bad.subarray(i, i + size);
          })(),
          { format, list: 'l', entityTypes: TYPES, path: join(dir, `utf8-${n++}.ndjson`), maxRows: 10_000 },
        ).then(
          () => assert.fail('accepted'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof UploadRowError, String(err));
        assert.deepEqual(
          [err.line, err.reason],
          [701, 'the upload is not UTF-8 text'],
          `${format} in chunks of ${size}`,
        );
      }
    }
    // A character cut off by the end of the body: a fault on the last line.
    const truncated = Buffer.concat([Buffer.from('{"entity_type":"name","value":"A"}\n\n'), Buffer.from([0xe2, 0x82])]);
    await assert.rejects(
      stageUpload(
        (async function* () {
          yield truncated;
        })(),
        { format: 'ndjson', list: 'l', entityTypes: TYPES, path: join(dir, `utf8-${n++}.ndjson`), maxRows: 10 },
      ),
      (e: unknown) => e instanceof UploadRowError && e.line === 3,
    );
  });

  test('CSV: columns in any order, metadata optional, a BOM and a missing final newline are fine', async () => {
    const { records } = await stage('csv', '\uFEFFvalue,entity_type\nx.example,website\n"Ivan ""the"" Petrov",name');
    assert.deepEqual(
      records.map((r) => [r.entity_type, r.value, r.metadata]),
      [
        ['website', 'x.example', {}],
        ['name', 'Ivan "the" Petrov', {}],
      ],
    );
    assert.deepEqual((await stage('json', '[]')).records, []);
    assert.deepEqual((await stage('csv', 'entity_type,value\n')).records, []);
  });

  test('a bad row deep in the file rejects the upload naming its line and the reason', async () => {
    const good = (i: number) => `email,user${i}@example.org,`;
    const lines = ['entity_type,value,metadata', ...Array.from({ length: 20_000 }, (_, i) => good(i))];
    lines[15_000] = 'email,not-an-address,';
    const err = await refused('csv', lines.join('\n') + '\n', { size: 4096 });
    assert.ok(err instanceof UploadRowError);
    assert.deepEqual(
      [err.line, err.field, err.reason, err.input],
      [15_001, 'value', 'not a valid email', 'not-an-address'],
    );

    // A quoted field over several lines: the row's line is the line it starts on.
    const multi = await refused('csv', 'entity_type,value,metadata\nname,"A\nB",{}\nname,Ok,"{""a"":1"\n');
    assert.deepEqual([multi.line, multi.field, multi.reason], [4, 'metadata', 'metadata is not valid JSON']);

    const ndjson = Array.from({ length: 500 }, (_, i) =>
      JSON.stringify({ entity_type: 'website', value: `s${i}.example` }),
    );
    ndjson[321] = '{"entity_type":"website","value":"ok.example"';
    const nd = await refused('ndjson', ndjson.join('\n'));
    assert.equal(nd.line, 322);
    assert.match(nd.reason, /^not valid JSON/);

    const json =
      '[\n' +
      Array.from({ length: 300 }, (_, i) =>
        JSON.stringify({ entity_type: 'website', value: i === 250 ? 'no host here' : `s${i}.example` }),
      ).join(',\n') +
      '\n]';
    assert.deepEqual(
      [(await refused('json', json, { size: 5 })).line, (await refused('json', json, { size: 5 })).reason],
      [252, 'not a valid website'],
    );
  });

  test('every kind of bad row is named', async () => {
    const cases: [UploadFormat, string, number, string | null, RegExp][] = [
      ['ndjson', '{"entity_type":"ship","value":"x"}', 1, 'entity_type', /^entity_type must be one of/],
      ['ndjson', '{"entity_type":"country","value":"Atlantis"}', 1, 'value', /^not a valid country/],
      // Keyed by the normalizer, refused by the validator screening applies (so it could never match a valid query).
      [
        'ndjson',
        '{"entity_type":"crypto_address","value":"hello world"}',
        1,
        'value',
        /^not a crypto address: expected 0x and 40 hexadecimal digits/,
      ],
      [
        'ndjson',
        '{"entity_type":"crypto_address","value":"0x12"}',
        1,
        'value',
        /^not a crypto address: an EVM address is 0x and 40 hexadecimal digits/,
      ],
      [
        'ndjson',
        `{"entity_type":"government_id","value":"${'A'.repeat(80)}"}`,
        1,
        'value',
        /more than 64 letters and digits/,
      ],
      ['ndjson', '{"entity_type":"name","value":"a\\u0000b"}', 1, 'value', /control character/],
      ['ndjson', '{"entity_type":"name","value":"   "}', 1, 'value', /^value is empty/],
      ['ndjson', `{"entity_type":"name","value":"${'x'.repeat(513)}"}`, 1, 'value', /longer than 512/],
      ['ndjson', '{"entity_type":"name","value":7}', 1, 'value', /must be a string/],
      ['ndjson', '{"entity_type":"name","value":"A","extra":1}', 1, 'extra', /unexpected field/],
      ['ndjson', '{"entity_type":"name","value":"A","metadata":[1]}', 1, 'metadata', /JSON object/],
      [
        'ndjson',
        `{"entity_type":"name","value":"A","metadata":${'{"a":'.repeat(20)}1${'}'.repeat(20)}}`,
        1,
        'metadata',
        /nested deeper/,
      ],
      ['ndjson', '[1,2]', 1, null, /must be an object/],
      ['json', '{"entity_type":"name","value":"A"}', 1, null, /must be an array/],
      ['json', '[{"entity_type":"name","value":"A"},]', 1, null, /followed by no row/],
      [
        'json',
        '[{"entity_type":"name","value":"A"}\n{"entity_type":"name","value":"B"}]',
        2,
        null,
        /separated by commas/,
      ],
      ['json', '[{"entity_type":"name","value":"A"}', 1, null, /not closed/],
      ['json', '[{"entity_type":"name","value":"A"}] x', 1, null, /after the closing bracket/],
      ['json', '', 1, null, /empty/],
      ['csv', 'type,value\nname,A', 1, null, /header must name/],
      ['csv', 'entity_type,value\nname,A,extra', 2, null, /expected 2 fields, found 3/],
      ['csv', 'entity_type,value\nname,"open', 2, null, /not closed/],
      ['csv', 'entity_type,value\nname,a"b', 2, null, /quote inside an unquoted field/],
      ['csv', '', 1, null, /empty/],
    ];
    for (const [format, body, line, field, reason] of cases) {
      const err = await refused(format, body);
      assert.ok(err instanceof UploadRowError, `${body}: ${String(err)}`);
      assert.deepEqual([err.line, err.field], [line, field], body);
      assert.match(err.reason, reason, body);
    }
    const wrongType = await refused('ndjson', '{"entity_type":"name","value":"A"}', { types: ['email'] });
    assert.equal(wrongType.reason, 'this list holds email, not name');
  });

  test('bytes that are not UTF-8, rows over the limit and oversized rows', async () => {
    const path = join(dir, 'bad-utf8.ndjson');
    const body = async function* () {
      yield Buffer.from('{"entity_type":"name","value":"A"}\n');
      yield Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]);
    };
    await assert.rejects(
      stageUpload(body(), { format: 'ndjson', list: 'l', entityTypes: TYPES, path, maxRows: 10 }),
      (e: unknown) => e instanceof UploadRowError && e.reason === 'the upload is not UTF-8 text',
    );
    const many = Array.from({ length: 11 }, (_, i) => JSON.stringify({ entity_type: 'name', value: `N${i}` })).join(
      '\n',
    );
    await assert.rejects(
      stage('ndjson', many, { maxRows: 10 }),
      (e: unknown) => e instanceof UploadLimitError && e.message === 'the upload holds more than 10 rows',
    );
    const huge = await refused(
      'ndjson',
      JSON.stringify({ entity_type: 'name', value: 'A', metadata: { x: 'y'.repeat(70_000) } }),
      { size: 1 << 20 },
    );
    assert.match(huge.reason, /longer than 65536 characters/);
    const hugeJson = await refused(
      'json',
      `[${JSON.stringify({ entity_type: 'name', value: 'A', metadata: { x: 'y'.repeat(70_000) } })}]`,
    );
    assert.match(hugeJson.reason, /longer than 65536 characters/);
  });
});
