/**
 * HTTP load: wrk against the service's routes and, in the same run, a bare uWS route returning a
 * fixed JSON body (bench/bare-uws.ts). Rounds alternate bare / route so both see the same machine
 * state; the report gives medians and each route's requests/s as a fraction of the bare route, and
 * where each run's CPU went per request (server main thread, its other threads, wrk, softirq), read
 * from Linux's /proc.
 *   node --import tsx bench/http.ts [--seconds N] [--rounds N] [--connections N] [--parent DIR]
 * `--parent DIR`: a checkout of another commit, built (`make build`), whose service runs beside
 * this one: each service route is measured on it right after this build's, in the same rounds, and
 * a table gives this build ÷ the parent per round. It ingests the lists itself at start.
 * Prints a markdown section on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { availableParallelism, tmpdir } from 'node:os';
import { batchRate, LISTED_XBT } from './batch-rate.js';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../harness/service.js';
import { COMPILED, REPO_ROOT } from '../harness/paths.js';
import { hasWrk, median, wrk, type WrkResult } from './wrk.js';
import { childrenTicks, machineTicks, processTicks, TICK_US } from './proc-cpu.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg('seconds', 5);
// Five rounds: on a 2-core machine shared with wrk, single 5 s runs of a route spread by ±10%.
const ROUNDS = arg('rounds', 5);
const CONNECTIONS = arg('connections', 64);
const PARENT = process.argv.includes('--parent') ? process.argv[process.argv.indexOf('--parent') + 1] : undefined;
/** One name for `/search` and `/screen/name`: it matches a listed party (KIM Jong Un, 0.9). */
const NAME = 'Jong Un Kim';
const XBT = LISTED_XBT;

