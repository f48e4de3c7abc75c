import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';

/**
 * Signals between service nodes: PostgreSQL LISTEN/NOTIFY when the nodes share a PostgreSQL
 * server (`DATABASE_URL`), in-process events otherwise (embedded PGlite: one node). A signal is a
 * hint to look now; whoever listens also polls, so a signal lost while a connection was down only
 * costs the poll interval.
 */
export interface Notifier {
  notify(channel: string, payload?: string): Promise<void>;
  listen(channel: string, fn: (payload: string) => void): void;
  close(): Promise<void>;
}

export function localNotifier(): Notifier {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return {
    notify: async (channel, payload = '') => void events.emit(channel, payload),
    listen: (channel, fn) => void events.on(channel, fn),
    close: async () => void events.removeAllListeners(),
  };
}

/** Channel names are identifiers we choose: lower-case letters and underscores only. */
const CHANNEL = /^[a-z_]+$/;

/** LISTEN on a connection of its own (reconnected after a failure); NOTIFY through it as well. */
export function pgNotifier(databaseUrl: string, log: Logger, opts: { retryMs?: number } = {}): Notifier {
  const retryMs = opts.retryMs ?? 2_000;
  const handlers = new Map<string, ((payload: string) => void)[]>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client | null> | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = (): Promise<pg.Client | null> => {
    if (client) return Promise.resolve(client);
    if (connecting) return connecting;
    connecting = (async () => {
      const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, keepAlive: true });
      c.on('notification', (n) => {
        for (const fn of handlers.get(n.channel) ?? []) fn(n.payload ?? '');
      });
      c.on('error', (err) => {
        log.warn({ err: err.message }, 'notification connection failed');
        if (client === c) client = null;
        void c.end().catch(() => undefined);
        later();
      });
      try {
        await c.connect();
        for (const channel of handlers.keys()) await c.query(`LISTEN ${channel}`);
        if (closed) {
          await c.end();
          return null;
        }
        client = c;
        return c;
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'notification connection could not be opened; retrying');
        await c.end().catch(() => undefined);
        later();
        return null;
      } finally {
        connecting = null;
      }
    })();
    return connecting;
  };
  const later = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, retryMs);
    retry.unref();
  };

  return {
    async notify(channel, payload = '') {
      if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
      const c = await connect();
      await c?.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    listen(channel, fn) {
      if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
      const known = handlers.has(channel);
      handlers.set(channel, [...(handlers.get(channel) ?? []), fn]);
      if (known) return;
      void connect().then((c) =>
        c
          ?.query(`LISTEN ${channel}`)
          .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'LISTEN failed')),
      );
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await connecting;
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
