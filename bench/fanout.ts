/**
 * Fan-out of one screening answer (issue #36 item 1), after `node scripts/build.mjs`:
 *
 *   node dist/bench/fanout.js [seconds]
 *
 * Starts the service as its own process on the real lists (../shared/data) and finds, over
 * HTTP, the values whose answer holds the most matches: every entity of every public list is
 * read (`/screen/lists/{slug}/entities`), keyed as the engine keys it, and each value's probes
 * (engine/probes.ts: an e-mail's domain and its parents, a host's parent domains, a country's
 * regions) are counted against those keys. Then, for each kind's widest answer, for a private
 * list upload of 60,000 copies of one e-mail (the case, now merged into one row) and for
 * the widest answer uploads can still make (a customer's 10 private lists, each holding an e-mail
 * at a 122-label domain and each of its 121 domains: 1,220 matches), two clients screen it in a loop for `seconds` (default 20) while a third asks `/healthz` every
 * 10 ms; the table gives the matches and bytes of the answer, screenings per second and the
 * `/healthz` p50 / p99 / max beside a round with no screening. Target: `/healthz` p99 ≤ 50 ms.
 *
 * Before that, in this process: the front-end thread's work for one answer of N matches (N
 * entities of one list sharing one e-mail, as a public source may publish them): the engine's
 * exact lookup, the envelope, its JSON and its audit rows, median of interleaved runs.
 *
 * Prints markdown tables.
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { canonicalKey, domainAncestors } from '../engine/normalize/index.js';
import { ENTITY_TYPES, TYPE_INDEX, type EntityType } from '../engine/model.js';
import { ProbeList } from '../engine/probes.js';
import type { KindName } from '../engine/kinds.js';
import { Engine } from '../engine/engine.js';
import type { EntityRecord } from '../engine/model.js';
import { auditRows, envelope } from '../src/api/endpoints/screen.js';
import { screenResponseBody } from '../src/api/screen-json.js';
import type { ListCatalog } from '../src/lists/catalog.js';
import { processTicks, TICK_US } from './proc-cpu.js';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../harness/service.js';

const seconds = Number(process.argv[2] ?? 20);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
};

/** The screening endpoint of each entity type's values (types not screened by value are left out). */
const SCREENED: Partial<Record<EntityType, KindName>> = {
  crypto_address: 'crypto',
  email: 'email',
  email_domain: 'email',
  website: 'website',
  government_id: 'id',
  country: 'country',
};
const PATH: Record<KindName, (v: string) => string> = {
  crypto: (v) => `/screen/crypto/${encodeURIComponent(v)}`,
  email: (v) => `/screen/email/${encodeURIComponent(v)}`,
  website: (v) => `/screen/website?address=${encodeURIComponent(v)}`,
  id: (v) => `/screen/id/${encodeURIComponent(v)}`,
  country: (v) => `/screen/country/${encodeURIComponent(v)}`,
};

interface Entity {
  entity_type: EntityType;
  value: string;
}

/** Every public list's entities, by list. */
async function publicEntities(base: string): Promise<Map<string, Entity[]>> {
  const out = new Map<string, Entity[]>();
  const lists = (await (await fetch(`${base}/api/v1/screen/lists`)).json()) as { slug: string; enabled: boolean }[];
  for (const l of lists) {
    if (!l.enabled) continue;
    const r = await fetch(`${base}/api/v1/screen/lists/${l.slug}/entities?limit=100000`);
    if (r.status !== 200) continue;
    out.set(l.slug, ((await r.json()) as { entities: Entity[] }).entities);
  }
  return out;
}

interface Widest {
  kind: KindName;
  value: string;
  /** Matches the probes find across all lists (an entity counted once per probe that finds it). */
  matches: number;
}

