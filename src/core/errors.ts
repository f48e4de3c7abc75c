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
    super(422, issues);
  }
}

/** A value-level failure found after schema validation (e.g. an ENS name that does not resolve). */
export function valueError(loc: (string | number)[], message: string, input: unknown): ValidationFailed {
  return new ValidationFailed([{ type: 'value_error', loc, msg: `Value error, ${message}`, input, ctx: { error: message } }]);
}
