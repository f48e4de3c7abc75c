import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { RequestMeta } from '../core/endpoint.js';
import { V1_PAYMENT_HEADER, V2_PAYMENT_HEADER } from '../billing/x402/decode.js';
import { IDEMPOTENCY_HEADER } from '../core/idempotency.js';
import { normalizeIp, type ClientIpResolver } from './client-ip.js';

/** The request headers the pipeline reads; the others are not copied out of uWS. */
const HEADERS_KEPT = new Set([
  'authorization',
  V1_PAYMENT_HEADER,
  V2_PAYMENT_HEADER,
  IDEMPOTENCY_HEADER,
  'x-forwarded-for',
  'forwarded',
  'host',
  'x-forwarded-proto',
  'x-request-id',
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,64}$/;

/** Where `keep` stores headers: uWS calls back once per header, and one shared callback spares a closure per request. */
let collecting: Record<string, string | undefined> = {};
function keep(name: string, value: string): void {
  // The first of repeated headers wins, as with getHeader. An empty Idempotency-Key is kept: uWS
  // trims bytes above 0x7F off both ends of a value, so a key such as `é` arrives empty, and must
  // be refused (422) rather than read as no key at all (docs/idempotency.md).
  if (HEADERS_KEPT.has(name) && (value !== '' || name === IDEMPOTENCY_HEADER) && collecting[name] === undefined)
    collecting[name] = value;
}

/**
 * What a transport knows of a uWS request, read in one pass over its headers during uWS's
 * callback (the request object is gone afterwards). The client address and the full URL are
 * worked out on first use: a metered request with a token needs neither, and reading the peer
 * address is a system call.
 */
export class UwsRequestMeta implements RequestMeta {
  readonly requestId: string;
  readonly headers: Record<string, string | undefined>;
  private readonly path: string;
  private readonly query: string;
  private peer: string | undefined;
  private ip: string | undefined;
  private fullUrl: string | undefined;

  constructor(
    private readonly res: HttpResponse,
    req: HttpRequest,
    readonly transport: RequestMeta['transport'],
    readonly method: string,
    private readonly clientIps: ClientIpResolver,
  ) {
    const headers: Record<string, string | undefined> = {};
    collecting = headers;
    req.forEach(keep);
    this.headers = headers;
    this.path = req.getUrl();
    this.query = req.getQuery();
    const given = headers['x-request-id'];
    this.requestId = given && REQUEST_ID_RE.test(given) ? given : randomUUID();
  }

  /** The socket's peer address; empty once the response is gone (an aborted request has no use for it). */
  private peerAddress(): string {
    if (this.peer === undefined) {
      try {
        this.peer = Buffer.from(this.res.getRemoteAddressAsText()).toString('latin1');
      } catch {
        this.peer = '';
      }
    }
    return this.peer;
  }

  get clientIp(): string {
    return (this.ip ??= this.clientIps.resolve(
      this.peerAddress(),
      this.headers['x-forwarded-for'],
      this.headers['forwarded'],
    ));
  }

  /** Full URL of the resource as the client addressed it (x402 challenges, /trpc). */
  get url(): string {
    if (this.fullUrl === undefined) {
      const proto =
        this.clientIps.isTrusted(normalizeIp(this.peerAddress())) && this.headers['x-forwarded-proto'] === 'https'
          ? 'https'
          : 'http';
      this.fullUrl = `${proto}://${this.headers.host ?? 'localhost'}${this.path}${this.query ? `?${this.query}` : ''}`;
    }
    return this.fullUrl;
  }
}
