import type { Logger } from 'pino';
import { RawResponse, type AnyEndpoint, type Caller, type RequestContext, type RequestMeta } from '../api/endpoint.js';
import { HttpError } from '../server/errors.js';
import type { Gate } from './gate.js';

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
function context(meta: RequestMeta, caller: Caller, deps: PipelineDeps): RequestContext {
  let log: Logger | undefined;
  return {
    meta,
    caller,
    now: deps.now,
    get log() {
      return (log ??= deps.log.child({ reqId: meta.requestId }));
    },
  };
}

export async function execute(endpoint: AnyEndpoint, input: unknown, meta: RequestMeta, deps: PipelineDeps): Promise<Outcome> {
  if (endpoint.access === 'public') {
    const result = await endpoint.handler(input, context(meta, ANONYMOUS, deps));
    checkOutput(endpoint, result, deps);
    return answer(result, {}, ANONYMOUS);
  }
  const charge = await deps.gate.authorize(endpoint, input, meta);
  const ctx = context(meta, charge.caller, deps);
  let result: unknown;
  try {
    result = await endpoint.handler(input, ctx);
    checkOutput(endpoint, result, deps);
  } catch (err) {
    charge.release({ status: err instanceof HttpError ? err.status : 500 });
    throw err;
  }
  const audit = endpoint.audit && !(result instanceof RawResponse) ? endpoint.audit(input, result) : [];
  const committed = await charge.commit({ status: 200, audit });
  return answer(result, committed.headers, charge.caller);
}

function answer(result: unknown, headers: Record<string, string>, caller: Caller): Outcome {
  if (result instanceof RawResponse) return { status: 200, raw: result, headers: { ...result.headers, ...headers }, caller };
  return { status: 200, body: result, headers, caller };
}

/** With `validateOutput`, a JSON answer that breaks its schema fails before anything is charged. */
function checkOutput(endpoint: AnyEndpoint, result: unknown, deps: PipelineDeps): void {
  if (!deps.validateOutput || result instanceof RawResponse) return;
  const parsed = endpoint.output.safeParse(result);
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
