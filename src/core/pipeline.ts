import type { Logger } from 'pino';
import {
  Accepted,
  Created,
  RawResponse,
  type AnyEndpoint,
  type AuditMatch,
  type Caller,
  type RequestContext,
  type RequestMeta,
  type ScreeningBasis,
} from './endpoint.js';
import { HttpError, statusOf } from './errors.js';
import type { Charge, Gate } from './gate.js';
import {
  fingerprint,
  IDEMPOTENCY_HEADER,
  idempotencyKey,
  paymentDigest,
  type Idempotency,
  type StoredOutcome,
} from './idempotency.js';

/**
 * The request pipeline after validation, identical for every transport (REST, /trpc, batch, MCP):
 * authenticate and charge → handler → audit/usage → settle → answer. The caller validated the
 * input first, so an invalid request never reaches the gate and never costs anything.
 */
export interface PipelineDeps {
  gate: Gate;
  log: Logger;
  now: () => number;
  /** Check every JSON answer against the endpoint's output schema (a contract bug becomes a 500 here, not a silent drift). */
  validateOutput: boolean;
  /** Outcomes of metered requests sent with an Idempotency-Key; without it the header is ignored. */
  idempotency?: Idempotency;
}

export interface Outcome {
  status: number;
  /** JSON body (when not raw). */
  body?: unknown;
  raw?: RawResponse;
  headers: Record<string, string>;
  caller: Caller;
}

const ANONYMOUS: Caller = { kind: 'anonymous' };

/**
 * The handler's context. Its logger is a child bound to the request id, made on first use: a pino
 * child costs several microseconds, and most requests never log.
 */
class Context implements RequestContext {
  private child: Logger | undefined;
  basis: ScreeningBasis | undefined;
  credits: number | undefined;

  constructor(
    readonly meta: RequestMeta,
    readonly caller: Caller,
    private readonly deps: PipelineDeps,
  ) {}

  get now(): () => number {
    return this.deps.now;
  }

  get log(): Logger {
    return (this.child ??= this.deps.log.child({ reqId: this.meta.requestId }));
  }
}

/**
 * Runs an endpoint for validated input. The outcome is returned synchronously when every step
 * is (a cached token, leased quota, an exact-kind answer, buffered audit rows), so the transport
 * can answer within the same turn without a promise; otherwise it is a promise. Failures are
 * always rejected promises.
 */
export function execute(
  endpoint: AnyEndpoint,
  input: unknown,
  meta: RequestMeta,
  deps: PipelineDeps,
): Outcome | Promise<Outcome> {
  try {
    if (meta.headers[IDEMPOTENCY_HEADER] !== undefined && endpoint.access === 'metered' && deps.idempotency) {
      return executeOnce(endpoint, input, meta, deps, deps.idempotency);
    }
    if (endpoint.access === 'public') {
      const result: unknown = endpoint.handler(input, new Context(meta, ANONYMOUS, deps));
      if (result instanceof Promise) return result.then((r) => publicAnswer(endpoint, r, deps));
      return publicAnswer(endpoint, result, deps);
    }
    const charge = deps.gate.authorize(endpoint, input, meta);
    if (charge instanceof Promise) return charge.then((c) => charged(endpoint, input, meta, deps, c));
    return charged(endpoint, input, meta, deps, charge);
  } catch (err) {
    return Promise.reject(err);
  }
}

function publicAnswer(endpoint: AnyEndpoint, result: unknown, deps: PipelineDeps): Outcome {
  checkOutput(endpoint, result, deps);
  return answer(result, NO_HEADERS, ANONYMOUS);
}

/** Handler → audit/usage → settle, for a request the gate let through with `charge`. */
function charged(
  endpoint: AnyEndpoint,
  input: unknown,
  meta: RequestMeta,
  deps: PipelineDeps,
  charge: Charge,
): Outcome | Promise<Outcome> {
  const fail = (err: unknown): never => {
    charge.release({ status: statusOf(err) });
    throw err;
  };
  let result: unknown;
  const ctx = new Context(meta, charge.caller, deps);
  try {
    result = endpoint.handler(input, ctx);
  } catch (err) {
    return fail(err);
  }
  if (result instanceof Promise) return result.then((r) => commit(endpoint, input, deps, charge, r, ctx), fail);
  return commit(endpoint, input, deps, charge, result, ctx);
}

