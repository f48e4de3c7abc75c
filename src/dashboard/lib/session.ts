/**
 * Who is signed in, kept in sessionStorage (this tab only, gone when it closes): a customer's API
 * token, or the operator's session token (never the admin key itself). Never in a URL, a cookie
 * or a log line.
 */
export interface Session {
  kind: 'customer' | 'operator';
  token: string;
  /** Customer or operator name shown in the header. */
  name: string;
  /** Operator sessions expire (ISO time). */
  expiresAt?: string;
}

const KEY = 'screening.dashboard.session';
const listeners = new Set<() => void>();
let current: Session | null = read();
/** Why the last session ended, shown once on the sign-in page. */
let endedBecause: string | null = null;

function read(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

function changed(): void {
  for (const l of listeners) l();
}

export function session(): Session | null {
  return current;
}

export function signIn(s: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
  current = s;
  endedBecause = null;
  changed();
}

/** Clears the session; `reason` is shown on the sign-in page. */
export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(KEY);
  current = null;
  endedBecause = reason;
  changed();
}

/** The reason the last session ended, once. */
export function takeEndReason(): string | null {
  const r = endedBecause;
  endedBecause = null;
  return r;
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
