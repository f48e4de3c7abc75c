import type { Histogram } from 'prom-client';
import { eventBody, type EventRow } from './events.js';
import { DeliveryTimeout, postPinned } from './http.js';
import { signWebhook, SIGNATURE_HEADER } from './signature.js';
import { resolveWebhookTarget, WebhookUrlError, type Lookup, type UrlPolicy } from './ssrf.js';

const USER_AGENT = 'Service-Webhooks/1.0';

/** What one POST of an event came to, as the attempt log records it. */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  latencyMs: number;
  kind: 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused';
}

export interface PostEventOptions {
  policy: UrlPolicy;
  lookup?: Lookup;
  timeoutMs: number;
  now: () => number;
  /** Observes the time to the response head of the POSTs that got one. */
  latency: Histogram;
}

/**
 * One attempt's POST: re-checks the URL (SSRF guard), connects to the address it checked, and
 * signs the body with `secret` at send time. Never throws: every failure is an outcome.
 */
export async function postEvent(
  url: string,
  secret: string,
  row: EventRow,
  opts: PostEventOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  let target;
  try {
    target = await resolveWebhookTarget(url, opts.policy, opts.lookup);
  } catch (err) {
    return {
      ok: false,
      status: null,
      error: `refused: ${(err as Error).message}`,
      latencyMs: ms(),
      kind: err instanceof WebhookUrlError ? 'refused' : 'network_error',
    };
  }
  const body = Buffer.from(eventBody(row), 'utf8');
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [SIGNATURE_HEADER]: signWebhook(body, secret, Math.floor(opts.now() / 1000)),
  };
  try {
    const status = await postPinned(target, body, headers, opts.timeoutMs);
    const latencyMs = ms();
    opts.latency.observe(latencyMs / 1000);
    return statusOutcome(status, latencyMs);
  } catch (err) {
    const timeout = err instanceof DeliveryTimeout;
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      status: null,
      error: timeout ? `timeout: ${(err as Error).message}` : `${code ?? 'error'}: ${(err as Error).message}`,
      latencyMs: ms(),
      kind: timeout ? 'timeout' : 'network_error',
    };
  }
}

/** Any 2xx acknowledges; a 3xx is a failure too, as redirects are not followed (they could lead past the SSRF guard). */
export function statusOutcome(status: number, latencyMs: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { ok: true, status, error: null, latencyMs, kind: 'success' };
  const error = status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`;
  return { ok: false, status, error, latencyMs, kind: 'http_error' };
}

export interface RetryPolicy {
  /** Waits after each failed attempt; attempts = length + 1. */
  delays: readonly number[];
  /** Relative jitter of the waits. */
  jitter: number;
  random: () => number;
}

/**
 * Where attempt `n` (1-based) leaves its delivery, and how long until the next attempt (0 when
 * none). Jitter spreads the retries of many deliveries that failed together.
 */
export function afterAttempt(
  n: number,
  ok: boolean,
  policy: RetryPolicy,
): { final: 'delivered' | 'failed' | 'pending'; wait: number } {
  const final = ok ? 'delivered' : n > policy.delays.length ? 'failed' : 'pending';
  const wait = ok || final === 'failed' ? 0 : policy.delays[n - 1] * (1 + policy.jitter * (2 * policy.random() - 1));
  return { final, wait };
}
