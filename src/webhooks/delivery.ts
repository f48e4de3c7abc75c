import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Db } from '../store/db.js';
import { afterAttempt, postEvent, type AttemptOutcome, type PostEventOptions, type RetryPolicy } from './attempt.js';
import {
  claimDueDeliveries,
  deliveryToSend,
  INTERRUPTED_ERROR,
  recordAttemptOutcome,
  recordAttemptStart,
  type ClaimedDelivery,
} from './claims.js';
import { createDeliveryMetrics, type DeliveryMetrics } from './delivery-metrics.js';
import type { Lookup, UrlPolicy } from './ssrf.js';

/**
 * Delivers the outbox. Several nodes may run a worker on one database: due deliveries are
 * claimed with `FOR UPDATE SKIP LOCKED` and leased (`locked_until`) for the attempt, which runs
 * outside any transaction; a node that dies mid-attempt leaves the lease to expire and another
 * node retries. Pending deliveries live in the database, so a restart resumes them.
 *
 * An attempt re-checks the URL (SSRF guard) and connects to the address it checked, signs the
 * stored body with the endpoint's current secret, and POSTs it. Any 2xx within `timeoutMs`
 * (10 s) acknowledges; other statuses (3xx included: redirects are not followed), timeouts and
 * connection errors are failed attempts, retried after RETRY_SCHEDULE_MS[n] ± 20 % jitter. After
 * the last attempt (10 in all, the last ~22 h after the first) the delivery is `failed`. An
 * attempt is logged before its POST leaves: one whose node died during it shows as interrupted.
 *
 * Isolation: at most `perEndpointConcurrency` attempts per endpoint are in flight across the
 * claim (and within this node), and each poll claims at most that many per endpoint, so a slow
 * or dead endpoint's backlog never crowds out the others; attempts run concurrently and the poll
 * never waits for them.
 */

/** Wait after the n-th failed attempt (n = 1..9); 10 attempts span about 21.9 hours. */
const RETRY_SCHEDULE_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 3600_000,
  6 * 3600_000,
  12 * 3600_000,
];

export interface WebhookDeliveryOptions {
  db: Db;
  log: Logger;
  now?: () => number;
  policy: UrlPolicy;
  lookup?: Lookup;
  /** Poll interval of the outbox (default 1000 ms). */
  pollIntervalMs?: number;
  /** Acknowledgement deadline (default 10 000 ms). */
  timeoutMs?: number;
  /** Waits after each failed attempt; attempts = length + 1 (default RETRY_SCHEDULE_MS). */
  retryDelaysMs?: readonly number[];
  /** Relative jitter of the waits (default 0.2). */
  jitter?: number;
  random?: () => number;
  /** Attempts in flight on this node (default 32). */
  maxConcurrency?: number;
  /** Attempts in flight per endpoint (default 4). */
  perEndpointConcurrency?: number;
  /** Lease of a claimed delivery (default timeout + 30 s). */
  leaseMs?: number;
  /** prom-client registry for the delivery metrics (default: a private one). */
  registry?: Registry;
}

export interface WebhookDelivery {
  start(): void;
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>;
  /** Claims the deliveries due now and waits for their attempts; returns how many were attempted. */
  runOnce(): Promise<number>;
}

/** The worker's settings, defaults applied. */
interface DeliverySettings {
  db: Db;
  log: Logger;
  now: () => number;
  retry: RetryPolicy;
  maxConcurrency: number;
  perEndpoint: number;
  leaseMs: number;
  pollMs: number;
  /** This process, as the log names the node of an attempt. */
  node: string;
  metrics: DeliveryMetrics;
  post: PostEventOptions;
}

function deliverySettings(opts: WebhookDeliveryOptions): DeliverySettings {
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const metrics = createDeliveryMetrics(opts.registry ?? new Registry());
  return {
    db: opts.db,
    log: opts.log,
    now,
    retry: {
      delays: opts.retryDelaysMs ?? RETRY_SCHEDULE_MS,
      jitter: opts.jitter ?? 0.2,
      random: opts.random ?? Math.random,
    },
    maxConcurrency: opts.maxConcurrency ?? 32,
    perEndpoint: opts.perEndpointConcurrency ?? 4,
    leaseMs: opts.leaseMs ?? timeoutMs + 30_000,
    pollMs: opts.pollIntervalMs ?? 1000,
    node: `${hostname()}:${process.pid}`,
    metrics,
    post: { policy: opts.policy, lookup: opts.lookup, timeoutMs, now, latency: metrics.latency },
  };
}

/**
 * One attempt of a claimed delivery, top to bottom: read what to send, log the attempt as
 * started, POST, record the outcome and when to retry.
 */
