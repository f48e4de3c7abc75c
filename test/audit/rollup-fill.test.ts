import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { openAuditStore } from '../../src/audit/store.js';
import type { AuditMatchRow } from '../../src/audit/rows.js';
import { createService, type Service } from '../../src/service.js';
import { createCustomerToken, prepareDataDir, testEnv, TEST_ADMIN_KEY } from '../../harness/service.js';

/**
 * A database of an earlier release (audit rows, no rollups) gets its rollups filled in the
 * background once the service serves: the service is ready meanwhile and answers the most matched
 * values from the rows; the matches it records while the fill runs are counted once, by the view,
 * and the answers after the fill (from the rollup) are the same.
 */
const LISTED_BTC = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
const DAY = 86_400_000;
const first = Date.parse('2025-04-20T00:00:00Z');
let dataDir: string;
let service: Service;
let url: string;
/** Resolves when the fill reached its hold; `release` lets it go on. */
let held: Promise<void>;
let release: () => void;

/** 1,200 matches of customers 1 and 2 over 40 days of two months, skewed over 9 values of three lists. */
function stored(): AuditMatchRow[] {
  return Array.from({ length: 1200 }, (_, i) => {
    const value = ((i * i + 3 * i) % 17) % 9;
    return {
      time: first + ((i * 7919) % 40) * DAY + ((i * 104_729) % DAY),
      customer_id: i % 4 === 0 ? 2 : 1,
      payer: '',
      request_id: `old${i}`,
      endpoint: 'screen.crypto',
      screened_value: `s${i}`,
      matched_value: `0xold${value}`,
      list: ['ofac_sdn', 'eu_fsf', 'un_sc'][value % 3],
      list_type: 'sanctions',
      match: 'exact',
      list_version: '',
      as_of: null,
      evidence: {},
    };
  });
}

/** The most matched values of `rows`, counted here: every value (fewer than the limit), most matched first, then by list and value. */
function expected(rows: AuditMatchRow[], customer: number | null) {
  const counted = new Map<string, { matched_value: string; list: string; matches: number; last: number }>();
  for (const r of rows) {
    if (customer !== null && r.customer_id !== customer) continue;
    const key = `${r.list}\t${r.matched_value}`;
    const v = counted.get(key) ?? { matched_value: r.matched_value, list: r.list, matches: 0, last: 0 };
    v.matches++;
    v.last = Math.max(v.last, r.time);
    counted.set(key, v);
  }
  return [...counted.values()]
    .map((v) => ({
      matched_value: v.matched_value,
      list: v.list,
      matches: v.matches,
      last_match_at: new Date(v.last).toISOString(),
    }))
    .sort(
      (a, b) => b.matches - a.matches || a.list.localeCompare(b.list) || a.matched_value.localeCompare(b.matched_value),
    );
}

async function get(path: string, token: string): Promise<unknown> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return res.json();
}

async function one<T>(query: string): Promise<T> {
  return (await (await service.audit.client.query({ query, format: 'JSONEachRow' })).json<T>())[0];
}

/** Matches stored just before the start, in the month the service then writes in: only the fill's cutoff tells them from the later ones. */
const justBefore = (now: number): AuditMatchRow[] =>
  [1, 2, 3, 4, 5].map((ms) => ({
    ...stored()[0],
    customer_id: 1,
    request_id: `recent${ms}`,
    time: now - ms,
    matched_value: LISTED_BTC,
    list: 'ofac_sdn',
  }));

before(async () => {
  dataDir = await prepareDataDir();
  const config = loadConfig(testEnv(dataDir, { AUDIT_STRICT: 'true' }));
  // The earlier release's database: the audit rows, without the rollups and their views.
  const old = await openAuditStore(config);
  await old.matches.write([...stored(), ...justBefore(Date.now())]);
  for (const name of ['value_matches', 'matched_values']) {
    await old.client.command({ query: `DROP VIEW screening.${name}_mv` });
    await old.client.command({ query: `DROP TABLE screening.${name}` });
  }
  await old.close();

  let reached!: () => void;
  const reachedHold = new Promise<void>((r) => (reached = r));
  const hold = new Promise<void>((r) => (release = r));
  held = reachedHold;
  service = await createService(config, {
    validateResponses: true,
    beforeRollupFill: () => {
      reached();
      return hold;
    },
  });
  await service.lists().idle();
  url = `http://127.0.0.1:${await service.listen()}`;
});
after(async () => {
  release?.();
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the service serves while the rollups are filled, with the same most matched values before and after', async () => {
  await held;
  const ready = await fetch(`${url}/readyz`);
  assert.equal(ready.status, 200);
  const a = await createCustomerToken(url, 1000, 'A');
  const b = await createCustomerToken(url, 1000, 'B');
  assert.deepEqual([a.customerId, b.customerId], [1, 2], 'the stored rows belong to the first two customers');

  const rollupRows = () => one<{ n: number }>('SELECT toUInt64(count()) AS n FROM screening.value_matches');
  const filled = async () =>
    (
      await one<{ comment: string }>(
        "SELECT comment FROM system.tables WHERE database = 'screening' AND name = 'value_matches'",
      )
    ).comment !== '';
  // Emptied by the start and not filled yet: the answers below come from the rows.
  assert.equal(Number((await rollupRows()).n), 0);
  assert.equal(await filled(), false);

  const range = `from=2025-04-20&to=2025-05-29&limit=100`;
  const answers = async () => ({
    a: await get(`/api/v1/account/analytics/top-values?${range}`, a.token),
    b: await get(`/api/v1/account/analytics/top-values?${range}`, b.token),
    all: await get(`/api/v1/admin/analytics/top-values?${range}`, TEST_ADMIN_KEY),
  });
  const rows = stored();
  const before = await answers();
  assert.deepEqual(before, { a: expected(rows, 1), b: expected(rows, 2), all: expected(rows, null) });
  assert.ok(before.all.length > 5);

  // Matches recorded while the fill has not run: the view counts them, the fill must not.
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${url}/api/v1/screen/crypto/${LISTED_BTC}`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  // Strict rows are durable in the audit log first; the count below reads ClickHouse.
  await service.audit.matches.flush();
  const today = new Date().toISOString().slice(0, 10);
  const recent = await one<{ n: number }>(
    `SELECT toUInt64(count()) AS n FROM screening.audit_matches WHERE customer_id = 1 AND toDate(time) = '${today}'`,
  );
  assert.ok(Number(recent.n) >= 3, `${recent.n} matches recorded today`);
  const all = Number((await one<{ n: number }>('SELECT toUInt64(count()) AS n FROM screening.audit_matches')).n);
  assert.ok(all >= rows.length + 5 + 3);
  const todays = async () =>
    (
      (await get(`/api/v1/account/analytics/top-values?from=${today}&to=${today}&limit=100`, a.token)) as {
        matches: number;
      }[]
    ).reduce((n, v) => n + v.matches, 0);
  assert.equal(await todays(), Number(recent.n));

  release();
  await service.audit.fillRollups();
  assert.equal(await filled(), true);
  // Every row counted once in each span's blocks, by the fill or by the view.
  const counted = await one<{ matches: number }>(
    'SELECT toUInt64(sum(matches)) AS matches FROM screening.value_matches WHERE all_customers = 1 AND days = 32',
  );
  assert.equal(Number(counted.matches), all);
  assert.deepEqual(await answers(), before);
  assert.equal(await todays(), Number(recent.n));
});