/** Each kind's value with the most matches: counted from the keys, as the exact tables hold them. */
function widest(byList: Map<string, Entity[]>): Widest[] {
  const keyCount = new Map<string, number>();
  const at = (type: number, key: string) => `${type}\u0000${key}`;
  for (const entities of byList.values()) {
    for (const e of entities) {
      const key = canonicalKey(e.entity_type, e.value);
      if (key === null) continue;
      const k = at(TYPE_INDEX[e.entity_type], key);
      keyCount.set(k, (keyCount.get(k) ?? 0) + 1);
    }
  }
  const best = new Map<KindName, Widest>();
  const probes = new ProbeList();
  const seen = new Set<string>();
  for (const entities of byList.values()) {
    for (const e of entities) {
      const kind = SCREENED[e.entity_type];
      if (!kind || seen.has(`${kind}\u0000${e.value}`)) continue;
      seen.add(`${kind}\u0000${e.value}`);
      // An e-mail domain is screened through an address at it.
      const value = e.entity_type === 'email_domain' ? `someone@${e.value}` : e.value;
      probes.screening(kind, value, true);
      let matches = 0;
      for (let i = 0; i < probes.length; i++) matches += keyCount.get(at(probes.types[i], probes.keys[i])) ?? 0;
      const b = best.get(kind);
      if (!b || matches > b.matches) best.set(kind, { kind, value, matches });
    }
  }
  return ENTITY_TYPES.map((t) => SCREENED[t])
    .filter((k, i, a): k is KindName => k !== undefined && a.indexOf(k) === i)
    .flatMap((k) => (best.has(k) ? [best.get(k)!] : []));
}

interface Round {
  label: string;
  matches: number;
  bytes: number;
  screenings: number;
  /** CPU time of the service's main thread per screening (ms): how long each answer held it. */
  mainMs: number;
  healthz: number[];
}

/** `clients` loops screening `path` for `ms` while /healthz is asked every 10 ms. */
async function round(
  base: string,
  pid: number,
  label: string,
  path: string | null,
  auth: Record<string, string>,
  ms: number,
): Promise<Round> {
  const cpu0 = processTicks(pid).main;
  const until = performance.now() + ms;
  let screenings = 0;
  let matches = 0;
  let bytes = 0;
  const healthz: number[] = [];
  const screen = async () => {
    while (path && performance.now() < until) {
      const r = await fetch(`${base}/api/v1${path}`, { headers: auth });
      const body = await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${Buffer.from(body).toString()}`);
      bytes = body.byteLength;
      matches = (JSON.parse(Buffer.from(body).toString()) as { matches: unknown[] }).matches.length;
      screenings++;
    }
  };
  const probe = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      await (await fetch(`${base}/healthz`)).arrayBuffer();
      healthz.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await Promise.all([screen(), screen(), probe()]);
  const mainMs = ((processTicks(pid).main - cpu0) * TICK_US) / 1000 / Math.max(1, screenings);
  return { label, matches, bytes, screenings: screenings / (ms / 1000), mainMs, healthz };
}

/** Milliseconds of the front-end thread's work for one answer, by its number of matches. */
async function answerCost(sizes: number[], runs: number): Promise<string[]> {
  const engine = await Engine.create({ shards: 1 });
  const lists = sizes.map((n) => `fan_${n}`);
  const records: EntityRecord[] = sizes.flatMap((n, l) =>
    Array.from({ length: n }, (_, i) => ({
      list: lists[l],
      entity_type: 'email' as const,
      value: `same${n}@fan-out.example.com`,
      metadata: { party: `Party ${i}`, programs: ['SDGT'], uid: i },
      source_url: `https://example.org/party/${i}`,
      listed_at: null,
      removed_at: null,
    })),
  );
  await engine.load({
    lists: lists.map((slug) => ({ slug, list_type: 'sanctions' as const, version: 'v1', last_updated: null })),
    records,
  });
  const catalog = { labels: new Map() } as unknown as ListCatalog;
  const times = sizes.map(() => [] as number[]);
  const answer = (n: number, l: number) => {
    const value = `same${n}@fan-out.example.com`;
    const t0 = performance.now();
    const hits = engine.screenExact({ kind: 'email', value, lists })!;
    const env = envelope(value, lists, hits, catalog);
    const body = screenResponseBody(env);
    const audit = auditRows(env, undefined);
    times[l].push(performance.now() - t0);
    if (env.matches.length !== n || audit.length !== n || body.length === 0) throw new Error(`${n}: wrong answer`);
  };
  // Interleaved: every size once per run, so load changes touch them alike.
  for (let r = 0; r < runs; r++) sizes.forEach(answer);
  await engine.close();
  return sizes.map((n, l) => {
    const ms = percentile(times[l], 50);
    return `| ${n} | ${ms.toFixed(3)} | ${((ms * 1000) / n).toFixed(2)} |`;
  });
}

