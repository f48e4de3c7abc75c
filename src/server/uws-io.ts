import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { StringDecoder } from 'node:string_decoder';
import { payloadTooLarge } from '../core/errors.js';

/** Small helpers over uWS responses: status lines, JSON answers, bodies, streaming with backpressure. */

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? 'Status'}`;
}

/** Tracks whether the client went away; uWS forbids touching `res` after that. */
export class ResponseState {
  aborted = false;
  done = false;
  /** Close the connection after the answer (it comes before the request body was read in full). */
  closeAfter = false;
  private onAbort: (() => void)[] | null = null;

  /** The connection is gone (the client left, or shutdown closed it): wakes whatever waits on it. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.onAbort;
    this.onAbort = null;
    if (listeners) for (const l of listeners) l();
  }

  /** Calls `listener` once the connection is gone (at once when it is already). */
  whenAborted(listener: () => void): void {
    if (this.aborted) listener();
    else (this.onAbort ??= []).push(listener);
  }
}

/**
 * CORS for browser clients and agents: any origin may call the API (credentials are explicit
 * headers, never cookies), and may read the payment and rate-limit headers.
 */
const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE, X-Request-Id, Retry-After, WWW-Authenticate, Content-Disposition, X-Total-Count, Idempotency-Replayed',
};
/** Added to CORS_HEADERS (which every answer carries) on a preflight. */
const CORS_PREFLIGHT_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Authorization, Content-Type, X-PAYMENT, PAYMENT-SIGNATURE, Idempotency-Key, X-Request-Id, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
  'Access-Control-Max-Age': '86400',
};

/**
 * What every answer writes, encoded once: uWS copies a Buffer as is, while a string costs a UTF-8
 * length pass and a conversion on each call.
 */
const STATUS_LINES = new Map(
  Object.keys(STATUS_TEXT).map((code) => [Number(code), Buffer.from(statusLine(Number(code)))]),
);
const REQUEST_ID = Buffer.from('X-Request-Id');
const CONTENT_TYPE = 'Content-Type';
export const JSON_TYPE = 'application/json';

/**
 * Fixed headers as one `writeHeader` call: uWS writes `name: value\r\n` verbatim, so the value
 * may carry the following header lines. Each call into uWS has a fixed cost, and every answer
 * writes these.
 */
function headerBlock(headers: Record<string, string>): readonly [Buffer, Buffer] {
  const [[first, firstValue], ...rest] = Object.entries(headers);
  return [Buffer.from(first), Buffer.from([firstValue, ...rest.map(([k, v]) => `${k}: ${v}`)].join('\r\n'))];
}
const CORS_BLOCK = headerBlock(CORS_HEADERS);
const CORS_JSON_BLOCK = headerBlock({ ...CORS_HEADERS, [CONTENT_TYPE]: JSON_TYPE });

/** Status line (200 is uWS's default), CORS, the request id (when given) and `headers`. */
export function writeHead(
  res: HttpResponse,
  status: number,
  headers: Record<string, string>,
  requestId?: string,
): void {
  writeHeadWith(res, status, CORS_BLOCK, headers, requestId);
}

/**
 * Frozen header sets are shared by many answers (a screening basis's `X-List-Versions`, a few
 * hundred bytes): encoded once, like the fixed blocks, instead of converted on every answer.
 */
const sharedBlocks = new WeakMap<Record<string, string>, readonly [Buffer, Buffer] | null>();

function sharedBlock(headers: Record<string, string>): readonly [Buffer, Buffer] | null {
  let block = sharedBlocks.get(headers);
  if (block === undefined) {
    block = Object.keys(headers).length === 0 ? null : headerBlock(headers);
    sharedBlocks.set(headers, block);
  }
  return block;
}

function writeHeadWith(
  res: HttpResponse,
  status: number,
  block: readonly [Buffer, Buffer],
  headers: Record<string, string>,
  requestId: string | undefined,
): void {
  if (status !== 200) res.writeStatus(STATUS_LINES.get(status) ?? statusLine(status));
  res.writeHeader(block[0], block[1]);
  if (requestId !== undefined) res.writeHeader(REQUEST_ID, requestId);
  if (Object.isFrozen(headers)) {
    const shared = sharedBlock(headers);
    if (shared !== null) res.writeHeader(shared[0], shared[1]);
  } else {
    for (const k in headers) res.writeHeader(k, headers[k]);
  }
}

/** The answer to a CORS preflight: which methods and request headers any origin may use. */
export function preflight(res: HttpResponse): void {
  res.cork(() => {
    writeHead(res, 204, CORS_PREFLIGHT_HEADERS);
    res.endWithoutBody();
  });
}

export function sendBody(
  res: HttpResponse,
  state: ResponseState,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string>,
  requestId?: string,
): void {
  if (state.aborted || state.done) return;
  state.done = true;
  res.cork(() => writeBody(res, status, contentType, body, headers, requestId, state.closeAfter));
}

/**
 * Writes a whole answer. Call it within uWS's own request callback (which corks the socket) or
 * inside `res.cork`, and only while the response is neither aborted nor answered.
 */
export function writeBody(
  res: HttpResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string>,
  requestId?: string,
  closeConnection = false,
): void {
  if (contentType === JSON_TYPE) {
    writeHeadWith(res, status, CORS_JSON_BLOCK, headers, requestId);
  } else {
    writeHeadWith(res, status, CORS_BLOCK, headers, requestId);
    res.writeHeader(CONTENT_TYPE, contentType);
  }
  res.end(body, closeConnection);
}

/**
 * Reads a request body as UTF-8 text up to `limit` bytes; rejects with 413 beyond it. Must be
 * called synchronously in the handler. Each chunk is decoded while uWS lends it (a view, no
 * copy): copying chunks out and joining them made two off-heap allocations of the body's size,
 * whose external-memory accounting forced V8 into full collections under batch load.
 */
export function readText(res: HttpResponse, state: ResponseState, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let text = '';
    let size = 0;
    res.onData((ab, isLast) => {
      if (state.aborted) return;
      size += ab.byteLength;
      if (size > limit) {
        reject(payloadTooLarge('Request body too large'));
        return;
      }
      text += decoder.write(Buffer.from(ab));
      if (isLast) resolve(text + decoder.end());
    });
  });
}

/**
 * The most bytes handed to one uWS `write`. uWS 20.30 drops a chunk's data when the data does not
 * fit its 16 KiB cork buffer beside the chunk's framing and the socket cannot take that framing at
 * once (`AsyncSocket::uncork` returns without buffering the data; uWebSockets.js issue 1249): the
 * client then reads a chunk header followed by the next chunk. A piece this size always fits an
 * empty cork buffer, where uWS copies it, and from there into its backpressure buffer.
 */
const MAX_WRITE_BYTES = 16 * 1024 - 64;

/**
 * Waits of a stalled stream before it tries the socket again without a writable event (see
 * `StreamWriter.write`); after the last, only a writable event or the end of the connection wakes it.
 */
const STALL_RETRY_MS = [250, 500, 1000];

/**
 * Streams chunks to the client with backpressure: each `write` resolves when uWS accepted the
 * chunk without buffering any of it, when the socket drained, or when a stall was retried.
 * `end` finishes the response.
 */
export class StreamWriter {
  private waiting: (() => void) | null = null;
  /** Consecutive waits that ended without a writable event (STALL_RETRY_MS). */
  private stalls = 0;

  constructor(
    private readonly res: HttpResponse,
    private readonly state: ResponseState,
  ) {
    res.onWritable(() => {
      this.stalls = 0;
      this.waiting?.();
      return true;
    });
  }

  /**
   * Writes the head, then waits for the next turn of the event loop: a caller resumed inside a uWS
   * callback of this socket runs while uWS corks it, and pieces written into that shared cork
   * buffer could overflow it (see MAX_WRITE_BYTES). From the next turn on, each piece gets a cork
   * buffer of its own.
   */
  async start(status: number, headers: Record<string, string>): Promise<void> {
    if (this.state.aborted) return;
    this.res.cork(() => writeHead(this.res, status, headers));
    await new Promise(setImmediate);
  }

  /**
   * Hands `chunk` to uWS; uWS has its bytes copied (or sent) when this returns, so a caller may
   * reuse a buffer it passed. True when a piece of it went through without backpressure: uWS
   * sends what it buffered before it takes more, so everything written before this chunk had then
   * reached the kernel. When uWS kept bytes back, it waits for the socket to drain.
   *
   * A stalled stream is also retried on a clock: under load, uWS 20.30 at times reported no
   * writable event after a failed write while the client had read everything (the answer then
   * ended at uWS's 10 s timeout). The caller's next write is that retry (a write first sends what
   * uWS buffered); a few, spaced further apart, bound what a client that reads nothing can make
   * uWS buffer.
   */
  async write(chunk: string | Uint8Array): Promise<boolean> {
    const bytes = typeof chunk === 'string' && 3 * chunk.length > MAX_WRITE_BYTES ? Buffer.from(chunk) : chunk;
    let ok = true;
    let through = false;
    if (typeof bytes === 'string') ok = through = this.writePiece(bytes);
    else {
      for (let at = 0; at < bytes.length; at += MAX_WRITE_BYTES) {
        if (this.writePiece(bytes.subarray(at, at + MAX_WRITE_BYTES))) through = true;
        else ok = false;
      }
    }
    if (ok) this.stalls = 0;
    else if (!this.state.aborted) await this.drained();
    return through;
  }

  /** Resolves when the socket drained, on the clock while retries are left, or when the connection is gone (no drain will come). */
  private drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      const delay = STALL_RETRY_MS[this.stalls];
      const timer =
        delay === undefined
          ? undefined
          : setTimeout(() => {
              this.stalls++;
              wake();
            }, delay);
      const wake = () => {
        clearTimeout(timer);
        this.waiting = null;
        resolve();
      };
      this.waiting = wake;
      this.state.whenAborted(wake);
    });
  }

  /** One piece in a cork of its own; false when uWS had to buffer it (the socket is full). */
  private writePiece(piece: string | Uint8Array): boolean {
    if (this.state.aborted) return true;
    let ok = true;
    this.res.cork(() => {
      ok = this.res.write(piece);
    });
    return ok;
  }

  end(): void {
    if (this.state.aborted || this.state.done) return;
    this.state.done = true;
    this.res.cork(() => this.res.end());
  }
}

/** An error answer given without reading the request (404, 405): a HEAD answer has no body. */
export function refuseUnread(
  res: HttpResponse,
  req: HttpRequest,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  const head = req.getMethod() === 'head';
  res.cork(() => {
    writeHead(res, status, { 'Content-Type': 'application/json', ...headers });
    if (head) res.endWithoutBody(0);
    else res.end(body);
  });
}
