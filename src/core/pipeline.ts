import type { Logger } from 'pino';
import { Accepted, RawResponse, type AnyEndpoint, type AuditMatch, type Caller, type RequestContext, type RequestMeta, type ScreeningBasis } from './endpoint.js';
import { HttpError } from './errors.js';
import type { Charge, Gate } from './gate.js';

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
export function execute(endpoint: AnyEndpoint, input: unknown, meta: RequestMeta, deps: PipelineDeps): Outcome | Promise<Outcome> {
  try {
    if (endpoint.access === 'public') {
      const result = endpoint.handler(input, new Context(meta, ANONYMOUS, deps));
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
function charged(endpoint: AnyEndpoint, input: unknown, meta: RequestMeta, deps: PipelineDeps, charge: Charge): Outcome | Promise<Outcome> {
  const fail = (err: unknown): never => {
    charge.release({ status: err instanceof HttpError ? err.status : 500 });
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

function commit(endpoint: AnyEndpoint, input: unknown, deps: PipelineDeps, charge: Charge, result: unknown, ctx: Context): Outcome | Promise<Outcome> {
  let audit: AuditMatch[];
  try {
    checkOutput(endpoint, result, deps);
    audit = endpoint.audit && !(result instanceof RawResponse) && !(result instanceof Accepted) ? endpoint.audit(input, result, ctx) : [];
  } catch (err) {
    charge.release({ status: 500 });
    throw err;
  }
  const committed = charge.commit({ status: 200, audit });
  if (committed instanceof Promise) return committed.then((c) => answer(result, withBasis(c.headers, ctx.basis), charge.caller));
  return answer(result, withBasis(committed.headers, ctx.basis), charge.caller);
}

const NO_HEADERS: Record<string, string> = {};

/** The commit's headers (a payment receipt) and the screening basis's; the basis's own object when the commit has none. */
function withBasis(headers: Record<string, string>, basis: ScreeningBasis | undefined): Record<string, string> {
  if (basis === undefined) return headers;
  for (const _ in headers) return { ...headers, ...basis.headers };
  return basis.headers as Record<string, string>;
}

function answer(result: unknown, headers: Record<string, string>, caller: Caller): Outcome {
  if (result instanceof RawResponse) return { status: 200, raw: result, headers: { ...result.headers, ...headers }, caller };
  if (result instanceof Accepted) return { status: 202, body: result.body, headers: { ...result.headers, ...headers }, caller };
  return { status: 200, body: result, headers, caller };
}

/** With `validateOutput`, a JSON answer that breaks its schema fails before anything is charged. */
function checkOutput(endpoint: AnyEndpoint, result: unknown, deps: PipelineDeps): void {
  if (!deps.validateOutput || result instanceof RawResponse) return;
  const parsed = endpoint.output.safeParse(result instanceof Accepted ? result.body : result);
  if (!parsed.success) {
    throw new Error(`response of ${endpoint.id} violates its schema: ${parsed.error.issues.map((i: { path: PropertyKey[]; message: string }) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ')}`);
  }
}

/** The HTTP answer of any error: HttpError as it says, anything else a logged 500. */
export function errorOutcome(err: unknown, log: Logger, meta: RequestMeta): Omit<Outcome, 'caller'> {
  if (err instanceof HttpError) return { status: err.status, body: err.toBody(), headers: err.headers };
  log.error({ reqId: meta.requestId, err }, 'unhandled error');
  return { status: 500, body: { detail: 'Internal Server Error' }, headers: {} };
}
