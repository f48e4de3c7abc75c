/**
 * The dashboard's analytics over a large audit trail: ROWS audit rows (default 10M) and as many
 * usage rows of one customer, spread over the last 30 days, plus 1M rows of 20 other customers,
 * generated inside embedded ClickHouse (chDB) through the service's own tables and projections.
 * Then the compiled service is started on that data directory and each analytics endpoint is
 * timed over HTTP (sequential requests, one in flight): p50 / p95 / max against the 200 ms target,
 * and the service process's CPU per request (all its threads, chDB's included): a machine busy with
 * other work stretches the times, not the CPU.
 * Finally the latency of a screening request is measured alone and while analytics requests run
 * back to back beside it (the queries run on chDB's threads, not the event loop).
 *
 *   node dist/bench/analytics.js [rows] [--runs N] [--keep DIR]
 *
 * `--keep DIR` keeps the generated data in DIR and reuses it on the next run (generation of 10M
 * rows takes minutes). Matched values follow a 1/rank (Zipf) law over 100,000 listed values, as
 * traffic concentrates on few listed values; each value belongs to one of 8 lists. Prints a
 * markdown section on stdout.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { loadConfig } from '../src/config.js';
import { openAuditStore } from '../src/audit/store.js';
import { prepareDataDir, spawnService, testEnv, TEST_ADMIN_KEY } from '../harness/service.js';
import { median } from './wrk.js';
import { processTicks, TICK_US } from './proc-cpu.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const RUNS = Number(option('runs') ?? 40);
const KEEP = option('keep');
const ROWS = Number(args[0] ?? 10_000_000);
const OTHER_ROWS = 1_000_000;
const VALUES = 100_000;
const CHUNK = 1_000_000;
const DAY = 86_400_000;
const CUSTOMER = 1;
const LISTED_BTC = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
/** The tables read, merged as in the steady state of a table written over weeks. */
const MERGED = ['audit_matches', 'usage', 'value_matches', 'matched_values'];

const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** The SQL expressions of one generated row, from `number` (deterministic hashes). */
function rowExpressions(customer: string, from: number, span: number, total: number) {
  const time = `fromUnixTimestamp64Milli(toInt64(${from} + intDiv(number * ${span}, ${total}) + cityHash64(number, 1) % 1000), 'UTC')`;
  // 1/rank: exp(u · ln V) is log-uniform on [1, V].
  const value = `toUInt32(floor(exp((cityHash64(number, 2) % 1000000) / 1000000 * log(${VALUES}))))`;
  const endpoint = `multiIf(cityHash64(number, 3) % 100 < 45, 'screen.crypto', cityHash64(number, 3) % 100 < 75, 'screen.batch', cityHash64(number, 3) % 100 < 85, 'screen.email', cityHash64(number, 3) % 100 < 93, 'screen.website', cityHash64(number, 3) % 100 < 97, 'screen.id', 'screen.country')`;
  return { time, value, endpoint, customer, requestId: `toString(generateUUIDv4(number))` };
}

