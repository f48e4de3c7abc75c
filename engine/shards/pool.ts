import { Worker } from 'node:worker_threads';
import type { ShardOptions } from './shard-data.js';
import type { Control, ControlReply, FromShard, Query, QueryResult } from './protocol.js';

type Pending<T> = { resolve: (v: T) => void; reject: (e: Error) => void };
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Under tsx (tests, `npx tsx`, `node --import tsx`) the module URL ends in .ts. Node 20 does not
 * apply `--import tsx` to a worker's entry module, so a tiny eval'd bootstrap registers tsx's
 * hooks in the worker and then imports the TypeScript entry. Compiled builds load worker.js.
 */
function spawn(options: ShardOptions): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./worker.js', import.meta.url), { workerData: options });
  const entry = new URL('./worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: options });
}

/**
 * The shard workers and the messaging to them. Queries issued during one event-loop turn are
 * sent as one message per shard (at setImmediate), so a burst of requests costs one hop each
 * way per shard instead of one per request.
 */
export class ShardPool {
  private seq = 0;
  private qid = 0;
  private readonly control = new Map<number, Pending<ControlReply>>();
  private readonly queries = new Map<number, Pending<QueryResult>>();
  private readonly queued: Query[][];
  private scheduled = false;
  private failure: Error | null = null;

  private constructor(private readonly workers: Worker[]) {
    this.queued = workers.map(() => []);
    for (const w of workers) {
      w.on('message', (msg: FromShard) => this.receive(msg));
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => this.fail(new Error(`shard worker exited with code ${code}`)));
    }
  }

  static async start(count: number, options: ShardOptions): Promise<ShardPool> {
    const pool = new ShardPool(Array.from({ length: count }, () => spawn(options)));
    await Promise.all(pool.workers.map((_, i) => pool.send(i, { t: 'ping' })));
    return pool;
  }

  get size(): number {
    return this.workers.length;
  }

  /** A control message (load, finish, drop); resolves when the shard has applied it. */
  send(shard: number, msg: DistributiveOmit<Control, 'seq'>, transfer?: ArrayBuffer[]): Promise<ControlReply> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.control.set(seq, { resolve, reject });
      this.workers[shard].postMessage({ ...msg, seq }, transfer ?? []);
    });
  }

  query(shard: number, q: DistributiveOmit<Query, 'qid'>): Promise<QueryResult> {
    if (this.failure) return Promise.reject(this.failure);
    const qid = ++this.qid;
    return new Promise((resolve, reject) => {
      this.queries.set(qid, { resolve, reject });
      this.queued[shard].push({ ...q, qid } as Query);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    for (let i = 0; i < this.workers.length; i++) {
      const batch = this.queued[i];
      if (batch.length === 0) continue;
      this.queued[i] = [];
      this.workers[i].postMessage({ t: 'query', batch });
    }
  }

  private receive(msg: FromShard): void {
    if (msg.t === 'results') {
      for (const r of msg.results) {
        const p = this.queries.get(r.qid);
        this.queries.delete(r.qid);
        if (!p) continue;
        if (r.error) p.reject(new Error(r.error));
        else p.resolve(r);
      }
      return;
    }
    const p = this.control.get(msg.seq);
    this.control.delete(msg.seq);
    if (!p) return;
    if (msg.error) p.reject(new Error(msg.error));
    else p.resolve({ keys: msg.keys, table: msg.table });
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const p of this.control.values()) p.reject(e);
    for (const p of this.queries.values()) p.reject(e);
    this.control.clear();
    this.queries.clear();
  }

  async close(): Promise<void> {
    this.failure ??= new Error('engine closed');
    const workers = this.workers.splice(0);
    for (const w of workers) w.removeAllListeners('exit');
    await Promise.all(workers.map((w) => w.terminate()));
    for (const p of this.control.values()) p.reject(this.failure);
    for (const p of this.queries.values()) p.reject(this.failure);
  }
}
