import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on 127.0.0.1, written as a customer would: it checks every request's
 * signature with its own few lines of node:crypto over the raw body bytes (not the project's
 * helper), answers 401 to a bad one, and otherwise answers what the test scripted for the path
 * (a status, or `hang` to never answer). Every request is recorded.
 */
interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  body: { id: string; type: string; [k: string]: unknown };
  /** Whether the signature verified under the secret the receiver held for the path. */
  verified: boolean;
  answered: number | 'hang';
}

export interface Receiver {
  url(path: string): string;
  /** The secret the receiver verifies with, per path. */
  secrets: Map<string, string>;
  /** Scripted answers per path, consumed in order; default 200. */
  script: Map<string, (number | 'hang')[]>;
  received: Received[];
  close(): Promise<void>;
}

export function verifyLikeACustomer(raw: Buffer, header: string | undefined, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m || Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.`).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'));
}

export async function startReceiver(): Promise<Receiver> {
  const secrets = new Map<string, string>();
  const script = new Map<string, (number | 'hang')[]>();
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = req.url ?? '/';
      const secret = secrets.get(path);
      const verified =
        secret !== undefined &&
        verifyLikeACustomer(raw, req.headers['x-service-signature'] as string | undefined, secret);
      const next = script.get(path)?.shift() ?? 200;
      const answered = !verified ? 401 : next;
      received.push({ path, headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')), verified, answered });
      if (answered === 'hang') return;
      res.writeHead(answered, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    secrets,
    script,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