async function generate(dataDir: string): Promise<{ seconds: number }> {
  const started = performance.now();
  const store = await openAuditStore(loadConfig({ DATA_DIR: dataDir }));
  const to = Math.floor(Date.now() / DAY) * DAY + DAY;
  const from = to - 30 * DAY;
  const lists =
    "['ofac_sdn','ofac_crypto','un_sc','eu_fsf','uk_sanctions','cryptoscamdb','eth_phishing','disposable_email']";
  const insert = async (customer: string, rows: number) => {
    for (let offset = 0; offset < rows; offset += CHUNK) {
      const n = Math.min(CHUNK, rows - offset);
      const e = rowExpressions(customer, from, 30 * DAY - 1000, rows);
      const numbers = `(SELECT number + ${offset} AS number FROM numbers(${n}))`;
      await store.client.command({
        query: `INSERT INTO screening.audit_matches
                SELECT ${e.time}, ${e.customer}, '', ${e.requestId}, ${e.endpoint},
                       concat('0x', lower(hex(cityHash64(v))), lower(hex(cityHash64(v, 1))), substring(lower(hex(cityHash64(v, 2))), 1, 8)) AS matched,
                       matched, ${lists}[1 + v % 8], 'sanctions', 'exact', '', NULL
                  FROM (SELECT *, ${e.value} AS v FROM ${numbers})`,
      });
      await store.client.command({
        query: `INSERT INTO screening.usage
                SELECT ${e.time}, ${e.customer}, '', ${e.requestId}, ${e.endpoint}, 200, 1,
                       if(cityHash64(number, 4) % 50 = 0, 'x402', 'quota'), 0, '', ''
                  FROM ${numbers}`,
      });
    }
  };
  await insert(String(CUSTOMER), ROWS);
  await insert(`toUInt32(2 + number % 20)`, OTHER_ROWS);
  // The steady state of a table written over weeks: merged parts.
  for (const t of MERGED) await store.client.command({ query: `OPTIMIZE TABLE screening.${t} FINAL` });
  const counted = await (
    await store.client.query({
      query: `SELECT count() AS n FROM screening.audit_matches WHERE customer_id = ${CUSTOMER}`,
      format: 'JSONEachRow',
    })
  ).json<{ n: number }>();
  if (Number(counted[0].n) !== ROWS) throw new Error(`generated ${counted[0].n} rows, not ${ROWS}`);
  await store.close();
  return { seconds: (performance.now() - started) / 1000 };
}

