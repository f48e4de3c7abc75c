import { hash, randomBytes } from 'node:crypto';

/**
 * API token format: `sk_` followed by 32 characters of base62 (0-9, A-Z, a-z) drawn uniformly
 * from the system CSPRNG — about 190 bits. Only the SHA-256 (hex) of the whole string is stored;
 * the first 8 characters (`sk_` + 5) are kept as a visible prefix for listings. Operator session
 * tokens have the same form with `op_`.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
export const TOKEN_PATTERN = /^sk_[0-9A-Za-z]{32}$/;
export const TOKEN_LENGTH = 3 + BODY_LENGTH;
const PREFIX_LENGTH = 8;

export const OPERATOR_TOKEN_PATTERN = /^op_[0-9A-Za-z]{32}$/;

export function generateToken(prefix: 'sk' | 'op' = 'sk'): string {
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(48)) {
      // 248 = 4 × 62: rejecting the bytes above keeps every character equally likely.
      if (byte < 248 && body.length < BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return `${prefix}_${body}`;
}

/** One-shot hashing: on every metered request, and several times cheaper than a Hash object. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export function tokenPrefix(token: string): string {
  return token.slice(0, PREFIX_LENGTH);
}
