import type { Db } from '../store/db.js';
import { OPERATOR_TOKEN_PATTERN, generateToken, hashToken } from './token-format.js';

/** Lifetime of an operator session (documented in the README and on POST /admin/session). */
export const OPERATOR_SESSION_SECONDS = 3600;

export interface OperatorSession {
  token: string;
  expires_at: Date;
}

/**
 * The operator's browser sessions: the dashboard exchanges ADMIN_KEY for a token of the form
 * `op_…` that the /admin API accepts for an hour, so the key itself is never kept in a browser.
 * Only the token's SHA-256 is stored. Each use is checked against the database (the operator's
 * requests are few), so signing out revokes a session on every node at once.
 */
export class OperatorSessions {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async create(): Promise<OperatorSession> {
    const token = generateToken('op');
    const expires = new Date(this.now() + OPERATOR_SESSION_SECONDS * 1000);
    await this.db.query('INSERT INTO operator_sessions (token_hash, expires_at) VALUES ($1, $2)', [
      hashToken(token),
      expires,
    ]);
    // Expired sessions are of no further use: they go as new ones come.
    await this.db.query('DELETE FROM operator_sessions WHERE expires_at < $1', [
      new Date(this.now() - OPERATOR_SESSION_SECONDS * 1000),
    ]);
    return { token, expires_at: expires };
  }

  /** Whether `token` is a live session. */
  async verify(token: string): Promise<boolean> {
    if (!OPERATOR_TOKEN_PATTERN.test(token)) return false;
    const { rows } = await this.db.query<{ id: number }>(
      'SELECT id FROM operator_sessions WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2',
      [hashToken(token), new Date(this.now())],
    );
    return rows.length > 0;
  }

  /** Ends a session; false when there is no such live session. */
  async revoke(token: string): Promise<boolean> {
    if (!OPERATOR_TOKEN_PATTERN.test(token)) return false;
    const { rows } = await this.db.query<{ id: number }>(
      'UPDATE operator_sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL RETURNING id',
      [hashToken(token), new Date(this.now())],
    );
    return rows.length > 0;
  }
}
