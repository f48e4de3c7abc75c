import { batchSender } from '../harness/load.js';
import { processTicks, TICK_US } from './proc-cpu.js';
import { median } from './wrk.js';

/** An exact-kind value matching two lists (OFAC SDN and its crypto list). */
export const LISTED_XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

export interface BatchRate {
  /** Values/s of the median batch. */
  median: number;
  /** Values/s over the whole run. */
  aggregate: number;
  /** The service's main-thread CPU per batch, ms (when its pid was given). */
  mainMsPerBatch: number | null;
}

/**
 * Batch screening end to end: 10,000-value batches of exact kinds (a third 0x addresses, a third
 * e-mails, a third `listed` or unlisted bech32 addresses), `inFlight` requests at a time for ~6 s
 * after 2 s of warm-up; the median values/s of the batches, and the aggregate. With `listed` a
 * third of the values hit two lists each: 6,667 audit rows per batch besides the usage row.
 * The client counts the answer's lines in the bytes as they arrive: `fetch` and decoding the
 * 1.5 MB answer into a string kept one of the machine's two CPUs busy beside the service, and
 * measured the same service 11% slower (median of 4 runs each).
 */
export async function batchRate(
  url: string,
  auth: string,
  listed: boolean,
  inFlight: number,
  pid?: number,
): Promise<BatchRate> {
  const items = Array.from({ length: 10_000 }, (_, i) =>
    i % 3 === 0
      ? { type: 'crypto', value: `0x${i.toString(16).padStart(40, '0')}` }
      : i % 3 === 1
        ? { type: 'email', value: `user${i}@example${i % 97}.com` }
        : { type: 'crypto', value: listed ? LISTED_XBT : `bc1q${i.toString(36).padStart(38, 'x')}` },
  );
  const body = Buffer.from(JSON.stringify({ items }));
  const batches = batchSender(url, auth, body, 10_000);
  const run = async (ms: number) => {
    const rates: number[] = [];
    const until = performance.now() + ms;
    const started = performance.now();
    const ticks0 = pid === undefined ? 0 : processTicks(pid).main;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          await batches.send();
          rates.push((10_000 / (performance.now() - t0)) * 1000);
        }
      }),
    );
    return {
      median: median(rates),
      aggregate: (rates.length * 10_000 * 1000) / (performance.now() - started),
      mainMsPerBatch: pid === undefined ? null : ((processTicks(pid).main - ticks0) * TICK_US) / 1000 / rates.length,
    };
  };
  // Warm-up (discarded): the batch path's code is not compiled by the rounds before it.
  await run(2000);
  const measured = await run(6000);
  batches.close();
  return measured;
}
