/**
 * Lists as users operate them (issue #22), after `node scripts/build.mjs`:
 *
 *   node dist/bench/lists.js feed [rows]
 *     The changes feed over `rows` (default 10,000,000) stored changes of 13 lists in embedded
 *     ClickHouse: a page (100 changes) read at the start of the feed, and at a cursor near its
 *     end, with and without filters; medians of 30 reads each, alternated. Target: a page near
 *     the end costs at most 2× the first page.
 *   node dist/bench/lists.js upload [rows]
 *     An upload of `rows` (default 1,000,000) rows of mixed entity types into an operator list of
 *     a service (in this process, the real lists loaded) over HTTP: streamed and checked, diffed,
 *     committed, served (the engine swapped in) and its changes delivered; then a second version
 *     with a tenth of the rows replaced. Target: ingested, diffed and served in ≤ 20 s. Run it with
 *     the service's V8 flags (src/node-flags.json), as `make bench` does. Reports
 *     the CPU time the process spent (every thread; steadier than wall time on a busy machine) and
 *     its RSS before, at its peak and after.
 *
 * Prints a markdown table.
 */
import { createWriteStream, mkdtempSync, rmSync, createReadStream } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { EntityRecord } from '../engine/model.js';
import { loadConfig } from '../src/config.js';
import { openAuditStore } from '../src/audit/store.js';
import type { ListChangeRow } from '../src/audit/rows.js';
import { createService } from '../src/service.js';
import { prepareDataDir, testEnv, TEST_ADMIN_KEY, createCustomerToken } from '../harness/service.js';
import { syntheticRecords } from '../harness/synthetic.js';
import { LISTS as REGISTRY } from '../loaders/registry.js';