function commit(
  endpoint: AnyEndpoint,
  input: unknown,
  deps: PipelineDeps,
  charge: Charge,
  result: unknown,
  ctx: Context,
): Outcome | Promise<Outcome> {
  let audit: AuditMatch[];
  try {
    checkOutput(endpoint, result, deps);
    audit =
      endpoint.audit &&
      !(result instanceof RawResponse) &&
      !(result instanceof Accepted) &&
      !(result instanceof Created)
        ? endpoint.audit(input, result, ctx)
        : [];
  } catch (err) {
    charge.release({ status: 500 });
    throw err;
  }
  const committed = charge.commit({ status: 200, audit, credits: ctx.credits });
  if (committed instanceof Promise)
    return committed.then((c) => answer(result, withBasis(c.headers, ctx.basis), charge.caller));
  return answer(result, withBasis(committed.headers, ctx.basis), charge.caller);
}

const NO_HEADERS: Record<string, string> = {};

/** The commit's headers (a payment receipt) and the screening basis's; the basis's own object when the commit has none. */
function withBasis(headers: Record<string, string>, basis: ScreeningBasis | undefined): Record<string, string> {
  if (basis === undefined) return headers;
  for (const _ in headers) return { ...headers, ...basis.headers };
  return basis.headers as Record<string, string>;
}

/** Marks an answer given from the idempotency store. */
const REPLAYED_HEADER = 'Idempotency-Replayed';

/** Who a key belongs to: a customer, or an x402 payer; null for a caller charged nothing (no key is kept). */
function scopeOf(caller: Caller): string | null {
  if (caller.kind === 'customer') return `customer:${caller.customerId}`;
  if (caller.kind === 'payer') return `payer:${caller.address.toLowerCase()}`;
  return null;
}

function paymentHeader(meta: RequestMeta): string | undefined {
  return meta.headers.authorization === undefined
    ? (meta.headers['payment-signature'] ?? meta.headers['x-payment'])
    : undefined;
}

/**
 * A request that will be charged (or that replays): the key is checked and claimed, the stored
 * answer replayed instead of running (and charging) again. The same payment header with the same
 * key replays before anything is verified: that authorization was settled once already.
 */
interface Keyed {
  key: string;
  print: string;
  store: Idempotency;
  /** A stored answer to give instead of running. */
  replay?: StoredOutcome;
  /** Set once claimed: where to store the answer, or to release the key when the request fails. */
  scope?: string;
}

async function claimKey(
  endpoint: AnyEndpoint,
  input: unknown,
  meta: RequestMeta,
  deps: PipelineDeps,
  store: Idempotency,
): Promise<{ keyed: Keyed; charge?: Charge }> {
  const key = idempotencyKey(meta.headers)!;
  const keyed: Keyed = { key, print: fingerprint(endpoint.id, input), store };
  const payment = paymentHeader(meta);
  if (payment !== undefined) {
    const stored = await store.byPayment(paymentDigest(payment), key, keyed.print);
    if (stored) return { keyed: { ...keyed, replay: stored } };
  }
  const c = await deps.gate.authorize(endpoint, input, meta);
  const scope = scopeOf(c.caller);
  if (scope === null) return { keyed, charge: c };
  try {
    const claim = await store.claim(
      scope,
      key,
      keyed.print,
      payment !== undefined && c.caller.kind === 'payer' ? paymentDigest(payment) : null,
    );
    if (claim.kind === 'replay') {
      c.release({ status: 200 });
      return { keyed: { ...keyed, replay: claim.outcome } };
    }
  } catch (err) {
    c.release({ status: statusOf(err) });
    throw err;
  }
  return { keyed: { ...keyed, scope }, charge: c };
}

/** The stored answer as an outcome: the same body and headers, marked as a replay. */
function replayed(outcome: StoredOutcome, caller: Caller): Outcome {
  return {
    status: 200,
    body: JSON.parse(outcome.body) as unknown,
    headers: { ...outcome.headers, [REPLAYED_HEADER]: 'true' },
    caller,
  };
}

