/**
 * AUDIT_STRICT against the default mode: two services of this build side by side (separate
 * DATA_DIRs, the same lists), measured in interleaved rounds (the order alternates each round)
 * on `/screen/crypto` with a match and without, with wrk at 64 and 8 connections, and on batches
 * of 100 listed values, `inFlight` at a time.
 *   node --import tsx bench/strict.ts [--seconds N] [--rounds N]
 * Prints a markdown section on stdout: medians, strict ÷ default per round, and the load average.
 */
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { batchSender } from '../harness/load.js';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../harness/service.js';
import { hasWrk, median, wrk } from './wrk.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg('seconds', 5);
const ROUNDS = arg('rounds', 3);
const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
const NO_MATCH = '0x000000000000000000000000000000000000dEaD';
const BATCH_ITEMS = 100;

/** Batches of 100 listed values, `inFlight` at a time for `seconds`: lines (values) per second. */
async function batchRate(url: string, auth: string, inFlight: number, seconds: number): Promise<number> {
  const body = Buffer.from(
    JSON.stringify({
      items: Array.from({ length: BATCH_ITEMS }, () => ({ type: 'crypto', value: XBT })),
      lists: 'ofac_sdn',
    }),
  );
  const batches = batchSender(url, auth, body, BATCH_ITEMS);
  let done = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        await batches.send();
        done++;
      }
    }),
  );
  const rate = (done * BATCH_ITEMS * 1000) / (performance.now() - started);
  batches.close();
  return rate;
}

interface Mode {
  name: 'default' | 'strict';
  url: string;
  auth: string;
}

async function main() {
  if (!hasWrk()) throw new Error('wrk is not installed (make bench installs it)');
  const env = { LOG_LEVEL: 'info', ENGINE_SHARDS: '2' };
  const dirs = [await prepareDataDir(), await prepareDataDir()];
  const services = [
    await spawnService(testEnv(dirs[0], env)),
    await spawnService(testEnv(dirs[1], { ...env, AUDIT_STRICT: 'true' })),
  ];
  try {
    const modes: Mode[] = [];
    for (const [i, s] of services.entries()) {
      const url = `http://127.0.0.1:${s.port}`;
      while ((await fetch(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
      modes.push({
        name: i === 0 ? 'default' : 'strict',
        url,
        auth: `Bearer ${(await createCustomerToken(url, 1_000_000_000, 'bench')).token}`,
      });
    }
    const loads: string[] = [];
    const cases: { name: string; run: (m: Mode) => Promise<number> }[] = [];
    for (const connections of [64, 8]) {
      for (const [what, value] of [
        ['match', XBT],
        ['no match', NO_MATCH],
      ]) {
        cases.push({
          name: `/screen/crypto ${what}, ${connections} connections (req/s)`,
          run: async (m) => {
            const r = await wrk(`${m.url}/api/v1/screen/crypto/${value}`, {
              seconds: SECONDS,
              connections,
              headers: { authorization: m.auth },
            });
            if (r.non2xx > 0 || r.errors > 0) throw new Error(`${m.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
            return r.rps;
          },
        });
      }
    }
    for (const inFlight of [8, 2])
      cases.push({
        name: `batches of ${BATCH_ITEMS} listed values, ${inFlight} in flight (values/s)`,
        run: (m) => batchRate(m.url, m.auth, inFlight, SECONDS),
      });
    const results = new Map<string, { default: number[]; strict: number[] }>();
    for (const c of cases) results.set(c.name, { default: [], strict: [] });
    // Warm-up, discarded: both services compile the paths before the first measured round.
    for (const m of modes) for (const c of cases) await c.run(m).catch(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      loads.push(readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '));
      for (const c of cases) {
        const order = round % 2 === 0 ? modes : [...modes].reverse();
        for (const m of order) results.get(c.name)![m.name].push(await c.run(m));
      }
    }
    const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
    const lines = [
      `### AUDIT_STRICT (audit log, group fsync) against the default mode (${SECONDS} s × ${ROUNDS} interleaved rounds, medians)`,
      '',
      `Load average at each round's start: ${loads.join('; ')}.`,
      '',
      '| case | default | strict | strict ÷ default, median of the rounds (range) |',
      '|---|---:|---:|---:|',
      ...cases.map((c) => {
        const r = results.get(c.name)!;
        const ratios = r.strict.map((s, i) => s / r.default[i]);
        const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
        return `| ${c.name} | ${fmt(median(r.default))} | ${fmt(median(r.strict))} | ${pct(median(ratios))} (${pct(Math.min(...ratios))}–${pct(Math.max(...ratios))}) |`;
      }),
      '',
    ];
    console.log(lines.join('\n'));
  } finally {
    const exited = services.map((s) => once(s.child, 'exit'));
    for (const s of services) s.child.kill('SIGTERM');
    await Promise.all(exited);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
