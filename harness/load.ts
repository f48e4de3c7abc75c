import { Agent, request } from 'node:http';

/**
 * Closed-loop HTTP load for the tests that run the service as a separate process and kill it
 * under load: `concurrency` clients, each sending its next request once the last one ended.
 */

/** What a client does when a request fails without an answer (the process is gone). */
export type LostConnection =
  /** Every client stops: the test kills the process once and counts what was answered before. */
  | 'stop'
  /** The client tries again after a pause, until stopped: the test watches a process stop by itself. */
  | 'retry';

function closedLoop(concurrency: number, one: () => Promise<'lost' | 'done'>, lost: LostConnection) {
  let running = true;
  const workers = Array.from({ length: concurrency }, async () => {
    while (running) {
      if ((await one()) === 'done') continue;
      if (lost === 'stop') running = false;
      else await new Promise((r) => setTimeout(r, 5));
    }
  });
  return async () => {
    running = false;
    await Promise.all(workers);
  };
}

export interface ScreeningLoadOptions {
  concurrency: number;
  onLostConnection: LostConnection;
}

/**
 * Single screenings of `path` with `token` on keep-alive connections: counts 200 answers, 503s
 * that close their connection (a stopping service refuses so), and any other answer as an error.
 */
export function screeningLoad(url: string, path: string, token: string, opts: ScreeningLoadOptions) {
  let ok = 0;
  let refused = 0;
  const errors: string[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const one = () =>
    new Promise<'lost' | 'done'>((resolve) => {
      const req = request(`${url}${path}`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          if (res.statusCode === 200) ok++;
          else if (res.statusCode === 503 && res.headers.connection === 'close') refused++;
          else errors.push(`${res.statusCode} ${res.headers.connection ?? ''} ${body}`);
          resolve('done');
        });
        res.on('error', () => resolve('done'));
      });
      req.on('error', () => resolve('lost'));
      req.end();
    });
  const stop = closedLoop(opts.concurrency, one, opts.onLostConnection);
  return {
    get ok() {
      return ok;
    },
    async stop() {
      await stop();
      agent.destroy();
      return { ok, refused, errors };
    },
  };
}

/**
 * Batches of `items` copies of one crypto value on `lists` from `concurrency` clients until
 * stopped (a lost connection is retried): the lines each request delivered (by X-Request-Id),
 * counted as they arrive, whole or cut off by a kill.
 */
export function batchLoad(
  url: string,
  token: string,
  batch: { value: string; lists: string; items: number; concurrency: number },
) {
  const delivered = new Map<string, number>();
  const errors: string[] = [];
  let whole = 0;
  const body = JSON.stringify({
    items: Array.from({ length: batch.items }, () => ({ type: 'crypto', value: batch.value })),
    lists: batch.lists,
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const one = () =>
    new Promise<'lost' | 'done'>((resolve) => {
      const req = request(`${url}/api/v1/screen/batch`, { method: 'POST', headers }, (res) => {
        const id = String(res.headers['x-request-id']);
        let lines = 0;
        res.on('data', (d: Buffer) => {
          for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++;
          delivered.set(id, lines);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) errors.push(`${res.statusCode}`);
          else if (lines === batch.items) whole++;
          resolve('done');
        });
        res.on('error', () => resolve('done'));
        res.on('close', () => resolve('done'));
      });
      req.on('error', () => resolve('lost'));
      req.end(body);
    });
  const stop = closedLoop(batch.concurrency, one, 'retry');
  return {
    get whole() {
      return whole;
    },
    async stop() {
      await stop();
      return { delivered, errors };
    },
  };
}

/**
 * A sender of one batch `body` (of `items` values) on keep-alive connections, for benchmarks:
 * each call resolves once all `items` lines arrived with a 200 and rejects otherwise. Lines are
 * counted in the bytes as they arrive: decoding the answer would cost the client a CPU.
 */
export function batchSender(url: string, auth: string, body: Buffer, items: number) {
  const target = new URL(`${url}/api/v1/screen/batch`);
  const agent = new Agent({ keepAlive: true });
  const headers = { authorization: auth, 'content-type': 'application/json', 'content-length': String(body.length) };
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers },
        (res) => {
          let lines = 0;
          res.on('data', (chunk: Buffer) => {
            for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
          });
          res.on('end', () =>
            res.statusCode === 200 && lines === items
              ? resolve()
              : reject(new Error(`batch failed: ${res.statusCode}, ${lines} lines`)),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}