/** Creates a private list of e-mails and domains and uploads `rows` (CSV lines) to it; the duplicates merged. */
async function privateList(
  base: string,
  customer: { customerId: number; token: string },
  name: string,
  rows: string,
): Promise<number> {
  const auth = { authorization: `Bearer ${customer.token}` };
  const created = await fetch(`${base}/api/v1/account/lists`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name, display_name: name, list_type: 'crime', entity_types: ['email', 'email_domain'] }),
  });
  if (created.status !== 200) throw new Error(`create: ${created.status} ${await created.text()}`);
  const up = await fetch(`${base}/api/v1/account/lists/c${customer.customerId}.${name}/upload?wait=300`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'text/csv' },
    body: `entity_type,value\n${rows}\n`,
  });
  const job = (await up.json()) as { results: { duplicates: number }[] };
  if (up.status !== 200) throw new Error(`upload: ${up.status} ${JSON.stringify(job)}`);
  return job.results[0].duplicates;
}

async function main(): Promise<void> {
  const cost = await answerCost([1, 10, 100, 1_280, 10_000, 60_000], 15);
  console.log(
    [
      `One answer of N matches on the front-end thread (lookup, envelope, JSON, audit rows), median of 15 interleaved runs; load ${load()}.`,
      '',
      '| matches | ms | µs per match |',
      '|---:|---:|---:|',
      ...cost,
      '',
    ].join('\n'),
  );

  const dataDir = await prepareDataDir();
  const { child, port } = await spawnService(
    testEnv(dataDir, { LOG_LEVEL: 'info', ENGINE_SHARDS: '2', PRIVATE_LIST_ROWS_PER_CUSTOMER: '100000' }),
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    const customer = await createCustomerToken(base, 10_000_000, 'Fan-out bench');
    const auth = { authorization: `Bearer ${customer.token}` };
    // The case: 60,000 copies of one e-mail on a private list.
    const dup = 'same@relb-dup.example.com';
    const merged = await privateList(base, customer, 'blim', `email,${dup}\n`.repeat(60_000));
    // The widest answer uploads can make after the merge: each list holds an e-mail once and
    // each of its domains once, and a customer has PRIVATE_LISTS_PER_CUSTOMER (10) lists.
    const crafted = await createCustomerToken(base, 10_000_000, 'Fan-out bench, crafted');
    const deep = `x@${'a.'.repeat(120)}example.com`;
    const domains = [deep.split('@')[1], ...domainAncestors(deep.split('@')[1])];
    for (let l = 0; l < 10; l++)
      await privateList(
        base,
        crafted,
        `deep${l}`,
        [`email,${deep}`, ...domains.map((d) => `email_domain,${d}`)].join('\n'),
      );
    const byList = await publicEntities(base);
    const entities = [...byList.values()].reduce((n, l) => n + l.length, 0);
    const found = widest(byList);

    const cases: [string, string | null][] = [
      ['no screening (baseline)', null],
      [`private list, 60,000 uploaded copies (${merged} merged)`, PATH.email(dup)],
      ...found.map((w): [string, string] => [
        `widest ${w.kind}: ${w.value} (${w.matches} counted)`,
        PATH[w.kind](w.value),
      ]),
    ];
    const rows: Round[] = [];
    for (const [label, path] of cases) rows.push(await round(base, child.pid!, label, path, auth, seconds * 1000));
    const craftedAuth = { authorization: `Bearer ${crafted.token}` };
    rows.push(
      await round(
        base,
        child.pid!,
        `crafted: 10 private lists, each an e-mail and its ${domains.length} domains`,
        PATH.email(deep),
        craftedAuth,
        seconds * 1000,
      ),
    );
    console.log(
      [
        `Real lists: ${byList.size} public lists, ${entities} entities; ${seconds} s per round, 2 screening clients and /healthz every 10 ms; load ${load()} after the rounds.`,
        '',
        '| answer | matches | bytes | screenings/s | main thread CPU ms per answer | /healthz p50 ms | p99 ms | max ms |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        ...rows.map(
          (r) =>
            `| ${r.label} | ${r.matches} | ${r.bytes} | ${r.screenings.toFixed(0)} | ${r.screenings > 0 ? r.mainMs.toFixed(2) : '-'} | ${percentile(r.healthz, 50).toFixed(2)} | ${percentile(r.healthz, 99).toFixed(2)} | ${Math.max(...r.healthz).toFixed(2)} |`,
        ),
      ].join('\n'),
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
