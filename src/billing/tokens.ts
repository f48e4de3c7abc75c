import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { TOKEN_PATTERN, generateToken, hashToken, tokenPrefix } from './token-format.js';

/** What a token may do: call the metered endpoints, and/or use the /account API (the dashboard). */
export const TOKEN_SCOPES = ['screen', 'dashboard'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** What a valid token tells the gate. */
export interface TokenIdentity {
  tokenId: number;
  customerId: number;
  /** Scope `screen`. */
  screen: boolean;
  /** Scope `dashboard`. */
  dashboard: boolean;
}

export interface TokenRecord {
  id: number;
  customer_id: number;
  name: string | null;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  scopes: TokenScope[];
}

const RECORD_COLUMNS = 'id, customer_id, name, prefix, scopes, created_at, last_used_at, revoked_at';

export interface TokenServiceOptions {
  /** Revocation takes effect within this many seconds on every node (TOKEN_CACHE_SECONDS). */
  cacheSeconds: number;
  now?: () => number;
  log?: Logger;
  /** Bound of the positive cache; the oldest entries are evicted first. */
  maxEntries?: number;
  /** How often `last_used_at` is written (ms). */
  touchFlushMs?: number;
  /**
   * Whether to poll the database for revocations made by other nodes (default true). Off for an
   * embedded database, which one process holds: every revocation is made by this service.
   */
  pollRevocations?: boolean;
}

interface CachedToken {
  identity: TokenIdentity;
  hash: string;
}

const NEGATIVE_MAX = 10_000;
// Overlap of successive revocation polls, for clocks and commits that lag slightly.
const POLL_OVERLAP_SECONDS = 30;

/**
 * API tokens: creation (the plain token is returned once), listing, revocation, and the hot-path
 * check. A verified token stays in memory; every node polls the revocations of the last moments
 * twice per `cacheSeconds` and evicts them, so a revocation anywhere takes effect within
 * `cacheSeconds` without a database round trip per request. Unknown tokens are remembered as
 * invalid for `cacheSeconds`. `last_used_at` is written in batches.
 *
 * Verified tokens are cached by the token as presented: a hit costs one map lookup, where hashing
 * the token and checking its format cost time and a 64-character string on every request
 * (docs/billing.md, "Tokens"). The plain tokens stay in this process's memory only; the
 * database holds their hashes.
 */
export class TokenService {
  /** Verified tokens by the plain token, oldest first, and the token of each hash (for revocations). */
  private readonly cache = new Map<string, CachedToken>();
  private readonly tokenByHash = new Map<string, string>();
  private readonly negative = new Map<string, number>();
  private readonly pending = new Map<string, Promise<TokenIdentity | null>>();
  private readonly touched = new Map<number, number>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private lastPoll: Date | null = null;
  private timers: NodeJS.Timeout[] = [];
  private polling: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly opts: TokenServiceOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 100_000;
  }

  /** Starts the revocation poll (unless off) and the `last_used_at` writer. */
  start(): void {
    if (this.timers.length > 0) return;
    const touch = setInterval(
      () => void this.flushTouches().catch((err) => this.opts.log?.error({ err }, 'last_used_at update failed')),
      this.opts.touchFlushMs ?? 1000,
    );
    touch.unref();
    this.timers = [touch];
    if (this.opts.pollRevocations === false) return;
    const poll = setInterval(() => void this.pollRevocations(), (this.opts.cacheSeconds * 1000) / 2);
    poll.unref();
    this.timers.push(poll);
    void this.pollRevocations();
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.polling;
    await this.flushTouches();
  }

  /**
   * Creates a token for a customer (by default with every scope); the plain token exists only in
   * this return value.
   */
  async create(
    customerId: number,
    name: string | null = null,
    scopes: readonly TokenScope[] = TOKEN_SCOPES,
  ): Promise<{ token: string; record: TokenRecord }> {
    const token = generateToken();
    const { rows } = await this.db.query<TokenRecord>(
      `INSERT INTO api_tokens (customer_id, name, token_hash, prefix, scopes) VALUES ($1, $2, $3, $4, $5::text[])
       RETURNING ${RECORD_COLUMNS}`,
      [customerId, name, hashToken(token), tokenPrefix(token), TOKEN_SCOPES.filter((s) => scopes.includes(s))],
    );
    return { token, record: rows[0] };
  }

  async list(customerId: number): Promise<TokenRecord[]> {
    const { rows } = await this.db.query<TokenRecord>(
      `SELECT ${RECORD_COLUMNS} FROM api_tokens WHERE customer_id = $1 ORDER BY id`,
      [customerId],
    );
    return rows;
  }

  async get(tokenId: number): Promise<TokenRecord | null> {
    const { rows } = await this.db.query<TokenRecord>(`SELECT ${RECORD_COLUMNS} FROM api_tokens WHERE id = $1`, [
      tokenId,
    ]);
    return rows[0] ?? null;
  }

  /**
   * Revokes a token (of `customerId` when given). Returns the record, or null when there is no
   * such token. Revoking twice keeps the first revocation time.
   */
  async revoke(tokenId: number, customerId?: number): Promise<TokenRecord | null> {
    const { rows } = await this.db.query<TokenRecord & { token_hash: string }>(
      `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, clock_timestamp())
        WHERE id = $1 AND ($2::integer IS NULL OR customer_id = $2)
        RETURNING ${RECORD_COLUMNS}, token_hash`,
      [tokenId, customerId ?? null],
    );
    const row = rows[0];
    if (!row) return null;
    this.forget(row.token_hash);
    const { token_hash: _hash, ...record } = row;
    return record;
  }

  /**
   * The hot-path check. Answers from memory (synchronously) for a known token; a token not seen
   * yet costs one database lookup, shared by concurrent requests.
   */
  verify(token: string): TokenIdentity | null | Promise<TokenIdentity | null> {
    // Only well-formed tokens are ever cached, so a hit needs no format check.
    const hit = this.cache.get(token);
    if (hit) {
      this.touched.set(hit.identity.tokenId, this.now());
      return hit.identity;
    }
    if (!TOKEN_PATTERN.test(token)) return null;
    const hash = hashToken(token);
    const until = this.negative.get(hash);
    if (until !== undefined) {
      if (until > this.now()) return null;
      this.negative.delete(hash);
    }
    let p = this.pending.get(hash);
    if (!p) {
      p = this.lookup(token, hash).finally(() => this.pending.delete(hash));
      this.pending.set(hash, p);
    }
    return p;
  }

  private async lookup(token: string, hash: string): Promise<TokenIdentity | null> {
    const { rows } = await this.db.query<{ id: number; customer_id: number; scopes: TokenScope[] }>(
      'SELECT id, customer_id, scopes FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    const row = rows[0];
    if (!row) {
      if (this.negative.size >= NEGATIVE_MAX) this.negative.clear();
      this.negative.set(hash, this.now() + this.opts.cacheSeconds * 1000);
      return null;
    }
    const identity: TokenIdentity = {
      tokenId: row.id,
      customerId: row.customer_id,
      screen: row.scopes.includes('screen'),
      dashboard: row.scopes.includes('dashboard'),
    };
    if (this.cache.size >= this.maxEntries) {
      const [oldest, entry] = this.cache.entries().next().value as [string, CachedToken];
      this.cache.delete(oldest);
      this.tokenByHash.delete(entry.hash);
    }
    this.cache.set(token, { identity, hash });
    this.tokenByHash.set(hash, token);
    this.touched.set(identity.tokenId, this.now());
    return identity;
  }

  /** Drops the cached token with this hash (revoked). */
  private forget(hash: string): void {
    const token = this.tokenByHash.get(hash);
    if (token === undefined) return;
    this.tokenByHash.delete(hash);
    this.cache.delete(token);
  }

  /** Evicts tokens revoked since the previous poll (with some overlap). */
  pollRevocations(): Promise<void> {
    if (this.polling) return this.polling;
    this.polling = (async () => {
      try {
        const { rows } = await this.db.query<{ db_now: Date; hashes: string[] | null }>(
          `SELECT now() AS db_now,
                  (SELECT array_agg(token_hash) FROM api_tokens
                    WHERE revoked_at >= COALESCE($1::timestamptz, now()) - make_interval(secs => $2)) AS hashes`,
          [this.lastPoll, POLL_OVERLAP_SECONDS],
        );
        for (const h of rows[0].hashes ?? []) this.forget(h);
        this.lastPoll = rows[0].db_now;
      } catch (err) {
        this.opts.log?.error({ err }, 'token revocation poll failed');
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }

  /** Writes the pending `last_used_at` times in one statement. */
  async flushTouches(): Promise<void> {
    if (this.touched.size === 0) return;
    const ids = [...this.touched.keys()];
    const times = ids.map((id) => new Date(this.touched.get(id) as number));
    this.touched.clear();
    await this.db.query(
      `UPDATE api_tokens t SET last_used_at = GREATEST(t.last_used_at, d.at)
         FROM unnest($1::integer[], $2::timestamptz[]) AS d(id, at) WHERE t.id = d.id`,
      [ids, times],
    );
  }
}
