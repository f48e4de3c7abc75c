import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { fileAuditStore } from '../support/audit-store.js';
import { streamInsert } from '../../src/audit/clickhouse.js';
import {
  alertDecisionLines,
  auditMatchLines,
  listChangeLines,
  settlementLines,
  usageLines,
  type LineFormat,
} from '../../src/audit/formats.js';
import type { AuditMatchRow, ListChangeRow, SettlementRow, UsageRow } from '../../src/audit/rows.js';
import { TABLES } from '../../src/audit/schema.js';
import { dateTime64, text, uint, UINT16, UINT32 } from '../../src/audit/tsv.js';
import { BatchWriter } from '../../src/audit/writer.js';

const storeOf = fileAuditStore('audit-writer-test-');

async function select<T>(query: string): Promise<T[]> {
  const rs = await storeOf().client.query({ query, format: 'JSONEachRow' });
  return rs.json<T>();
}

const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');

/** Values a caller can send: every control character, escapes as text, quotes, SQL, any Unicode. */
const HOSTILE = [
  '',
  ' leading and trailing spaces ',
  'tab\there',
  'line\nfeed',
  'carriage\rreturn',
  'crlf\r\n',
  '\n',
  '\t',
  '\\',
  'trailing backslash\\',
  '\\N',
  '\\t is not a tab, \\n is not a newline, \\x41 is not A',
  '\\\\double',
  `'single' "double" \`back\``,
  "'); DROP TABLE screening.audit_matches; --",
  'x\nFORMAT JSONEachRow\n{"a":1}',
  'NUL\0inside\0',
  C0,
  '\x7f DEL',
  '😀 emoji 👨‍👩‍👧‍👦 family 🇺🇦 flag',
  '\u200fRTL mark \u202eoverride\u202c \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627',
  '\ufeffBOM \u2028line sep\u2029para sep',
  'e\u0301 combining, 中文, 日本語, Ω',
  'x'.repeat(100_000),
];

function hostileMatch(i: number, value: string, customer: number): AuditMatchRow {
  return {
    time: Date.parse('2025-07-01T00:00:00Z') + i,
    customer_id: customer,
    payer: value,
    request_id: `r${i}`,
    endpoint: value,
    screened_value: value,
    matched_value: `${value}|${i}`,
    list: value,
    list_type: 'sanctions',
    match: 'exact',
    list_version: value,
    as_of: i % 2 ? null : Date.parse('2024-01-01T00:00:00Z') + i,
    evidence: { value: `${value}|${i}`, list: value, metadata: { note: value, score: 0.5 } },
  };
}

async function readMatches(customer: number): Promise<AuditMatchRow[]> {
  const rows = await select<Omit<AuditMatchRow, 'time' | 'evidence'> & { time: number; evidence: string }>(
    `SELECT toUnixTimestamp64Milli(time) AS time, customer_id, payer, request_id, endpoint, screened_value, matched_value, list, list_type, match,
            list_version, toUnixTimestamp64Milli(as_of) AS as_of, evidence
       FROM screening.audit_matches WHERE customer_id = ${customer} ORDER BY time`,
  );
  return rows.map((r) => ({
    ...r,
    time: Number(r.time),
    as_of: r.as_of === null ? null : Number(r.as_of),
    evidence: JSON.parse(r.evidence) as AuditMatchRow['evidence'],
  }));
}

