/**
 * Errors every transport turns into the same HTTP answer: `{"detail": "..."}` (or a FastAPI-style
 * validation list) with a status and optional headers.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly headers: Record<string, string> = {},
    /** A body other than `{"detail": ...}` (the x402 challenge). */
    readonly body?: unknown,
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
  }

  toBody(): unknown {
    return this.body ?? { detail: this.detail };
  }
}

/** One item of a FastAPI/Pydantic v2 validation error body. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class ValidationFailed extends HttpError {
  constructor(readonly issues: ValidationIssue[]) {
    super(
      422,
      issues.map((i) => (i.input !== null && typeof i.input === 'object' ? { ...i, input: boundedEcho(i.input) } : i)),
    );
  }
}

/** Levels and entries of an object or array that a 422's `input` echoes back. */
const ECHO_DEPTH = 4;
const ECHO_ENTRIES = 20;
/** Stands for what an echo leaves out. */
const ECHO_ELIDED = '…';

/**
 * The client's input as a 422 echoes it: primitives as given, objects and arrays up to
 * ECHO_DEPTH levels and ECHO_ENTRIES entries each (the rest `…`). The echo is serialized into the
 * answer, and untrusted structure of any depth or size must never reach JSON.stringify.
 */
export function boundedEcho(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= ECHO_DEPTH) return ECHO_ELIDED;
  if (Array.isArray(value)) {
    const out = value.slice(0, ECHO_ENTRIES).map((v) => boundedEcho(v, depth + 1));
    if (value.length > ECHO_ENTRIES) out.push(ECHO_ELIDED);
    return out;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (n++ === ECHO_ENTRIES) {
      out[ECHO_ELIDED] = ECHO_ELIDED;
      break;
    }
    out[key] = boundedEcho((value as Record<string, unknown>)[key], depth + 1);
  }
  return out;
}

/**
 * The one place the FastAPI `value_error` item is shaped: `msg` is "Value error, " + the message,
 * `ctx` names the error (the message unless given), `input` is left out when undefined.
 */
export function valueIssue(
  loc: (string | number)[],
  message: string,
  input?: unknown,
  ctx: Record<string, unknown> = { error: message },
): ValidationIssue {
  return input === undefined
    ? { type: 'value_error', loc, msg: `Value error, ${message}`, ctx }
    : { type: 'value_error', loc, msg: `Value error, ${message}`, input, ctx };
}

/** A value-level failure found after schema validation (e.g. an ENS name that does not resolve). */
export function valueError(loc: (string | number)[], message: string, input: unknown): ValidationFailed {
  return new ValidationFailed([valueIssue(loc, message, input)]);
}

type Headers = Record<string, string>;
/** A constructor of one status, so a throw site names what went wrong rather than a number. */
const withStatus =
  (status: number) =>
  (detail: unknown, headers?: Headers, body?: unknown): HttpError =>
    new HttpError(status, detail, headers, body);

export const badRequest = withStatus(400);
export const unauthorized = withStatus(401);
export const paymentRequired = withStatus(402);
export const forbidden = withStatus(403);
export const notFound = withStatus(404);
export const conflict = withStatus(409);
export const payloadTooLarge = withStatus(413);
export const uriTooLong = withStatus(414);
export const unsupportedMediaType = withStatus(415);
export const tooManyRequests = withStatus(429);
export const badGateway = withStatus(502);
export const serviceUnavailable = withStatus(503);

/** The status an error answers with: its own for an HttpError, 500 for anything unexpected. */
export function statusOf(err: unknown): number {
  return err instanceof HttpError ? err.status : 500;
}
