import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestMeta } from '../core/endpoint.js';
import type { Charge } from '../core/gate.js';
import { HttpError, serviceUnavailable, unauthorized } from '../core/errors.js';
import { bearer } from './gate-credentials.js';
import { freeCharge } from './free-charge.js';

export interface OperatorSessionVerifier {
  verify(token: string): Promise<boolean>;
}

const BY_KEY = freeCharge({ kind: 'admin', via: 'key' });
const BY_SESSION = freeCharge({ kind: 'admin', via: 'session' });

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

function invalidAdmin(): HttpError {
  return unauthorized('Invalid admin key or operator session', { 'WWW-Authenticate': 'Bearer' });
}

/**
 * Authentication for `admin` endpoints: a bearer credential that is one of `keys` (ADMIN_KEY, the
 * local operator key; unset ones are skipped) or a live operator session. No key at all: 503.
 */
export function adminAuthenticator(
  keys: readonly (string | undefined)[],
  sessions: OperatorSessionVerifier | undefined,
): (meta: RequestMeta) => Charge | Promise<Charge> {
  const digests = keys.filter((k): k is string => !!k).map(digest);
  return (meta) => {
    if (digests.length === 0) throw serviceUnavailable('admin API disabled');
    const key = bearer(meta.headers.authorization);
    if (!key) throw invalidAdmin();
    const given = digest(key);
    // Every key is compared, so the time taken does not tell which one came close.
    let ok = false;
    for (const k of digests) if (timingSafeEqual(given, k)) ok = true;
    if (ok) return BY_KEY;
    if (!sessions) throw invalidAdmin();
    return sessions.verify(key).then((live) => {
      if (!live) throw invalidAdmin();
      return BY_SESSION;
    });
  };
}
