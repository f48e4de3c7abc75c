/**
 * What alerts cost a batch: two services of this build side by side, one with alerts (the
 * default) and one with `ALERTS=false`, each sent 10,000-value batches with a third of the values
 * listed (6,667 matches per batch, bench/batch-rate.ts), 1 and 2 batches in flight. Rounds
 * alternate which service goes first; each round gives with ÷ without, and the report the medians
 * of the rounds, with each service's main-thread CPU per batch (where the alerts' cost lands: the
 * sink merges matches there, and embedded PGlite runs its statements there).
 *
 *   node --import tsx bench/alerts-batch.ts [--rounds N]
 *
 * Prints a markdown section on stdout.
 */
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../harness/service.js';
import { batchRate, type BatchRate } from './batch-rate.js';
import { median } from './wrk.js';

const roundsAt = process.argv.indexOf('--rounds');
const ROUNDS = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 5;

async function main(): Promise<void> {
  const env = { LOG_LEVEL: 'info', ENGINE_SHARDS: '2' };
  const dirs = [await prepareDataDir(), await prepareDataDir()];
  const services = [
    { name: 'with alerts', svc: await spawnService(testEnv(dirs[0], env)) },
    { name: 'ALERTS=false', svc: await spawnService(testEnv(dirs[1], { ...env, ALERTS: 'false' })) },
  ];
  try {
    const targets = await Promise.all(
      services.map(async ({ name, svc }) => {
        const url = `http://127.0.0.1:${svc.port}`;
        while ((await fetch(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
        const auth = `Bearer ${(await createCustomerToken(url, 1_000_000_000, 'bench')).token}`;
        return { name, url, auth, pid: svc.child.pid!, output: svc.output };
      }),
    );
    const load0 = loadavg();
    const results = new Map<string, BatchRate[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const inFlight of [1, 2]) {
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) {
          const key = `${t.name}|${inFlight}`;
          results.set(key, [...(results.get(key) ?? []), await batchRate(t.url, t.auth, true, inFlight, t.pid)]);
        }
      }
    }
    const load1 = loadavg();
    // A measure of a service whose alerts failed would flatter it: the with-alerts run must have stored them.
    for (const t of targets)
      if (/alerts of audited matches not recorded/.test(t.output()))
        throw new Error(`${t.name}: alerts were not recorded:\n${t.output().slice(-2000)}`);
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
    const lines = [
      `### Batches with and without alerts (10,000 values, a third listed; ${ROUNDS} interleaved rounds of ~6 s, medians)`,
      '',
      `Load average ${load0.map((l) => l.toFixed(2)).join(' ')} at the start, ${load1.map((l) => l.toFixed(2)).join(' ')} at the end.`,
      '',
      '| in flight | service | values/s, median batch | values/s, aggregate | main thread ms per batch | with ÷ without per round: median (range) |',
      '|---:|---|---:|---:|---:|---:|',
    ];
    for (const inFlight of [1, 2]) {
      const withA = results.get(`with alerts|${inFlight}`)!;
      const without = results.get(`ALERTS=false|${inFlight}`)!;
      const ratios = withA.map((r, i) => r.aggregate / without[i].aggregate);
      for (const [name, rs] of [
        ['with alerts', withA],
        ['ALERTS=false', without],
      ] as const)
        lines.push(
          `| ${inFlight} | ${name} | ${n(median(rs.map((r) => r.median)))} | ${n(median(rs.map((r) => r.aggregate)))} | ${median(rs.map((r) => r.mainMsPerBatch!)).toFixed(0)} | ${name === 'with alerts' ? `${pct(median(ratios))} (${pct(Math.min(...ratios))}–${pct(Math.max(...ratios))})` : ''} |`,
        );
    }
    console.log(lines.join('\n'));
  } finally {
    const exited = services.map(({ svc }) => once(svc.child, 'exit'));
    for (const { svc } of services) svc.child.kill('SIGTERM');
    await Promise.all(exited);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