async function startBare(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [
      ...(COMPILED
        ? [join(REPO_ROOT, 'dist', 'bench', 'bare-uws.js')]
        : ['--import', 'tsx', join(REPO_ROOT, 'bench', 'bare-uws.ts')]),
      '0',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  while (!/READY (\d+)/.test(out)) await new Promise((r) => setTimeout(r, 50));
  return { child, port: Number(/READY (\d+)/.exec(out)![1]) };
}

/** Where a run's CPU went, in µs per request (softirq and idle: the whole machine's). */
interface CpuPerRequest {
  main: number;
  others: number;
  wrk: number;
  softirq: number;
  /** Share of the machine's CPU time left idle. */
  idle: number;
}

type MeasuredRun = WrkResult & { cpu: CpuPerRequest };

/** One wrk run against a route served by process `pid`, with the CPU it took on each side. */
async function measuredRun(url: string, pid: number, headers?: Record<string, string>): Promise<MeasuredRun> {
  const server0 = processTicks(pid);
  const wrk0 = childrenTicks();
  const machine0 = machineTicks();
  const r = await wrk(url, { seconds: SECONDS, connections: CONNECTIONS, headers });
  const server1 = processTicks(pid);
  const machine1 = machineTicks();
  const perRequest = (ticks: number) => (ticks * TICK_US) / r.requests;
  const main = perRequest(server1.main - server0.main);
  return {
    ...r,
    cpu: {
      main,
      others: perRequest(server1.all - server0.all) - main,
      wrk: perRequest(childrenTicks() - wrk0),
      softirq: perRequest(machine1.softirq - machine0.softirq),
      idle: (machine1.idle - machine0.idle) / (machine1.total - machine0.total),
    },
  };
}

async function main() {
  if (!hasWrk()) throw new Error('wrk is not installed (make bench installs it)');
  const dataDir = await prepareDataDir();
  const bare = await startBare();
  process.on('exit', () => bare.child.kill('SIGTERM'));
  const env = { LOG_LEVEL: 'info', SEARCH_BURST: '100000', SEARCH_RATE_PER_SECOND: '100000', ENGINE_SHARDS: '2' };
  const svc = await spawnService(testEnv(dataDir, env));
  const url = `http://127.0.0.1:${svc.port}`;
  const parentDir = PARENT ? mkdtempSync(join(tmpdir(), 'bench-parent-')) : null;
  const parent = PARENT ? await spawnService(testEnv(parentDir!, env), { root: PARENT }) : null;
  const parentUrl = parent ? `http://127.0.0.1:${parent.port}` : null;
  try {
    for (const u of [url, parentUrl])
      while (u && (await fetch(`${u}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
    const auth = `Bearer ${(await createCustomerToken(url, 1_000_000_000, 'bench')).token}`;
    const parentAuth = parentUrl && `Bearer ${(await createCustomerToken(parentUrl, 1_000_000_000, 'bench')).token}`;
    const routes: { name: string; path: string; auth?: boolean }[] = [
      { name: '/screen/crypto match, token + quota + audit', path: `/api/v1/screen/crypto/${XBT}`, auth: true },
      {
        name: '/screen/crypto no match, token + quota + audit',
        path: '/api/v1/screen/crypto/0x000000000000000000000000000000000000dEaD',
        auth: true,
      },
      { name: '/screen/country region match, token', path: '/api/v1/screen/country/Ukraine', auth: true },
      { name: '/vpn/{ip}, token', path: '/api/v1/vpn/2.26.157.10', auth: true },
      { name: '/geo/{ip}, token', path: '/api/v1/geo/8.8.8.8', auth: true },
      {
        name: '/screen/name match, token + quota + audit',
        path: `/api/v1/screen/name?name=${encodeURIComponent(NAME)}`,
        auth: true,
      },
      { name: '/search fuzzy (public)', path: `/api/v1/search?q=${encodeURIComponent(NAME)}` },
      { name: '/stats (public)', path: '/api/v1/stats' },
    ];
    const PARENT_SUFFIX = ', parent build';
    const targets: { name: string; url: string; headers?: Record<string, string>; parent?: boolean }[] = [
      { name: 'bare uWS route (fixed JSON)', url: `http://127.0.0.1:${bare.port}/hello` },
      ...routes.flatMap((r) => [
        { name: r.name, url: url + r.path, headers: r.auth ? { authorization: auth } : undefined },
        ...(parentUrl
          ? [
              {
                name: r.name + PARENT_SUFFIX,
                url: parentUrl + r.path,
                headers: r.auth ? { authorization: parentAuth! } : undefined,
                parent: true,
              },
            ]
          : []),
      ]),
    ];
    const results = new Map<string, MeasuredRun[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, t] of targets.entries()) {
        const r = await measuredRun(
          t.url,
          i === 0 ? bare.child.pid! : t.parent ? parent!.child.pid! : svc.child.pid!,
          t.headers,
        );
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} socket errors`);
        results.set(t.name, [...(results.get(t.name) ?? []), r]);
      }
    }
    const batches: string[] = [];
    for (const listed of [false, true]) {
      for (const inFlight of [1, 2]) {
        for (const [build, u, a] of [
          ['', url, auth],
          ...(parentUrl ? [[PARENT_SUFFIX, parentUrl, parentAuth!]] : []),
        ]) {
          const r = await batchRate(u, a, listed, inFlight);
          batches.push(
            `| ${listed ? 'a third listed (2 matches each)' : 'none listed'}${build} | ${inFlight} | ${Math.round(r.median).toLocaleString('en-US')} | ${Math.round(r.aggregate).toLocaleString('en-US')} |`,
          );
        }
      }
    }
    const bareRounds = results.get(targets[0].name)!;
    const bareRps = median(bareRounds.map((r) => r.rps));
    const percent = (x: number) => `${(x * 100).toFixed(0)}%`;
    const cpuMedian = (name: string, part: keyof CpuPerRequest) => median(results.get(name)!.map((r) => r.cpu[part]));
    const bareMain = cpuMedian(targets[0].name, 'main');
    const us = (x: number) => x.toFixed(1);
    const lines = [
      `### HTTP (wrk, ${CONNECTIONS} connections, 1 thread, ${SECONDS} s × ${ROUNDS} rounds, medians)`,
      '',
      'The bare route runs first in each round; "per round" divides each round\'s route by that round\'s bare route.',
      '',
      '| route | req/s | of bare uWS | of bare uWS per round: median (range) | p50 ms | p99 ms |',
      '|---|---:|---:|---:|---:|---:|',
      ...targets.map((t) => {
        const rs = results.get(t.name)!;
        const rps = median(rs.map((r) => r.rps));
        const perRound = rs.map((r, i) => r.rps / bareRounds[i].rps);
        return `| ${t.name} | ${Math.round(rps).toLocaleString('en-US')} | ${percent(rps / bareRps)} | ${percent(median(perRound))} (${percent(Math.min(...perRound))}–${percent(Math.max(...perRound))}) | ${median(rs.map((r) => r.p50ms)).toFixed(2)} | ${median(rs.map((r) => r.p99ms)).toFixed(2)} |`;
      }),
      '',
      ...(parentUrl
        ? [
            `### This build against the parent build (${PARENT}), same rounds`,
            '',
            '| route | this ÷ parent req/s per round: median (range) |',
            '|---|---:|',
            ...routes.map((r) => {
              const mine = results.get(r.name)!;
              const theirs = results.get(r.name + PARENT_SUFFIX)!;
              const perRound = mine.map((m, i) => m.rps / theirs[i].rps);
              return `| ${r.name} | ${percent(median(perRound))} (${percent(Math.min(...perRound))}–${percent(Math.max(...perRound))}) |`;
            }),
            '',
          ]
        : []),
      `### CPU per request while wrk runs each route (µs, medians of the rounds; ${availableParallelism()} cores)`,
      '',
      "Per request: the server's main thread (uWS, the handler, and the kernel's send and receive paths it runs),",
      "its other threads (engine shards, chDB, libuv's pool) and wrk share the cores, so requests/s is at most the",
      "cores' microseconds divided by their sum. Softirq is the machine's time delivering loopback packets; a kernel",
      'built without CONFIG_IRQ_TIME_ACCOUNTING also charges it to the thread it interrupted, and then it is part of',
      'the first three columns, not added to them. With one front-end thread a route reaches at most',
      '"bare main ÷ route main" of the bare route\'s requests/s.',
      '',
      '| route | main thread | other threads | wrk | softirq | machine idle | bare main ÷ route main |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...targets.map((t) => {
        const main = cpuMedian(t.name, 'main');
        return `| ${t.name} | ${us(main)} | ${us(cpuMedian(t.name, 'others'))} | ${us(cpuMedian(t.name, 'wrk'))} | ${us(cpuMedian(t.name, 'softirq'))} | ${percent(cpuMedian(t.name, 'idle'))} | ${percent(bareMain / main)} |`;
      }),
      '',
      '### Batch screening end to end (10,000 exact-kind values per request, token + audit, ~6 s each)',
      '',
      '| values | requests in flight | values/s, median batch | values/s, aggregate |',
      '|---|---:|---:|---:|',
      ...batches,
      '',
    ];
    console.log(lines.join('\n'));
  } finally {
    // Listen before signalling: a child that exits while another is awaited must not be missed.
    const exited = [svc, parent].flatMap((c) => (c ? [once(c.child, 'exit')] : []));
    svc.child.kill('SIGTERM');
    parent?.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    await Promise.all(exited);
    rmSync(dataDir, { recursive: true, force: true });
    if (parentDir) rmSync(parentDir, { recursive: true, force: true });
  }
}

await main();
