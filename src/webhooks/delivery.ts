import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Db } from '../store/db.js';
import { afterAttempt, postEvent, type PostEventOptions, type RetryPolicy } from './attempt.js';
import { createDeliveryMetrics } from './delivery-metrics.js';
import type { EventRow } from './events.js';
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
/**
 * The error of an attempt that never got an outcome: the node running it stopped (killed,
 * crashed) while its POST was out, so the receiver may have got it.
 */
export const INTERRUPTED_ERROR = 'interrupted: the service stopped during the attempt';

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

export function createWebhookDelivery(opts: WebhookDeliveryOptions): WebhookDelivery {
  const { db, log } = opts;
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retry: RetryPolicy = {
    delays: opts.retryDelaysMs ?? RETRY_SCHEDULE_MS,
    jitter: opts.jitter ?? 0.2,
    random: opts.random ?? Math.random,
  };
  const maxConcurrency = opts.maxConcurrency ?? 32;
  const perEndpoint = opts.perEndpointConcurrency ?? 4;
  const leaseMs = opts.leaseMs ?? timeoutMs + 30_000;
  const pollMs = opts.pollIntervalMs ?? 1000;
  const node = `${hostname()}:${process.pid}`;
  const { attemptsTotal, outcomes, latency } = createDeliveryMetrics(opts.registry ?? new Registry());
  const post: PostEventOptions = { policy: opts.policy, lookup: opts.lookup, timeoutMs, now, latency };

  const inFlight = new Map<number, number>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let polling: Promise<unknown> | null = null;

  /** Claims due deliveries within the concurrency limits; returns [delivery id, endpoint id] pairs. */
  async function claim(): Promise<{ id: number; endpoint_id: number }[]> {
    const capacity = maxConcurrency - running.size;
    if (capacity <= 0) return [];
    const at = new Date(now());
    const nowIso = at.toISOString();
    return db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: number; endpoint_id: number }>(
        `SELECT d.id, d.endpoint_id FROM webhook_deliveries d
         WHERE d.id IN (
           SELECT r.id FROM (
             SELECT x.id, row_number() OVER (PARTITION BY x.endpoint_id ORDER BY x.next_attempt_at, x.id) AS rn
             FROM webhook_deliveries x JOIN webhook_endpoints e ON e.id = x.endpoint_id
             WHERE x.status = 'pending' AND e.enabled AND x.next_attempt_at <= $1
               AND (x.locked_until IS NULL OR x.locked_until <= $1)
           ) r WHERE r.rn <= $2)
         ORDER BY d.next_attempt_at, d.id
         LIMIT $3
         FOR UPDATE OF d SKIP LOCKED`,
        [nowIso, perEndpoint, capacity],
      );
      if (rows.length === 0) return [];
      const endpoints = [...new Set(rows.map((r) => r.endpoint_id))];
      const leased = await tx.query<{ endpoint_id: number; n: number }>(
        `SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries
         WHERE status = 'pending' AND locked_until > $1 AND endpoint_id = ANY($2::int[]) GROUP BY endpoint_id`,
        [nowIso, endpoints],
      );
      const busy = new Map<number, number>(leased.rows.map((r) => [r.endpoint_id, r.n]));
      for (const [ep, n] of inFlight) busy.set(ep, Math.max(busy.get(ep) ?? 0, n));
      const taken = rows.filter((r) => {
        const n = busy.get(r.endpoint_id) ?? 0;
        if (n >= perEndpoint) return false;
        busy.set(r.endpoint_id, n + 1);
        return true;
      });
      if (taken.length > 0) {
        await tx.query('UPDATE webhook_deliveries SET locked_until = $2 WHERE id = ANY($1::int[])', [
          taken.map((r) => r.id),
          new Date(at.getTime() + leaseMs).toISOString(),
        ]);
      }
      return taken;
    });
  }

  /**
   * Records attempt n as started, with no outcome yet, before its POST leaves: a node killed
   * during the attempt leaves it in the log, and the receiver's POST is never unaccounted for. An
   * earlier attempt still without an outcome was interrupted that way (its lease expired, hence
   * this claim): it is marked so, and counts as a failed attempt. Null when the delivery is no
   * longer pending, or when the interrupted attempt was its last (the delivery is then failed).
   */
  async function recordStart(deliveryId: number, eventId: string, startedAt: string): Promise<number | null> {
    return db.transaction(async (tx) => {
      const cut = await tx.query<{ attempt: number }>(
        `UPDATE webhook_attempts SET error = $2 WHERE delivery_id = $1 AND status_code IS NULL AND error IS NULL
         RETURNING attempt`,
        [deliveryId, INTERRUPTED_ERROR],
      );
      for (const { attempt: n } of cut.rows) {
        attemptsTotal.labels('interrupted').inc();
        log.info({ delivery: deliveryId, event: eventId, attempt: n, node }, 'webhook attempt was interrupted');
      }
      const next = await tx.query<{ attempts: number }>(
        `UPDATE webhook_deliveries SET attempts = attempts + 1
         WHERE id = $1 AND status = 'pending' AND attempts <= $2 RETURNING attempts`,
        [deliveryId, retry.delays.length],
      );
      const n = next.rows[0]?.attempts;
      if (n === undefined) {
        const failed = await tx.query(
          `UPDATE webhook_deliveries SET status = 'failed', locked_until = NULL, last_status_code = NULL, last_error = $2,
             last_latency_ms = NULL, completed_at = $3
           WHERE id = $1 AND status = 'pending' RETURNING 1`,
          [deliveryId, INTERRUPTED_ERROR, startedAt],
        );
        if (failed.rows.length > 0) {
          outcomes.labels('failed').inc();
          log.warn(
            { delivery: deliveryId, event: eventId, node, error: INTERRUPTED_ERROR },
            'webhook delivery failed for good',
          );
        }
        return null;
      }
      await tx.query(
        'INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error) VALUES ($1, $2, $3, NULL, 0, NULL)',
        [deliveryId, n, startedAt],
      );
      return n;
    });
  }

  async function attempt(deliveryId: number): Promise<void> {
    // Read at attempt time: the current URL and secret (a rotation takes effect at once).
    const { rows } = await db.query<EventRow & { url: string; secret: string }>(
      `SELECT ev.id, ev.type, ev.created_at, ev.change_id, ev.monitored_entity_id, ev.entity_type, ev.value, ev.label, ev.listing, e.url, e.secret
       FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = $1 AND d.status = 'pending'`,
      [deliveryId],
    );
    if (!rows[0]) return;
    const { url, secret, ...event } = rows[0];
    const n = await recordStart(deliveryId, event.id, new Date(now()).toISOString());
    if (n === null) return;
    const out = await postEvent(url, secret, event, post);
    attemptsTotal.labels(out.kind).inc();
    await db.transaction(async (tx) => {
      await tx.query(
        'UPDATE webhook_attempts SET status_code = $3, latency_ms = $4, error = $5 WHERE delivery_id = $1 AND attempt = $2',
        [deliveryId, n, out.status, out.latencyMs, out.error],
      );
      const { final, wait } = afterAttempt(n, out.ok, retry);
      const updated = await tx.query(
        `UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, locked_until = NULL, last_status_code = $4,
           last_error = $5, last_latency_ms = $6, completed_at = $7 WHERE id = $1 AND status = 'pending' RETURNING 1`,
        [
          deliveryId,
          final,
          new Date(now() + Math.round(wait)).toISOString(),
          out.status,
          out.error,
          out.latencyMs,
          final === 'pending' ? null : new Date(now()).toISOString(),
        ],
      );
      if (updated.rows.length === 0) return;
      if (final !== 'pending') outcomes.labels(final).inc();
      const fields = { delivery: deliveryId, event: event.id, attempt: n, status: out.status, ms: out.latencyMs, node };
      if (final === 'failed') log.warn({ ...fields, error: out.error }, 'webhook delivery failed for good');
      else if (!out.ok)
        log.info({ ...fields, error: out.error, retry_in_ms: Math.round(wait) }, 'webhook attempt failed; will retry');
      else log.debug(fields, 'webhook delivered');
    });
  }

  function launch(d: { id: number; endpoint_id: number }): Promise<void> {
    inFlight.set(d.endpoint_id, (inFlight.get(d.endpoint_id) ?? 0) + 1);
    const p = attempt(d.id)
      .catch((err: unknown) =>
        log.error(
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

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      polling = claim()
        .then((claimed) => {
          for (const d of claimed) void launch(d);
          return claimed.length;
        })
        .catch((err: unknown) => {
          log.error({ err }, 'webhook outbox poll failed');
          return 0;
        })
        // A full claim means more may be due: poll again at once.
        .then((n) => schedule(n > 0 && running.size < maxConcurrency ? 0 : pollMs))
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
