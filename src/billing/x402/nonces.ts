/**
 * Used EIP-3009 authorizations, so that one is settled at most once. Keys are
 * `<caip2>:<asset>:<payer>:<nonce>` in lower case (EIP-3009 nonces are per token and payer).
 * A key is reserved when a request's payment is verified, then either marked settled or
 * released (the request failed, or settlement failed before anything reached the chain).
 */
export interface NonceStore {
  /** True when the key was free and is now reserved by the caller; false when reserved or settled. */
  reserve(key: string, expiresAt: number): Promise<boolean>;
  markSettled(key: string, transaction: string): Promise<void>;
  /** Frees a reservation; a settled key stays settled. */
  release(key: string): Promise<void>;
}

/** For a single node, and for tests. Expired entries (authorization past `validBefore`) are dropped. */
export class MemoryNonceStore implements NonceStore {
  private readonly entries = new Map<string, { settled: boolean; expiresAt: number }>();
  private lastPrune = 0;

  constructor(private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000)) {}

  async reserve(key: string, expiresAt: number): Promise<boolean> {
    this.prune();
    if (this.entries.has(key)) return false;
    this.entries.set(key, { settled: false, expiresAt });
    return true;
  }

  async markSettled(key: string): Promise<void> {
    const e = this.entries.get(key);
    if (e) e.settled = true;
  }

  async release(key: string): Promise<void> {
    if (this.entries.get(key)?.settled === false) this.entries.delete(key);
  }

  /** A full scan, so at most every 10 s; until then an expired key merely stays refused. */
  private prune(): void {
    const now = this.nowSeconds();
    if (now - this.lastPrune < 10) return;
    this.lastPrune = now;
    for (const [key, e] of this.entries) if (e.expiresAt < now) this.entries.delete(key);
  }
}

/** What the SQL store needs of a database: pg's Pool/Client and PGlite both fit. */
export interface SqlDb {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/**
 * Shared by every node through PostgreSQL (table in `src/store/migrations/010_x402_nonces.sql`): the primary key makes `reserve` an atomic claim, so two
 * nodes given copies of one authorization cannot both proceed.
 */
export class SqlNonceStore implements NonceStore {
  private lastPrune = 0;

  constructor(
    private readonly db: SqlDb,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async reserve(key: string, expiresAt: number): Promise<boolean> {
    await this.pruneEveryMinute();
    const { rows } = await this.db.query(
      `INSERT INTO x402_nonces (nonce_key, state, expires_at) VALUES ($1, 'pending', to_timestamp($2))
       ON CONFLICT (nonce_key) DO NOTHING RETURNING nonce_key`,
      [key, expiresAt],
    );
    return rows.length === 1;
  }

  async markSettled(key: string, transaction: string): Promise<void> {
    await this.db.query(
      `UPDATE x402_nonces SET state = 'settled', transaction = $2, settled_at = now() WHERE nonce_key = $1`,
      [key, transaction],
    );
  }

  async release(key: string): Promise<void> {
    await this.db.query(`DELETE FROM x402_nonces WHERE nonce_key = $1 AND state = 'pending'`, [key]);
  }

  /** An authorization past `validBefore` can never be used again on chain, so its row can go (with slack for other nodes' clocks). */
  private async pruneEveryMinute(): Promise<void> {
    const now = this.nowSeconds();
    if (now - this.lastPrune < 60) return;
    this.lastPrune = now;
    await this.db.query(`DELETE FROM x402_nonces WHERE expires_at < to_timestamp($1) - interval '5 minutes'`, [now]);
  }
}
