import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { conflict } from '../core/errors.js';
import { idempotencyKeyError, type Claim, type Idempotency, type StoredOutcome } from '../core/idempotency.js';

/**
 * Idempotency-Key for metered requests (docs/idempotency.md). Outcomes live in the control-plane
 * PostgreSQL (`idempotency_keys`), so a retry reaching another node finds them: within 24 hours
 * the same key from the same customer (or x402 payer) gets the stored answer, neither charged nor
 * audited again; the same key with another request is a 422; a retry while the first request
 * still runs is a 409. Only successful answers are stored (a failure costs nothing and may be
 * retried as it is), up to MAX_OUTCOME_BYTES.
 */

/** How long an outcome is kept and honoured. */
const RETENTION_HOURS = 24;
/** Largest answer stored (a 10,000-item batch of listed values is about 5 MB). */
const MAX_OUTCOME_BYTES = 16 * 1024 * 1024;
/** A claim whose request has not finished after this long belonged to a node that died: it may be taken over. */
const STALE_CLAIM_SECONDS = 300;

const CLAIM_SQL = `
INSERT INTO idempotency_keys (scope, key, fingerprint, state, payment_digest)
VALUES ($1, $2, $3, 'running', $4)
ON CONFLICT (scope, key) DO UPDATE
  SET fingerprint = EXCLUDED.fingerprint, state = 'running', payment_digest = EXCLUDED.payment_digest,
      headers = NULL, body = NULL, claimed_at = now(), created_at = now()
  WHERE idempotency_keys.created_at < now() - interval '${RETENTION_HOURS} hours'
     OR (idempotency_keys.state = 'running' AND idempotency_keys.claimed_at < now() - interval '${STALE_CLAIM_SECONDS} seconds')
RETURNING 1 AS claimed`;

const READ_SQL = `SELECT fingerprint, state, headers, body FROM idempotency_keys WHERE scope = $1 AND key = $2`;

export class IdempotencyStore implements Idempotency {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly log?: Logger,
  ) {}

  /** Removes expired outcomes every hour (on every node: the delete is idempotent and cheap). */
  start(): void {
    this.timer = setInterval(
      () => void this.prune().catch((err: unknown) => this.log?.warn({ err }, 'idempotency prune failed')),
      3_600_000,
    );
    this.timer.unref();
  }

  async prune(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < now() - interval '${RETENTION_HOURS} hours' RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Claims `key` for a request of `scope`: atomically across nodes, the first request with a key
   * runs; a later one gets the stored answer (same request), 409 (the first still runs) or 422 (a
   * different request).
   */
  async claim(scope: string, key: string, print: string, payment: string | null): Promise<Claim> {
    const { rows } = await this.db.query(CLAIM_SQL, [scope, key, print, payment]);
    if (rows.length > 0) return { kind: 'claimed' };
    const existing = (
      await this.db.query<{
        fingerprint: string;
        state: string;
        headers: Record<string, string> | null;
        body: string | null;
      }>(READ_SQL, [scope, key])
    ).rows[0];
    // Removed between the two statements (pruned, abandoned): claim again.
    if (!existing) return this.claim(scope, key, print, payment);
    if (existing.fingerprint !== print) {
      throw idempotencyKeyError(key, 'this Idempotency-Key was used for a different request');
    }
    if (existing.state === 'running')
      throw conflict('a request with this Idempotency-Key is still running; retry later', {
        'Retry-After': '1',
      });
    return { kind: 'replay', outcome: { headers: existing.headers ?? {}, body: existing.body ?? '' } };
  }

  /**
   * The stored answer of a request paid with exactly this payment header and key, whoever asks:
   * the signed authorization is the payer's credential, and it was settled once already.
   */
  async byPayment(payment: string, key: string, print: string): Promise<StoredOutcome | null> {
    const { rows } = await this.db.query<{
      fingerprint: string;
      state: string;
      headers: Record<string, string> | null;
      body: string | null;
    }>(
      `SELECT fingerprint, state, headers, body FROM idempotency_keys WHERE payment_digest = $1 AND key = $2 AND created_at >= now() - interval '${RETENTION_HOURS} hours'`,
      [payment, key],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.fingerprint !== print) return null;
    if (row.state === 'running')
      throw conflict('a request with this Idempotency-Key is still running; retry later', {
        'Retry-After': '1',
      });
    return { headers: row.headers ?? {}, body: row.body ?? '' };
  }

  /** Stores the answer of a claimed request; one too large to store releases the key (docs). */
  async complete(scope: string, key: string, outcome: StoredOutcome): Promise<void> {
    if (Buffer.byteLength(outcome.body) > MAX_OUTCOME_BYTES) {
      this.log?.warn(
        { scope, bytes: Buffer.byteLength(outcome.body) },
        'answer too large to store for its Idempotency-Key; the key is released',
      );
      await this.abandon(scope, key);
      return;
    }
    await this.db.query(
      `UPDATE idempotency_keys SET state = 'done', headers = $3, body = $4 WHERE scope = $1 AND key = $2`,
      [scope, key, JSON.stringify(outcome.headers), outcome.body],
    );
  }

  /** Releases the claim of a request that failed (it cost nothing; a retry runs it again). */
  async abandon(scope: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND state = 'running'`, [
      scope,
      key,
    ]);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