/** Stores what was answered for a claimed key; a failure to store is logged, the answer goes out all the same. */
async function storeAnswer(keyed: Keyed, deps: PipelineDeps, outcome: StoredOutcome): Promise<void> {
  if (!keyed.scope) return;
  await keyed.store
    .complete(keyed.scope, keyed.key, outcome)
    .catch((err: unknown) => deps.log.error({ err }, 'idempotent outcome not stored'));
}

async function releaseKey(keyed: Keyed, deps: PipelineDeps): Promise<void> {
  if (!keyed.scope) return;
  await keyed.store
    .abandon(keyed.scope, keyed.key)
    .catch((err: unknown) => deps.log.error({ err }, 'idempotency key not released'));
}

async function executeOnce(
  endpoint: AnyEndpoint,
  input: unknown,
  meta: RequestMeta,
  deps: PipelineDeps,
  store: Idempotency,
): Promise<Outcome> {
  const { keyed, charge } = await claimKey(endpoint, input, meta, deps, store);
  if (keyed.replay) return replayed(keyed.replay, ANONYMOUS);
  try {
    const outcome = await charged(endpoint, input, meta, deps, charge!);
    await storeAnswer(keyed, deps, { headers: outcome.headers, body: JSON.stringify(outcome.body) });
    return outcome;
  } catch (err) {
    await releaseKey(keyed, deps);
    throw err;
  }
}

/** A streamed answer under way: its outcome, and `delivered` to call once the transport knows how much of it went out. */
export interface Streamed {
  /** A replayed answer (Idempotency-Key) is `raw`: sent as stored. */
  outcome: Outcome;
  /**
   * Records usage and audit rows for the first `count` elements of the answer (all of them when
   * the charge was settled before the answer). Resolves once recorded; with AUDIT_STRICT, a
   * failure rejects, and the transport must not complete the answer. `text` writes the answer's
   * elements as the text that was sent, to store for an Idempotency-Key (asked only then, and only
   * when it all went out).
   */
  delivered(count: number, text: (elements: readonly unknown[]) => string): Promise<void>;
  /**
   * AUDIT_STRICT: true when the transport must `record` each part of the answer before sending it,
   * so no element leaves before its rows are stored.
   */
  readonly recordsParts: boolean;
  /** Stores the rows of elements `from` to `to` (exclusive); rejects when they cannot be, and they must not be sent. */
  record(from: number, to: number): Promise<void>;
}

/**
 * A streamed answer's charge, settled by `delivered`. A class, not a closure over the request: a
 * closure over the answer, created while it streams, made V8 promote the whole batch at every
 * scavenge (docs/performance.md).
 */
class StreamedAnswer implements Streamed {
  constructor(
    readonly outcome: Outcome,
    private readonly all: readonly unknown[],
    private readonly charge: Charge,
    private readonly keyed: Keyed | undefined,
    private readonly endpoint: AnyEndpoint,
    private readonly input: unknown,
    private readonly ctx: Context,
    private readonly deps: PipelineDeps,
  ) {}

  get recordsParts(): boolean {
    return this.charge.record !== undefined && !this.charge.settlesBeforeAnswer;
  }

  async record(from: number, to: number): Promise<void> {
    const part = this.all.slice(from, to);
    const credits = this.endpoint.deliveredCredits!(part);
    const audit = this.endpoint.audit ? this.endpoint.audit(this.input, part, this.ctx) : [];
    if (credits > 0 || audit.length > 0) await this.charge.record!({ audit, credits });
  }

  async delivered(count: number, text: (elements: readonly unknown[]) => string): Promise<void> {
    const { all, charge, keyed, endpoint, deps } = this;
    const whole = count >= all.length;
    try {
      if (!charge.settlesBeforeAnswer) {
        const sent = whole ? all : all.slice(0, count);
        const credits = endpoint.deliveredCredits!(sent);
        if (credits === 0) charge.release({ status: 200 });
        else
          await charge.commit({
            status: 200,
            audit: endpoint.audit ? endpoint.audit(this.input, sent, this.ctx) : [],
            credits,
          });
      }
    } catch (err) {
      if (keyed) await releaseKey(keyed, deps);
      throw err;
    }
    if (!keyed) return;
    if (whole) await storeAnswer(keyed, deps, { headers: this.outcome.headers, body: text(all) });
    else await releaseKey(keyed, deps);
  }
}

