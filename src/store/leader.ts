import pg from 'pg';
import type { Logger } from 'pino';

/**
 * Leadership among service nodes: exactly one node ingests lists (fetch, diff, list_changes,
 * webhook outbox, ENS re-checks); the others serve the snapshots it commits. The leader holds a
 * PostgreSQL session-level advisory lock on its own connection, so a node that dies or loses its
 * connection releases leadership at once and a follower takes it at its next attempt. With the
 * embedded PGlite there is one node by construction (the data directory is locked), so it leads.
 */
export interface Leadership {
  isLeader(): boolean;
  /** Called with the new role whenever it changes. */
  onChange(listener: (leader: boolean) => void): void;
  close(): Promise<void>;
}

/** The lock key: the first 8 bytes of sha256("screening-service:list-ingestion"), as a signed 64-bit integer. */
export const INGESTION_LOCK_KEY = '736770275503462284';

export function soleLeader(): Leadership {
  return { isLeader: () => true, onChange: () => undefined, close: async () => undefined };
}

export async function acquireLeadership(
  databaseUrl: string,
  log: Logger,
  opts: { retryMs?: number } = {},
): Promise<Leadership> {
  const retryMs = opts.retryMs ?? 15_000;
  const listeners: ((leader: boolean) => void)[] = [];
  let leader = false;
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  /** The attempt or keep-alive running now: close() waits for it, else it could open a connection after close. */
  let inFlight: Promise<void> = Promise.resolve();
  const later = (step: () => Promise<void>) => {
    if (closed) return;
    timer = setTimeout(() => {
      timer = null;
      inFlight = step();
    }, retryMs);
  };

  const setRole = (next: boolean) => {
    if (next === leader) return;
    leader = next;
    log.info({ leader }, leader ? 'took list-ingestion leadership' : 'lost list-ingestion leadership');
    for (const l of listeners) l(leader);
  };

  /** Ends a connection that failed; leadership (the session's advisory lock) went with it. */
  const dropConnection = async (c: pg.Client | null) => {
    client = null;
    setRole(false);
    await c?.end().catch(() => undefined);
  };

  const attempt = async () => {
    if (closed) return;
    let connecting: pg.Client | null = null;
    try {
      if (!client) {
        // Bounded, so a blackholed server cannot stall leadership (or close()) forever.
        const c = (connecting = new pg.Client({
          connectionString: databaseUrl,
          connectionTimeoutMillis: 10_000,
          query_timeout: 10_000,
          keepAlive: true,
        }));
        c.on('error', (err) => {
          log.warn({ err: err.message }, 'leadership connection failed');
          if (client === c) client = null;
          setRole(false);
          void c.end().catch(() => undefined);
        });
        await c.connect();
        client = c;
      }
      if (!leader) {
        const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [
          INGESTION_LOCK_KEY,
        ]);
        setRole(rows[0].locked);
      }
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'leadership attempt failed');
      await dropConnection(client ?? connecting);
    }
    later(leader ? keepAlive : attempt);
  };

  /** A leader checks its connection now and then, so a silently dead one is noticed. */
  const keepAlive = async () => {
    if (closed || !client) return void (await attempt());
    try {
      await client.query('SELECT 1');
      later(keepAlive);
    } catch {
      await dropConnection(client);
      await attempt();
    }
  };

  inFlight = attempt();
  await inFlight;
  return {
    isLeader: () => leader,
    onChange: (l) => void listeners.push(l),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await inFlight;
      const c = client;
      client = null;
      leader = false;
      await c?.end().catch(() => undefined);
    },
  };
}