const [mode = 'feed', sizeArg] = process.argv.slice(2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmtMs = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const LISTS = REGISTRY.map((l) => l.slug);
const KINDS = ['listed', 'delisted', 'relisted'] as const;
const TYPES = ['name', 'government_id', 'crypto_address', 'website', 'email', 'email_domain', 'country'];

async function feed(rows: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-feed-'));
  try {
    const store = await openAuditStore(
      loadConfig({ DATA_DIR: dir, AUDIT_BATCH_ROWS: '500000', AUDIT_FLUSH_MS: '60000' }),
    );
    const t0 = performance.now();
    const start = Date.parse('2020-01-01T00:00:00Z');
    const chunk = 500_000;
    for (let from = 1; from <= rows; from += chunk) {
      const batch: ListChangeRow[] = [];
      for (let seq = from; seq < from + chunk && seq <= rows; seq++) {
        // Versions of ~1,000 changes, an hour apart, each on one list.
        const version = Math.floor(seq / 1000);
        batch.push({
          seq,
          change_id: `chg_${seq.toString(16).padStart(32, '0')}`,
          owner: 0,
          list: LISTS[version % LISTS.length],
          version: version.toString(16).padStart(16, '0'),
          kind: KINDS[seq % 7 === 0 ? 2 : seq % 3 === 0 ? 1 : 0],
          at: start + version * 3_600_000,
          entity_type: TYPES[seq % TYPES.length],
          value: `value-${seq}@example.org`,
          metadata: `{"uid":${seq},"programs":["SDGT"]}`,
          source_url: 'https://example.org/list',
        });
      }
      await store.listChanges.write(batch);
    }
    const insertS = (performance.now() - t0) / 1000;
    await store.client.command({ query: 'OPTIMIZE TABLE screening.list_changes FINAL' });
    const near = rows - 1_000;
    const cases: [string, Parameters<typeof store.queries.changes>[0]][] = [
      ['first page (no cursor)', { owner: 0, after: 0, limit: 101 }],
      ['page at a cursor near the end', { owner: 0, after: near, limit: 101 }],
      [
        'first page, one list, delistings only',
        { owner: 0, after: 0, limit: 101, lists: ['un_sc'], kinds: ['delisted'] },
      ],
      [
        'near the end, one list, delistings only',
        { owner: 0, after: rows - 200_000, limit: 101, lists: ['un_sc'], kinds: ['delisted'] },
      ],
      [
        'first page since a recent time',
        { owner: 0, after: 0, limit: 101, since: start + (Math.floor(near / 1000) - 1) * 3_600_000 },
      ],
    ];
    const times = cases.map(() => [] as number[]);
    for (let round = 0; round < 30; round++) {
      for (let c = 0; c < cases.length; c++) {
        const t = performance.now();
        const got = await store.queries.changes(cases[c][1]);
        times[c].push(performance.now() - t);
        if (got.length === 0) throw new Error(`${cases[c][0]}: no rows`);
      }
    }
    const first = median(times[0]);
    console.log(
      `Changes feed over ${rows.toLocaleString('en-US')} stored changes (inserted in ${insertS.toFixed(1)} s), pages of 100, medians of 30 reads alternated. Load average ${load()}.\n`,
    );
    console.log('| page | median | of the first page |');
    console.log('|---|---:|---:|');
    cases.forEach(([name], c) =>
      console.log(`| ${name} | ${fmtMs(median(times[c]))} | ${(median(times[c]) / first).toFixed(2)}× |`),
    );
    console.log(`\nTarget: a page near the end at most 2× the first page: ${(median(times[1]) / first).toFixed(2)}×.`);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function upload(rows: number): Promise<void> {
  const dataDir = await prepareDataDir();
  const work = mkdtempSync(join(tmpdir(), 'bench-upload-'));
  const service = await createService(
    loadConfig(
      testEnv(dataDir, {
        LIST_UPLOAD_MAX_BYTES: String(4 * 2 ** 30),
        ENGINE_SHARDS: undefined,
        LOG_LEVEL: process.env.BENCH_LOG ?? 'silent',
      }),
    ),
  );
  try {
    await service.lists().idle();
    const port = await service.listen();
    const base = `http://127.0.0.1:${port}/api/v1`;
    const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
    const { token } = await createCustomerToken(`http://127.0.0.1:${port}`, 1_000_000, 'Bench');
    const created = await fetch(`${base}/admin/lists`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({
        slug: 'bench_upload',
        display_name: 'Bench upload',
        list_type: 'risk',
        entity_types: ['name', 'government_id', 'crypto_address', 'website', 'email', 'email_domain', 'country'],
      }),
    });
    if (created.status !== 200) throw new Error(`create: ${created.status} ${await created.text()}`);

    /** Writes a version as NDJSON: the synthetic records (seed 1), with `replaced` of every 10 rows from seed 2. */
    const write = async (path: string, replaced: boolean): Promise<{ bytes: number; probe: string }> => {
      const out = createWriteStream(path);
      let bytes = 0;
      let probe = '';
      const other = syntheticRecords(rows, 2)[Symbol.iterator]();
      let i = 0;
      for (const r0 of syntheticRecords(rows, 1)) {
        const r = replaced && i % 10 === 0 ? (other.next().value as EntityRecord) : r0;
        // The probe is new in this version: a row of the first, or a replaced row of the second.
        if (r.entity_type === 'crypto_address' && (!replaced || i % 10 === 0)) probe = r.value;
        const line = JSON.stringify({ entity_type: r.entity_type, value: r.value, metadata: { uid: i } }) + '\n';
        bytes += Buffer.byteLength(line);
        if (!out.write(line)) await once(out, 'drain');
        i++;
      }
      out.end();
      await once(out, 'finish');
      return { bytes, probe };
    };

    const rowsOut: string[][] = [];
    for (const [label, replaced] of [
      ['first version (every row listed)', false],
      ['second version (a tenth replaced)', true],
    ] as const) {
      const file = join(work, `v${replaced ? 2 : 1}.ndjson`);
      const { bytes, probe } = await write(file, replaced);
      global.gc?.();
      const rss0 = process.memoryUsage.rss();
      let peak = rss0;
      // rss() alone: memoryUsage() also walks the heap spaces, a cost every 50 ms on a heap of GiBs.
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let served = 0;
      let uploadFailed = false;
      // Served: a screening of an uploaded address answers a match (polled while the upload runs).
      const watch = (async () => {
        while (!uploadFailed) {
          const r = await fetch(`${base}/screen/crypto/${probe}?lists=bench_upload`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const flagged = r.status === 200 && ((await r.json()) as { flagged: boolean }).flagged;
          if (flagged) {
            served = performance.now() - t0;
            return;
          }
          await new Promise((r2) => setTimeout(r2, 100));
        }
      })();
      let res: Response;
      let text: string;
      try {
        res = await fetch(`${base}/admin/lists/bench_upload/upload?wait=300`, {
          method: 'POST',
          headers: { ...admin, 'content-type': 'application/x-ndjson' },
          body: Readable.toWeb(createReadStream(file)) as ReadableStream,
          duplex: 'half',
        } as RequestInit);
        text = await res.text();
      } catch (err) {
        uploadFailed = true;
        await watch.catch(() => undefined);
        throw new Error(`upload request failed after ${((performance.now() - t0) / 1000).toFixed(1)} s`, {
          cause: err,
        });
      }
      const total = performance.now() - t0;
      if (res.status !== 200) {
        uploadFailed = true;
        await watch.catch(() => undefined);
        throw new Error(`upload: ${res.status} ${text.slice(0, 2000)}`);
      }
      const body = JSON.parse(text) as {
        results: { listed: number; delisted: number; relisted: number; total: number }[];
      };
      await watch;
      const cpu = process.cpuUsage(cpu0);
      clearInterval(sampler);
      global.gc?.();
      const rss1 = process.memoryUsage.rss();
      const r = body.results[0];
      rowsOut.push([
        label,
        `${(bytes / 2 ** 20).toFixed(0)} MiB`,
        `${r.total.toLocaleString('en-US')} (listed ${r.listed.toLocaleString('en-US')}, delisted ${r.delisted.toLocaleString('en-US')})`,
        `${(served / 1000).toFixed(1)} s`,
        `${(total / 1000).toFixed(1)} s`,
        `${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
        `${mib(rss0)} / ${mib(peak)} / ${mib(rss1)}`,
      ]);
    }
    console.log(
      `Upload of ${rows.toLocaleString('en-US')} rows (NDJSON, the synthetic mix of entity types) into an operator list, service in this process with the real lists loaded (1 engine shard per core). Load average ${load()}.\n`,
    );
    console.log(
      '| version | body | entities (changes) | served (new version screened) | answered (changes delivered) | CPU until answered (all threads) | RSS before / peak / after |',
    );
    console.log('|---|---:|---|---:|---:|---:|---|');
    for (const r of rowsOut) console.log(`| ${r.join(' | ')} |`);
    console.log('\nTarget: ingested, diffed and served in ≤ 20 s.');
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

if (mode === 'feed') await feed(Number(sizeArg ?? 10_000_000));
else if (mode === 'upload') await upload(Number(sizeArg ?? 1_000_000));
else throw new Error(`unknown mode ${mode} (feed or upload)`);