async function timed(url: string, token: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

async function main() {
  let dataDir: string;
  let generated: { seconds: number } | null = null;
  if (KEEP && existsSync(join(KEEP, 'chdb'))) dataDir = KEEP;
  else {
    // The lists come from the tests' cache (prepareDataDir).
    dataDir = await prepareDataDir();
    if (KEEP) {
      cpSync(dataDir, KEEP, { recursive: true });
      rmSync(dataDir, { recursive: true, force: true });
      dataDir = KEEP;
    }
    generated = await generate(dataDir);
  }
  // Kept data is brought to this release's tables first (e.g. a rollup filled from the rows), so
  // that the endpoints are measured on them, not on the rows beside a fill.
  let migrated: number | null = null;
  if (!generated) {
    const t0 = performance.now();
    const store = await openAuditStore(loadConfig({ DATA_DIR: dataDir }));
    await store.fillRollups();
    migrated = (performance.now() - t0) / 1000;
    for (const t of MERGED) await store.client.command({ query: `OPTIMIZE TABLE screening.${t} FINAL` });
    await store.close();
  }
  // An empty control plane: the bench's customer is number 1, whose rows were generated.
  rmSync(join(dataDir, 'pglite'), { recursive: true, force: true });
  const svc = await spawnService(testEnv(dataDir, { LOG_LEVEL: 'info', ENGINE_SHARDS: '2' }));
  const base = `http://127.0.0.1:${svc.port}`;
  try {
    while ((await fetch(`${base}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
    const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
    const c = (await (
      await fetch(`${base}/api/v1/admin/customers`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'bench', monthly_quota: 1_000_000_000 }),
      })
    ).json()) as {
      id: number;
    };
    if (c.id !== CUSTOMER) throw new Error(`the bench customer is ${c.id}, the rows were generated for ${CUSTOMER}`);
    const token = (
      (await (
        await fetch(`${base}/api/v1/admin/customers/${c.id}/tokens`, { method: 'POST', headers: admin, body: '{}' })
      ).json()) as { token: string }
    ).token;

    const firstPage = (await (
      await fetch(`${base}/api/v1/account/audit?limit=50`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { next_cursor: string };
    const endpoints: [string, string, string][] = [
      ['/account/analytics/daily', token, 'a customer, per day (30 days)'],
      ['/account/analytics/endpoints', token, 'a customer, per endpoint'],
      ['/account/analytics/lists', token, 'a customer, per list'],
      ['/account/analytics/top-values', token, 'a customer, top 10 matched values'],
      ['/admin/analytics/daily', TEST_ADMIN_KEY, 'all customers, per day'],
      ['/admin/analytics/lists', TEST_ADMIN_KEY, 'all customers, per list'],
      ['/admin/analytics/top-values', TEST_ADMIN_KEY, 'all customers, top 10 matched values'],
      ['/admin/analytics/customers', TEST_ADMIN_KEY, 'all customers, busiest 20'],
      ['/account/audit?limit=50', token, 'audit trail, first page (+ total)'],
      [
        `/account/audit?limit=50&cursor=${encodeURIComponent(firstPage.next_cursor)}`,
        token,
        'audit trail, next page by cursor',
      ],
      [
        '/account/audit?limit=50&list=ofac_crypto&endpoint=screen.crypto',
        token,
        'audit trail, filtered by list and endpoint',
      ],
      ['/account/audit?limit=50&value_contains=0x00', token, 'audit trail, value contains (scans values)'],
    ];
    const rows: string[] = [];
    for (const [path, credential, what] of endpoints) {
      const url = `${base}/api/v1${path}`;
      for (let i = 0; i < 3; i++) await timed(url, credential);
      const times: number[] = [];
      const cpu0 = processTicks(svc.child.pid!).all;
      for (let i = 0; i < RUNS; i++) times.push(await timed(url, credential));
      const cpuMs = ((processTicks(svc.child.pid!).all - cpu0) * TICK_US) / 1000 / RUNS;
      const p95 = percentile(times, 95);
      const analytics = path.includes('/analytics/');
      rows.push(
        `| \`${path.split('?')[0]}\` | ${what} | ${median(times).toFixed(0)} | ${p95.toFixed(0)} | ${Math.max(...times).toFixed(0)} | ${cpuMs.toFixed(0)} | ${analytics ? (p95 <= 200 ? 'yes' : '**no**') : '—'} |`,
      );
    }

    // Screening latency alone, then with analytics requests running back to back beside it.
    const screenUrl = `${base}/api/v1/screen/crypto/${LISTED_BTC}`;
    const screenRun = async () => {
      const t: number[] = [];
      for (let i = 0; i < 2000; i++) t.push(await timed(screenUrl, token));
      return t;
    };
    for (let i = 0; i < 200; i++) await timed(screenUrl, token);
    const alone = await screenRun();
    let busy = true;
    let analyticsDone = 0;
    const heavy = ['/account/analytics/top-values', '/admin/analytics/top-values', '/account/analytics/daily'];
    const background = (async () => {
      for (let i = 0; busy; i++) {
        await timed(
          `${base}/api/v1${heavy[i % heavy.length]}`,
          heavy[i % heavy.length].startsWith('/admin') ? TEST_ADMIN_KEY : token,
        );
        analyticsDone++;
      }
    })();
    const beside = await screenRun();
    busy = false;
    await background;

    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    const lines = [
      `Analytics benchmark, ${new Date().toISOString()}: ${availableParallelism()} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average after the run ${load}.`,
      '',
      `${ROWS.toLocaleString('en-US')} audit rows and ${ROWS.toLocaleString('en-US')} usage rows of one customer over 30 days, plus ${OTHER_ROWS.toLocaleString('en-US')} of each for 20 other customers, in embedded chDB`,
      `(matched values: 1/rank law over ${VALUES.toLocaleString('en-US')} values of 8 lists; tables merged with OPTIMIZE FINAL${generated ? `; generating took ${generated.seconds.toFixed(0)} s` : `; data reused from --keep, brought to this release's tables in ${migrated?.toFixed(0)} s`}).`,
      `Each endpoint over HTTP against the compiled service, ${RUNS} sequential requests after 3 warm-up ones, default range (the last 30 days: every row).`,
      '',
      '| endpoint | what | p50 ms | p95 ms | max ms | service CPU ms per request | analytics p95 ≤ 200 ms |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `Screening (\`/screen/crypto\`, listed, one request in flight, 2,000 requests) while analytics requests run back to back beside it (${analyticsDone} answered meanwhile):`,
      '',
      '| | p50 ms | p99 ms |',
      '|---|---|---|',
      `| alone | ${median(alone).toFixed(2)} | ${percentile(alone, 99).toFixed(2)} |`,
      `| beside analytics | ${median(beside).toFixed(2)} | ${percentile(beside, 99).toFixed(2)} |`,
    ];
    console.log(lines.join('\n'));
  } finally {
    svc.child.kill('SIGTERM');
    await new Promise((r) => svc.child.once('exit', r));
    if (!KEEP) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