describe('audit writer: rows as TabSeparated lines', () => {
  test('every table format names exactly its table columns', () => {
    const formats: Record<string, LineFormat<never>> = {
      audit_matches: auditMatchLines,
      usage: usageLines,
      list_changes: listChangeLines,
      x402_settlements: settlementLines,
      alert_decisions: alertDecisionLines,
    };
    for (const t of TABLES) {
      assert.deepEqual([...formats[t.name].columns].sort(), t.columns.map(([n]) => n).sort(), t.name);
    }
  });

  test("each format's check refuses exactly the rows its line refuses", () => {
    const base = {
      time: Date.parse('2025-07-01T00:00:00Z'),
      customer_id: 1,
      payer: '',
      request_id: 'r',
      endpoint: 'e',
    };
    const match: AuditMatchRow = {
      ...base,
      screened_value: 's',
      matched_value: 'm',
      list: 'l',
      list_type: 'sanctions',
      match: 'exact',
      list_version: 'v',
      as_of: base.time,
      evidence: {},
    };
    const usage: UsageRow = {
      ...base,
      status: 200,
      credits: 1,
      method: 'quota',
      amount: '0',
      tx_hash: '',
      network: '',
    };
    const settlement: SettlementRow = {
      ...base,
      network: 'eip155:84532',
      x402_version: 2,
      amount: '10000',
      tx_hash: '0xabc',
    };
    const change: ListChangeRow = {
      seq: 1,
      change_id: 'chg_1',
      owner: 0,
      list: 'l',
      version: 'v',
      kind: 'listed',
      at: base.time,
      entity_type: 'name',
      value: 'v',
      metadata: '{}',
      source_url: null,
    };
    const bad = [
      { time: Number.NaN },
      { time: Date.UTC(2300, 0, 1) },
      { at: -Infinity },
      { customer_id: -1 },
      { customer_id: 1.5 },
      { customer_id: 2 ** 32 },
      { status: 65_536 },
      { credits: -1 },
      { x402_version: 256 },
      { amount: '-1' },
      { amount: '18446744073709551616' },
      { amount: 5 },
      { method: 'card' },
      { kind: 'moved' },
      { source_url: 7 },
      { source_url: undefined },
      { as_of: Number.NaN },
      { as_of: Date.UTC(2300, 0, 1) },
      { seq: -1 },
      { seq: 0.5 },
      { owner: -1 },
      { owner: 2 ** 32 },
      ...[
        'payer',
        'request_id',
        'endpoint',
        'screened_value',
        'matched_value',
        'list',
        'list_type',
        'match',
        'list_version',
        'tx_hash',
        'network',
        'change_id',
        'version',
        'entity_type',
        'value',
        'metadata',
      ].flatMap((k) => [{ [k]: undefined }, { [k]: 1 }, { [k]: null }]),
    ];
    const cases: [LineFormat<never>, object][] = [
      [auditMatchLines, match],
      [usageLines, usage],
      [settlementLines, settlement],
      [listChangeLines, change],
    ];
    let refused = 0;
    for (const [format, good] of cases) {
      const f = format as unknown as LineFormat<object>;
      f.check(good);
      f.line(good);
      for (const patch of bad) {
        const row = { ...good, ...patch };
        const outcome = (fn: () => unknown) => {
          try {
            fn();
            return 'ok';
          } catch (err) {
            return (err as Error).message;
          }
        };
        const checked = outcome(() => f.check(row));
        assert.equal(
          checked,
          outcome(() => f.line(row)),
          `${f.columns.join(',')}: ${JSON.stringify(patch)}`,
        );
        if (checked !== 'ok') refused++;
      }
    }
    assert.ok(refused >= 40, `only ${refused} refusals exercised`);
  });

  test('field encoding: escapes, times to the millisecond', () => {
    assert.equal(text('plain'), 'plain');
    assert.equal(text('a\tb\nc\rd\\e\0f\bg\fh\x01i\x1fj\x7fk'), 'a\\tb\\nc\\rd\\\\e\\0f\\bg\\fh\\x01i\\x1fj\x7fk');
    // 10-digit epoch seconds as a number, every other time spelled out.
    assert.equal(dateTime64(Date.parse('2025-06-02T09:30:00.250Z')), '1748856600.250');
    assert.equal(dateTime64(Date.parse('2025-06-02T09:30:00.005Z')), '1748856600.005');
    assert.equal(dateTime64(Date.parse('2025-06-02T09:30:01.050Z')), '1748856601.050');
    assert.equal(dateTime64(1e12), '1000000000.000');
    assert.equal(dateTime64(1e12 - 1), '2001-09-09 01:46:39.999');
    assert.equal(dateTime64(1e13 - 1), '9999999999.999');
    assert.equal(dateTime64(1e13), '2286-11-20 17:46:40.000');
    assert.equal(dateTime64(-1), '1969-12-31 23:59:59.999');
    assert.equal(dateTime64(0), '1970-01-01 00:00:00.000');
  });

  test('text kept between rows is reused only while every value it was made of is the same', () => {
    // Field by field, as the formats would write them without keeping anything.
    const u32 = (n: number) => String(uint(n, UINT32));
    const matchLine = (r: AuditMatchRow) =>
      [
        dateTime64(r.time),
        u32(r.customer_id),
        r.payer,
        r.request_id,
        r.endpoint,
        r.screened_value,
        r.matched_value,
        r.list,
        r.list_type,
        r.match,
        r.list_version,
      ]
        .map((v, i) => (i < 2 ? v : text(v)))
        .join('\t') + `\t${r.as_of === null ? '\\N' : dateTime64(r.as_of)}\t${text(JSON.stringify(r.evidence))}\n`;
    const usageLine = (r: UsageRow) =>
      [
        dateTime64(r.time),
        u32(r.customer_id),
        text(r.payer),
        text(r.request_id),
        text(r.endpoint),
        String(uint(r.status, UINT16)),
        u32(r.credits),
        r.method,
        r.amount,
        text(r.tx_hash),
        text(r.network),
      ].join('\t') + '\n';
    const metadata = { id: 'p1', score: 0.8 };
    const base: AuditMatchRow = {
      time: Date.parse('2025-07-01T00:00:00Z'),
      customer_id: 7,
      payer: '',
      request_id: 'r1',
      endpoint: 'screen.crypto',
      screened_value: 'v',
      matched_value: 'V',
      list: 'ofac_sdn',
      list_type: 'sanctions',
      match: 'exact',
      list_version: 'v1',
      as_of: null,
      evidence: { value: 'V', list: 'ofac_sdn', metadata },
    };
    const usage: UsageRow = {
      time: base.time,
      customer_id: 7,
      payer: '',
      request_id: 'r1',
      endpoint: 'screen.crypto',
      status: 200,
      credits: 1,
      method: 'quota',
      amount: '0',
      tx_hash: '',
      network: '',
    };
    const matchRows: AuditMatchRow[] = [base, { ...base }];
    for (const [k, v] of Object.entries({
      time: base.time + 1,
      customer_id: 8,
      payer: '0xp\t',
      request_id: 'r2',
      endpoint: 'screen.email',
      screened_value: 'w\\',
      matched_value: 'W\n',
      list: 'un_sc',
      list_type: 'crime',
      match: 'fuzzy',
      list_version: 'v2',
      as_of: base.time - 1,
    })) {
      matchRows.push({ ...base, [k]: v }, { ...base, [k]: v }, base);
    }
    // An answer's match objects are new each time: the same fields (metadata the entity's object) reuse the
    // kept text; another metadata object (a name match's, with its own score), a field more or less do not.
    for (const evidence of [
      { ...base.evidence },
      { ...base.evidence, metadata: { ...metadata, score: 0.9 } },
      { ...base.evidence, source_url: null },
      { value: 'V', list: 'ofac_sdn' },
      { list: 'ofac_sdn', value: 'V', metadata },
      { value: 'V', list: 'ofac_sdn', metadata: undefined, extra: 'x\ty' },
    ])
      matchRows.push({ ...base, evidence }, base, { ...base, evidence });
    // More matched entities than are kept, twice over: old ones must be written anew.
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 12; i++) matchRows.push({ ...base, matched_value: `m${i}` });
    const usageRows: UsageRow[] = [usage];
    for (const [k, v] of Object.entries({
      time: usage.time + 5,
      customer_id: 9,
      payer: 'p',
      request_id: 'r9',
      endpoint: 'pep',
      status: 500,
      credits: 3,
      method: 'x402',
      amount: '10000',
      tx_hash: '0xab',
      network: 'base',
    })) {
      usageRows.push({ ...usage, [k]: v }, usage);
    }
    // A request's rows in the order the gate pushes them: its matches, then its usage row.
    for (let i = 0; i < Math.max(matchRows.length, usageRows.length); i++) {
      const m = matchRows[i % matchRows.length];
      const u = usageRows[i % usageRows.length];
      assert.equal(auditMatchLines.line(m), matchLine(m), JSON.stringify(m));
      assert.equal(usageLines.line(u), usageLine(u), JSON.stringify(u));
      assert.equal(
        usageLines.line({
          ...u,
          time: m.time,
          customer_id: m.customer_id,
          payer: m.payer,
          request_id: m.request_id,
          endpoint: m.endpoint,
        }),
        usageLine({
          ...u,
          time: m.time,
          customer_id: m.customer_id,
          payer: m.payer,
          request_id: m.request_id,
          endpoint: m.endpoint,
        }),
      );
    }
    // A bad value right after good rows with all the other values equal still fails.
    auditMatchLines.line(base);
    usageLines.line(usage);
    for (const bad of [
      { screened_value: undefined },
      { matched_value: null },
      { list: 5 },
      { time: NaN },
      { customer_id: -1 },
    ]) {
      assert.throws(() => auditMatchLines.line({ ...base, ...bad } as unknown as AuditMatchRow), JSON.stringify(bad));
    }
    for (const bad of [
      { status: 70_000 },
      { credits: 1.5 },
      { method: 'card' },
      { amount: '-1' },
      { network: undefined },
    ]) {
      assert.throws(() => usageLines.line({ ...usage, ...bad } as unknown as UsageRow), JSON.stringify(bad));
    }
  });

  test('times on both sides of the epoch-number range read back to the millisecond', async () => {
    const times = [
      Date.UTC(1900, 0, 1),
      -1,
      0,
      999,
      1e12 - 1,
      1e12,
      1e12 + 7,
      Date.parse('2025-06-02T09:30:00.005Z'),
      Date.parse('2025-06-02T09:30:00.999Z'),
      1e13 - 1,
      1e13,
      Date.UTC(2299, 11, 31, 23, 59, 59, 999),
    ];
    const change = (at: number, i: number): ListChangeRow => ({
      seq: 1000 + i,
      change_id: `chg_${i}`,
      owner: 0,
      list: 'edges',
      version: `v${i}`,
      kind: 'listed',
      at,
      entity_type: 'name',
      value: 'time',
      metadata: '{}',
      source_url: null,
    });
    // One insert of them all, and one whose body ends with an epoch number.
    await storeOf().listChanges.write(times.map(change));
    await storeOf().listChanges.write([change(1e12 + 1, times.length)]);
    const got = await select<{ at: number }>(
      "SELECT toUnixTimestamp64Milli(at) AS at FROM screening.list_changes WHERE list = 'edges' ORDER BY at",
    );
    assert.deepEqual(
      got.map((r) => Number(r.at)),
      [...times, 1e12 + 1].sort((a, b) => a - b),
    );
  });

  test('hostile strings round-trip exactly through the embedded insert', async () => {
    const rows = HOSTILE.map((v, i) => hostileMatch(i, v, 501));
    // One push per row and one with all of them: lines of many pushes and of one.
    for (const r of rows.slice(0, 5)) storeOf().matches.push([r]);
    await storeOf().matches.write(rows.slice(5));
    assert.deepEqual(await readMatches(501), rows);
  });

  test('hostile strings round-trip exactly through a client stream (the CLICKHOUSE_URL path)', async () => {
    const writer = new BatchWriter(streamInsert(storeOf().client), 'screening.audit_matches', auditMatchLines, {
      batchRows: 1000,
      flushMs: 60_000,
    });
    const rows = HOSTILE.map((v, i) => hostileMatch(i, v, 502));
    writer.push(rows.slice(0, 3));
    await writer.write(rows.slice(3));
    await writer.close();
    assert.deepEqual(await readMatches(502), rows);
  });

  test('every column type of every table reads back as written', async () => {
    const time = Date.parse('2025-07-02T10:11:12.013Z');
    const usage: UsageRow[] = [
      {
        time,
        customer_id: 4_294_967_295,
        payer: '0xPayer\t',
        request_id: 'u1',
        endpoint: 'screen.crypto',
        status: 65_535,
        credits: 4_294_967_295,
        method: 'x402',
        amount: '18446744073709551615',
        tx_hash: '0xtx\n',
        network: 'base-sepolia',
      },
      {
        time: time + 1,
        customer_id: 0,
        payer: '',
        request_id: 'u2',
        endpoint: 'screen.email',
        status: 200,
        credits: 1,
        method: 'quota',
        amount: '0',
        tx_hash: '',
        network: '',
      },
    ];
    const settlements: SettlementRow[] = [
      {
        time,
        request_id: 's1\\',
        customer_id: 7,
        payer: '0xP',
        endpoint: 'screen.crypto',
        network: 'base',
        x402_version: 255,
        amount: '10000',
        tx_hash: '0xT',
      },
    ];
    const changes: ListChangeRow[] = [
      {
        seq: Number.MAX_SAFE_INTEGER,
        change_id: 'chg\t1',
        owner: 4_294_967_295,
        list: 'ofac_sdn',
        version: 'v\t1',
        kind: 'listed',
        at: Date.UTC(1900, 0, 1),
        entity_type: 'name',
        value: 'A\nB',
        metadata: JSON.stringify({ note: 'line\nbreak "quoted" \\ tab\t' }),
        source_url: null,
      },
      {
        seq: 2001,
        change_id: 'chg_2',
        owner: 0,
        list: 'ofac_sdn',
        version: 'v2',
        kind: 'delisted',
        at: Date.UTC(2299, 11, 31, 23, 59, 59, 999),
        entity_type: 'name',
        value: 'A\nB',
        metadata: '{}',
        source_url: '\\N',
      },
      {
        seq: 2002,
        change_id: 'chg_3',
        owner: 0,
        list: 'ofac_sdn',
        version: 'v3',
        kind: 'relisted',
        at: -1,
        entity_type: 'name',
        value: 'A\nB',
        metadata: '{}',
        source_url: '',
      },
    ];
    await Promise.all([
      storeOf().usage.write(usage),
      storeOf().settlements.write(settlements),
      storeOf().listChanges.write(changes),
    ]);

    const gotUsage = await select<UsageRow>(
      `SELECT toUnixTimestamp64Milli(time) AS time, customer_id, payer, request_id, endpoint, status, credits, method, toString(amount) AS amount, tx_hash, network
         FROM screening.usage WHERE request_id IN ('u1', 'u2') ORDER BY request_id`,
    );
    assert.deepEqual(
      gotUsage.map((r) => ({ ...r, time: Number(r.time) })),
      usage,
    );
    const gotSettlements = await select<SettlementRow>(
      `SELECT toUnixTimestamp64Milli(time) AS time, request_id, customer_id, payer, endpoint, network, x402_version, toString(amount) AS amount, tx_hash
         FROM screening.x402_settlements`,
    );
    assert.deepEqual(
      gotSettlements.map((r) => ({ ...r, time: Number(r.time) })),
      settlements,
    );
    const gotChanges = await select<ListChangeRow>(
      `SELECT seq, change_id, owner, list, version, kind, toUnixTimestamp64Milli(at) AS at, entity_type, value, metadata, source_url FROM screening.list_changes WHERE list = 'ofac_sdn' ORDER BY version`,
    );
    assert.deepEqual(
      gotChanges.map((r) => ({ ...r, seq: Number(r.seq), at: Number(r.at) })),
      changes,
    );
  });

  test('a row ClickHouse would reject fails its own push and keeps none of its rows', async () => {
    const good = hostileMatch(0, 'ok', 503);
    const cases: [Partial<AuditMatchRow>, RegExp][] = [
      [{ time: Number.NaN }, /DateTime64 range/],
      [{ time: Date.UTC(2300, 0, 1) }, /DateTime64 range/],
      [{ customer_id: -1 }, /integer in \[0, 4294967295\]/],
      [{ customer_id: 1.5 }, /integer in \[0, 4294967295\]/],
      [{ customer_id: 2 ** 32 }, /integer in \[0, 4294967295\]/],
      [{ screened_value: undefined as unknown as string }, /expected a string/],
    ];
    for (const [patch, error] of cases) {
      assert.throws(() => storeOf().matches.push([good, { ...good, ...patch }]), error);
      await assert.rejects(storeOf().matches.write([good, { ...good, ...patch }]), error);
    }
    assert.equal(storeOf().matches.pending, 0);
    const usage: UsageRow = {
      time: 0,
      customer_id: 1,
      payer: '',
      request_id: 'bad',
      endpoint: 'e',
      status: 200,
      credits: 1,
      method: 'quota',
      amount: '0',
      tx_hash: '',
      network: '',
    };
    assert.throws(() => storeOf().usage.push([{ ...usage, amount: '18446744073709551616' }]), /UInt64/);
    assert.throws(() => storeOf().usage.push([{ ...usage, amount: '-1' }]), /UInt64/);
    assert.throws(() => storeOf().usage.push([{ ...usage, amount: '1e3' }]), /UInt64/);
    assert.throws(() => storeOf().usage.push([{ ...usage, status: 65_536 }]), /integer in \[0, 65535\]/);
    assert.throws(
      () => storeOf().usage.push([{ ...usage, method: 'card' as UsageRow['method'] }]),
      /one of quota, x402/,
    );
    assert.equal(storeOf().usage.pending, 0);
    await storeOf().matches.write([good]);
    assert.deepEqual(await readMatches(503), [good]);
  });

  test('pushed rows are encoded at the end of the turn, in order; close stores the ones still queued', async () => {
    const writer = new BatchWriter(streamInsert(storeOf().client), 'screening.audit_matches', auditMatchLines, {
      batchRows: 1000,
      flushMs: 60_000,
    });
    const rows = Array.from({ length: 5 }, (_, i) => hostileMatch(i, HOSTILE[i * 4], 505));
    writer.push(rows.slice(0, 2));
    writer.push(rows.slice(2, 3));
    assert.equal(writer.pending, 3);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([writer.pending, writer.inserted], [3, 0], 'encoded, waiting for the batch size or the timer');
    writer.push(rows.slice(3));
    await writer.close();
    assert.deepEqual([writer.pending, writer.inserted, writer.dropped], [0, 5, 0]);
    assert.deepEqual(await readMatches(505), rows);
    assert.throws(() => writer.push([rows[0]]), /closed/);
  });

  test('a row that passes its check but cannot be encoded is dropped, counted and logged; the rest of its turn is stored', async () => {
    const logs: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => logs.push(line) });
    const failing: LineFormat<AuditMatchRow> = {
      ...auditMatchLines,
      line: (r) => {
        if (r.screened_value === 'cannot encode') throw new Error('encoder bug');
        return auditMatchLines.line(r);
      },
    };
    const writer = new BatchWriter(streamInsert(storeOf().client), 'screening.audit_matches', failing, {
      batchRows: 1000,
      flushMs: 60_000,
      log,
    });
    const rows = Array.from({ length: 4 }, (_, i) => hostileMatch(i, `v${i}`, 506));
    rows[1] = { ...rows[1], screened_value: 'cannot encode' };
    writer.push(rows.slice(0, 3));
    writer.push(rows.slice(3));
    await writer.close();
    assert.deepEqual([writer.inserted, writer.dropped], [3, 1]);
    assert.deepEqual(await readMatches(506), [rows[0], rows[2], rows[3]]);
    assert.equal(logs.length, 1);
    assert.match(logs[0], /encoder bug/);
    assert.doesNotMatch(logs[0], /cannot encode/, 'the screened value is not logged');
  });

  test('failed inserts keep rows for retry; beyond the limit exactly the oldest rows are dropped', async () => {
    // The table does not exist yet: a real failing insert.
    const writer = new BatchWriter(streamInsert(storeOf().client), 'screening.late_matches', auditMatchLines, {
      batchRows: 1000,
      flushMs: 60_000,
      maxBufferedRows: 5,
    });
    const rows = Array.from({ length: 7 }, (_, i) => hostileMatch(i, `v${i}\n`, 504));
    await assert.rejects(writer.write(rows.slice(0, 3)), /late_matches/);
    assert.equal(writer.pending, 3);
    await assert.rejects(writer.write(rows.slice(3)), /late_matches/);
    assert.deepEqual([writer.pending, writer.dropped, writer.inserted], [5, 2, 0]);
    await storeOf().client.command({ query: 'CREATE TABLE screening.late_matches AS screening.audit_matches' });
    await writer.close();
    assert.deepEqual([writer.pending, writer.dropped, writer.inserted], [0, 2, 5]);
    const stored = await select<{ request_id: string; screened_value: string }>(
      'SELECT request_id, screened_value FROM screening.late_matches ORDER BY time',
    );
    assert.deepEqual(
      stored,
      rows.slice(2).map((r) => ({ request_id: r.request_id, screened_value: r.screened_value })),
    );
  });
});
