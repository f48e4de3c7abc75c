import type { z } from 'zod';
import type { Logger } from 'pino';
import type { MatchKind, ListType } from '../../engine/model.js';

/**
 * One endpoint as plain data. Both the native uWS route (hot path) and the tRPC procedure (served
 * at /trpc and fed to trpc-to-openapi for the OpenAPI document) are built from it, and so is the
 * MCP tool of the same capability.
 */

/**
 * Who may call an endpoint:
 * - `public`: anyone, never metered or audited;
 * - `metered`: a bearer token with quota, or an x402 payment (one credit per request by default);
 * - `account`: a customer's bearer token, not metered (dashboard API);
 * - `admin`: the operator's `ADMIN_KEY`, or an operator session token, as a bearer token.
 */
type Access = 'public' | 'metered' | 'account' | 'admin';

/** Who pays for / is attributed a request. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'customer'; customerId: number; tokenId: number }
  | { kind: 'payer'; address: string }
  /** The operator, with ADMIN_KEY itself or with an operator session token (the dashboard). */
  | { kind: 'admin'; via: 'key' | 'session' };

/** What the transport knows of the request, read before any await. */
export interface RequestMeta {
  requestId: string;
  transport: 'rest' | 'trpc' | 'batch' | 'mcp';
  method: string;
  /** Full URL of the resource as the client addressed it (x402 `resource`). */
  url: string;
  clientIp: string;
  /** Lower-case header names. Only the ones the pipeline needs are kept. */
  headers: Record<string, string | undefined>;
  /**
   * True once the answer can no longer be delivered (the client went away, or shutdown closed the
   * connection at its deadline): a payment is then not settled. Set by transports that know.
   */
  gone?: () => boolean;
}

/**
 * What a screening answer was computed against: the version of each list screened and, for a
 * screening as of a past date, that date. The answer states it in headers and each audit row
 * records it.
 */
export interface ScreeningBasis {
  /** The response headers that state it (`X-List-Versions`, and `X-As-Of` for a past date). */
  readonly headers: Readonly<Record<string, string>>;
  /** The version of a list screened ('' for a list that was not). */
  versionOf(list: string): string;
  /** The as-of time (ms since the epoch), or null for a screening of the current lists. */
  readonly asOf: number | null;
}

export interface RequestContext {
  meta: RequestMeta;
  log: Logger;
  caller: Caller;
  /** Clock in ms since epoch (injectable for tests). */
  now: () => number;
  /** Set by a screening handler: the pipeline adds its headers to the answer and passes it to the audit rows. */
  basis?: ScreeningBasis;
  /**
   * Set by a metered handler that used fewer credits than its endpoint reserved (a subject PUT that
   * changed nothing screens nothing and costs 0): the credits charged.
   */
  credits?: number;
}

/** A match written to the audit trail. */
export interface AuditMatch {
  screened_value: string;
  matched_value: string;
  list: string;
  list_type: ListType;
  match: MatchKind | string;
  /** The version of `list` the request was screened against. */
  list_version: string;
  /** The as-of time of a screening as of a past date (ms), else null. */
  as_of: number | null;
  /**
   * The match as the answer gave it (value, list, metadata, source_url, score, explanation...):
   * the evidence kept with the audit row and the alert, whatever later list versions say.
   */
  evidence: Readonly<Record<string, unknown>>;
}

/** A handler's answer when it is not JSON (CSV download); an iterable body is streamed with backpressure. */
export class RawResponse {
  constructor(
    readonly contentType: string,
    readonly body: string | Buffer | AsyncIterable<string> | Iterable<string>,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A handler's answer that created the resource: status 201, the body of the endpoint's output schema. */
export class Created<T = unknown> {
  constructor(readonly body: T) {}
}

/**
 * A handler's answer for work that goes on after the response (a job to poll): status 202, the
 * body (of the endpoint's output schema) and headers such as `Location`.
 */
export class Accepted<T = unknown> {
  constructor(
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface EndpointDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** tRPC procedure path, e.g. `screen.crypto`; also the MCP tool's base. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path under /api/v1, with `{param}` for path parameters. */
  path: string;
  tags: string[];
  summary: string;
  description?: string;
  access: Access;
  input: I;
  output: O;
  /** Extra documented error statuses (422 is added for every endpoint with parameters). */
  errors?: number[];
  /** Credits a metered call costs (default 1). */
  credits?: (input: z.output<I>) => number;
  /**
   * A streamed answer (an array sent element by element): the credits of the elements actually
   * delivered, so that an answer cut off is charged (and audited) for what was sent. See
   * `executeStreamed` in pipeline.ts.
   */
  deliveredCredits?: (delivered: z.output<O>) => number;
  /** Audit rows of a metered call's successful result. */
  audit?: (input: z.output<I>, output: z.output<O>, ctx: RequestContext) => AuditMatch[];
  /** The REST route is registered by hand (streaming answers); the definition still feeds tRPC, OpenAPI and MCP. */
  nativeRoute?: boolean;
  /** The REST body is raw content, not JSON fields: content type → description (OpenAPI). */
  rawBody?: Record<string, string>;
  /**
   * JSON of a successful REST answer, when something faster than JSON.stringify gives the same
   * text. A Buffer may be a view that the next call writes over: it is sent before anything else runs.
   */
  serialize?: (output: z.output<O>) => string | Buffer;
  /** The answer may be a 202 (Accepted) with the same body: work that goes on, to poll at `Location`. */
  accepted?: boolean;
  /** The answer may be a 201 (Created) with the same body: the resource was new. */
  created?: boolean;
  /** Headers of a successful answer, name → description (OpenAPI). */
  headers?: Record<string, string>;
  /** Example output for the x402 discovery block and the docs. */
  example?: z.output<O>;
  handler: (
    input: z.output<I>,
    ctx: RequestContext,
  ) =>
    | Promise<z.output<O> | RawResponse | Accepted<z.output<O>> | Created<z.output<O>>>
    | z.output<O>
    | RawResponse
    | Accepted<z.output<O>>
    | Created<z.output<O>>;
}

/** Helper that keeps input/output types tied together for inference. */
export function endpoint<I extends z.ZodObject, O extends z.ZodType>(def: EndpointDef<I, O>): EndpointDef<I, O> {
  return def;
}

/**
 * Any endpoint, as the transports hold them: schemas typed as schemas, the input and output of
 * the functions left open (each definition checked them against its own schemas).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEndpoint = Omit<EndpointDef<any, any>, 'input' | 'output'> & { input: z.ZodObject; output: z.ZodType };