const NOTHING_TO_RECORD = () => Promise.resolve();

/** A streamed answer with nothing to charge or record (public, or replayed). */
const unrecorded = (outcome: Outcome): Streamed => ({
  outcome,
  delivered: NOTHING_TO_RECORD,
  recordsParts: false,
  record: NOTHING_TO_RECORD,
});

/**
 * The pipeline for an endpoint whose answer is an array streamed element by element (batch
 * screening): validate → authorize → handler, then the charge waits until the transport knows
 * how many elements it delivered, so an answer cut off (client gone, shutdown deadline) is
 * charged and audited only for what was sent. A charge settled before the answer (x402, whose
 * receipt is a header) is committed up front, for the whole answer. With an Idempotency-Key, a
 * whole answer is stored; one cut off releases its key (the retry runs, and is charged, anew).
 */
export async function executeStreamed(
  endpoint: AnyEndpoint,
  input: unknown,
  meta: RequestMeta,
  deps: PipelineDeps,
): Promise<Streamed> {
  if (endpoint.access === 'public' || !endpoint.deliveredCredits) {
    return unrecorded(await execute(endpoint, input, meta, deps));
  }
  let keyed: Keyed | undefined;
  let charge: Charge;
  if (meta.headers[IDEMPOTENCY_HEADER] !== undefined && deps.idempotency) {
    const claimed = await claimKey(endpoint, input, meta, deps, deps.idempotency);
    keyed = claimed.keyed;
    if (keyed.replay) {
      const raw = new RawResponse('application/x-ndjson', keyed.replay.body);
      return unrecorded({
        status: 200,
        raw,
        headers: { ...keyed.replay.headers, [REPLAYED_HEADER]: 'true' },
        caller: ANONYMOUS,
      });
    }
    charge = claimed.charge!;
  } else {
    charge = await deps.gate.authorize(endpoint, input, meta);
  }
  let result: unknown;
  let outcome: Outcome;
  const ctx = new Context(meta, charge.caller, deps);
  try {
    result = await endpoint.handler(input, ctx);
    checkOutput(endpoint, result, deps);
    outcome = charge.settlesBeforeAnswer
      ? await commit(endpoint, input, deps, charge, result, ctx)
      : answer(result, withBasis(NO_HEADERS, ctx.basis), charge.caller);
  } catch (err) {
    charge.release({ status: statusOf(err) });
    if (keyed) await releaseKey(keyed, deps);
    throw err;
  }
  return new StreamedAnswer(outcome, result as unknown[], charge, keyed, endpoint, input, ctx, deps);
}

function answer(result: unknown, headers: Record<string, string>, caller: Caller): Outcome {
  if (result instanceof RawResponse)
    return { status: 200, raw: result, headers: { ...result.headers, ...headers }, caller };
  if (result instanceof Accepted)
    return { status: 202, body: result.body, headers: { ...result.headers, ...headers }, caller };
  if (result instanceof Created) return { status: 201, body: result.body, headers, caller };
  return { status: 200, body: result, headers, caller };
}

/** With `validateOutput`, a JSON answer that breaks its schema fails before anything is charged. */
function checkOutput(endpoint: AnyEndpoint, result: unknown, deps: PipelineDeps): void {
  if (!deps.validateOutput || result instanceof RawResponse) return;
  const parsed = endpoint.output.safeParse(
    result instanceof Accepted || result instanceof Created ? result.body : result,
  );
  if (!parsed.success) {
    throw new Error(
      `response of ${endpoint.id} violates its schema: ${parsed.error.issues.map((i: { path: PropertyKey[]; message: string }) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ')}`,
    );
  }
}

/** The HTTP answer of any error: HttpError as it says, anything else a logged 500. */
export function errorOutcome(err: unknown, log: Logger, meta: RequestMeta): Omit<Outcome, 'caller'> {
  if (err instanceof HttpError) return { status: err.status, body: err.toBody(), headers: err.headers };
  log.error({ reqId: meta.requestId, err }, 'unhandled error');
  return { status: 500, body: { detail: 'Internal Server Error' }, headers: {} };
}
