import type { RequestMeta } from '../core/endpoint.js';
import { HttpError, forbidden, unauthorized } from '../core/errors.js';
import { TOKEN_LENGTH } from './token-format.js';
import type { TokenIdentity } from './tokens.js';

const BEARER = 'Bearer ';

export interface TokenVerifier {
  verify(token: string): TokenIdentity | null | Promise<TokenIdentity | null>;
}

export function invalidTokenError(): HttpError {
  return unauthorized('Invalid or revoked API token', { 'WWW-Authenticate': 'Bearer' });
}

/** A valid token without the scope an endpoint needs (documented on every such endpoint). */
export function missingScopeError(scope: 'screen' | 'dashboard'): HttpError {
  const what =
    scope === 'screen' ? 'call the metered endpoints' : 'use the /account API (usage, audit trail, tokens, webhooks)';
  return forbidden(`This token lacks the "${scope}" scope: it cannot ${what}`);
}

/**
 * `undefined`: no Authorization header; `null`: a header that is not a well-formed bearer
 * credential (treated like an invalid token); else the token.
 */
export function bearer(header: string | undefined): string | null | undefined {
  if (header === undefined || header === '') return undefined;
  // The usual spelling without the regex. When the rest is not a token (whitespace in it), the
  // regex would also have found none or a shorter one, which fails the token check all the same.
  if (header.length === BEARER.length + TOKEN_LENGTH && header.startsWith(BEARER)) return header.slice(BEARER.length);
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1] : null;
}

/** `undefined`: no Authorization header; `null`: a malformed, unknown or revoked token. */
export function identify(
  tokens: TokenVerifier,
  meta: RequestMeta,
): TokenIdentity | null | undefined | Promise<TokenIdentity | null> {
  const token = bearer(meta.headers.authorization);
  if (token === undefined || token === null) return token;
  return tokens.verify(token);
}
