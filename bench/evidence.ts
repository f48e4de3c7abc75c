/**
 * What keeping each match's evidence (and its alert) costs a batch: a 10,000-item `/screen/batch`
 * with a third of the items listed (two matches each, bench/http.ts's shape) on this build and
 * on another build side by side, each service in its own process on its own DATA_DIR.
 *   node dist/bench/evidence.js --parent DIR [--rounds N] [--seconds S] [--in-flight N]
 * `--parent DIR`: a checkout of another commit, built (`node scripts/build.mjs`). Rounds alternate
 * which build goes first (A B, then B A, ...); a round's ratio is this build's values/s over the
 * parent's in that round, so a slow spell of the shared machine touches both. Prints a markdown
 * section on stdout with the load average before and after.
 */
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../harness/service.js';
import { median } from './wrk.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const PARENT = arg('parent', '');
const ROUNDS = Number(arg('rounds', '6'));
const SECONDS = Number(arg('seconds', '8'));
const IN_FLIGHT = Number(arg('in-flight', '1'));
const ITEMS = 10_000;
const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

/** bench/http.ts's batch: a third unlisted crypto, a third unlisted e-mail, a third the listed XBT. */
const BODY = Buffer.from(
  JSON.stringify({
    items: Array.from({ length: ITEMS }, (_, i) =>
      i % 3 === 0
        ? { type: 'crypto', value: `0x${i.toString(16).padStart(40, '0')}` }
        : i % 3 === 1
          ? { type: 'email', value: `user${i}@example${i % 97}.com` }
          : { type: 'crypto', value: XBT },
    ),
  }),
);

interface Target {
  name: string;
  url: string;
  auth: string;
  agent: Agent;
}

/** One batch; resolves once its 10,000 lines arrived with a 200. */
function screenBatch(t: Target): Promise<void> {
  const target = new URL(`${t.url}/api/v1/screen/batch`);
  return new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: t.agent,
        headers: { authorization: t.auth, 'content-type': 'application/json', 'content-length': String(BODY.length) },
      },
      (res) => {
        let lines = 0;
        res.on('data', (chunk: Buffer) => {
          for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
        });
        res.on('end', () =>
          res.statusCode === 200 && lines === ITEMS
            ? resolve()
            : reject(new Error(`${t.name}: batch failed: ${res.statusCode}, ${lines} lines`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

/** Values screened per second over `ms`, `IN_FLIGHT` batches at a time. */
async function rate(t: Target, ms: number): Promise<number> {
  let batches = 0;
  const started = performance.now();
  const until = started + ms;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < until) {
        await screenBatch(t);
        batches++;
      }
    }),
  );
  return (batches * ITEMS * 1000) / (performance.now() - started);
}

async function main() {
  if (!PARENT) throw new Error('usage: evidence --parent DIR [--rounds N] [--seconds S] [--in-flight N]');
  const load0 = loadavg();
  const env = { LOG_LEVEL: 'warn', ENGINE_SHARDS: '2' };
  const dirs = [await prepareDataDir(), await prepareDataDir()];
  const mine = await spawnService({ ...testEnv(dirs[0], env), LOG_LEVEL: 'info' }, { compiled: true });
  const parent = await spawnService({ ...testEnv(dirs[1], env), LOG_LEVEL: 'info' }, { root: PARENT });
  try {
    const targets: Target[] = [];
    for (const [name, port] of [
      ['this build', mine.port],
      ['parent', parent.port],
    ] as const) {
      const url = `http://127.0.0.1:${port}`;
      while ((await fetch(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
      const { token } = await createCustomerToken(url, 1_000_000_000, 'bench evidence');
      targets.push({ name, url, auth: `Bearer ${token}`, agent: new Agent({ keepAlive: true }) });
    }
    // Warm-up (discarded): both builds compile the batch path.
    for (const t of targets) await rate(t, 3000);
    const rates: [number, number][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const r: [number, number] = [0, 0];
      for (const i of order) r[i] = await rate(targets[i], SECONDS * 1000);
      rates.push(r);
    }
    const load1 = loadavg();
    const ratios = rates.map(([a, b]) => a / b);
    const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
    const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
    console.log(
      [
        `### Batch of ${ITEMS.toLocaleString('en-US')} (a third listed, 2 matches each): this build against ${PARENT}`,
        '',
        `${ROUNDS} rounds × ${SECONDS} s per build, ${IN_FLIGHT} batch(es) in flight, order alternating; load average ${load0.map((l) => l.toFixed(2)).join(' ')} before, ${load1.map((l) => l.toFixed(2)).join(' ')} after.`,
        '',
        '| round | this build values/s | parent values/s | this ÷ parent |',
        '|---:|---:|---:|---:|',
        ...rates.map(([a, b], i) => `| ${i + 1} | ${fmt(a)} | ${fmt(b)} | ${pct(a / b)} |`),
        `| median | ${fmt(median(rates.map((r) => r[0])))} | ${fmt(median(rates.map((r) => r[1])))} | ${pct(median(ratios))} (${pct(Math.min(...ratios))}–${pct(Math.max(...ratios))}) |`,
        '',
      ].join('\n'),
    );
    for (const t of targets) t.agent.destroy();
  } finally {
    // Their DATA_DIRs are removed once they stopped (a stopping service still writes there).
    await Promise.all(
      [mine.child, parent.child].map((c) => {
        const exited = once(c, 'exit');
        c.kill('SIGTERM');
        return exited;
      }),
    );
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
