import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { PinnedTarget } from './ssrf.js';

/**
 * One webhook POST to a checked, pinned address: the connection goes to `target.address` whatever
 * DNS says by now, while the Host header and TLS (SNI, certificate name) still use the URL's host.
 * No redirects are followed, no connection is reused. Resolves with the status as soon as the
 * response head arrives (the body is discarded); rejects on timeout or connection errors.
 */
export class DeliveryTimeout extends Error {}

export function postPinned(
  target: PinnedTarget,
  body: Buffer,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<number> {
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else cb(null, target.address, target.family);
  };
  const url = target.url;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(body.length) },
        lookup: pinned,
        agent: false,
      },
      (res) => {
        clearTimeout(timer);
        res.resume();
        res.on('error', () => undefined);
        resolve(res.statusCode ?? 0);
      },
    );
    const timer = setTimeout(() => req.destroy(new DeliveryTimeout(`no response within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}