async function attemptDelivery(s: DeliverySettings, deliveryId: number): Promise<void> {
  const toSend = await deliveryToSend(s.db, deliveryId);
  if (!toSend) return;
  const { url, secret, event } = toSend;
  const n = await startAttempt(s, deliveryId, event.id);
  if (n === null) return;
  const out = await postEvent(url, secret, event, s.post);
  s.metrics.attemptsTotal.labels(out.kind).inc();
  await recordOutcome(s, deliveryId, event.id, n, out);
}

/** Logs attempt n as started (see recordAttemptStart); null when there is none to make. */
async function startAttempt(s: DeliverySettings, deliveryId: number, eventId: string): Promise<number | null> {
  const fields = { delivery: deliveryId, event: eventId, node: s.node };
  const started = await recordAttemptStart(
    s.db,
    deliveryId,
    new Date(s.now()).toISOString(),
    s.retry.delays.length + 1,
  );
  for (const attempt of started.interrupted) {
    s.metrics.attemptsTotal.labels('interrupted').inc();
    s.log.info({ ...fields, attempt }, 'webhook attempt was interrupted');
  }
  if (started.failed) {
    s.metrics.outcomes.labels('failed').inc();
    s.log.warn({ ...fields, error: INTERRUPTED_ERROR }, 'webhook delivery failed for good');
  }
  return started.attempt;
}

/** Records attempt n's outcome: delivered, failed for good, or pending until the retry's time. */
async function recordOutcome(
  s: DeliverySettings,
  deliveryId: number,
  eventId: string,
  n: number,
  out: AttemptOutcome,
): Promise<void> {
  const { final, wait } = afterAttempt(n, out.ok, s.retry);
  const moved = await recordAttemptOutcome(s.db, deliveryId, n, out, {
    status: final,
    nextAttemptAt: new Date(s.now() + Math.round(wait)).toISOString(),
    completedAt: final === 'pending' ? null : new Date(s.now()).toISOString(),
  });
  if (!moved) return;
  if (final !== 'pending') s.metrics.outcomes.labels(final).inc();
  const fields = {
    delivery: deliveryId,
    event: eventId,
    attempt: n,
    status: out.status,
    ms: out.latencyMs,
    node: s.node,
  };
  if (final === 'failed') s.log.warn({ ...fields, error: out.error }, 'webhook delivery failed for good');
  else if (!out.ok)
    s.log.info({ ...fields, error: out.error, retry_in_ms: Math.round(wait) }, 'webhook attempt failed; will retry');
  else s.log.debug(fields, 'webhook delivered');
}

export function createWebhookDelivery(opts: WebhookDeliveryOptions): WebhookDelivery {
  const s = deliverySettings(opts);
  const inFlight = new Map<number, number>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let polling: Promise<unknown> | null = null;

  function claim(): Promise<ClaimedDelivery[]> {
    const capacity = s.maxConcurrency - running.size;
    if (capacity <= 0) return Promise.resolve([]);
    return claimDueDeliveries(s.db, {
      at: new Date(s.now()),
      capacity,
      perEndpoint: s.perEndpoint,
      leaseMs: s.leaseMs,
      inFlight,
    });
  }

  function launch(d: ClaimedDelivery): Promise<void> {
    inFlight.set(d.endpoint_id, (inFlight.get(d.endpoint_id) ?? 0) + 1);
    const p = attemptDelivery(s, d.id)
      .catch((err: unknown) =>
        s.log.error(
          { err, delivery: d.id },
          'webhook attempt could not be recorded; the lease expires and it is retried',
        ),
      )
      .finally(() => {
        const n = (inFlight.get(d.endpoint_id) ?? 1) - 1;
        if (n <= 0) inFlight.delete(d.endpoint_id);
        else inFlight.set(d.endpoint_id, n);
        running.delete(p);
      });
    running.add(p);
    return p;
  }

  async function poll(): Promise<number> {
    try {
      const claimed = await claim();
      for (const d of claimed) void launch(d);
      return claimed.length;
    } catch (err) {
      s.log.error({ err }, 'webhook outbox poll failed');
      return 0;
    }
  }

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      polling = poll()
        // A full claim means more may be due: poll again at once.
        .then((n) => schedule(n > 0 && running.size < s.maxConcurrency ? 0 : s.pollMs))
        .finally(() => {
          polling = null;
        });
    }, delay);
    timer.unref();
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await polling;
      await Promise.all([...running]);
    },
    async runOnce() {
      const claimed = await claim();
      await Promise.all(claimed.map(launch));
      return claimed.length;
    },
  };
}
