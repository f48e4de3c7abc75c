import { ApiError, type Schemas } from './api';

/**
 * What the review pages know about alerts beyond the generated types: the fields that the
 * four-eyes rule and the explanations add are optional, so that the pages work with and without them.
 */
export type AlertStatus = Schemas['AlertStatus'];
export type AlertRow = Schemas['Alert'];

/** A four-eyes proposal waiting for a second analyst. */
export interface PendingDecision {
  status: AlertStatus;
  token_id: number;
  token_label: string | null;
  comment?: string | null;
  at: string;
}

/** A field of the listed party's record as decided (`from`) and as a later list version has it (`to`). */
export type PartyChanges = Record<string, { from: string[]; to: string[] }>;

/** An event of the history: decisions, comments, four-eyes proposals and approvals, and the system's re-openings. */
export type AlertEvent = Omit<Schemas['AlertEvent'], 'kind'> & { kind: string; changes?: PartyChanges | null };

export type AlertView = Omit<Schemas['AlertDetail'], 'history'> & {
  history: AlertEvent[];
  pending?: PendingDecision | null;
};

const FIELD_LABEL: Record<string, string> = {
  name: 'name',
  aliases: 'aliases',
  birth_dates: 'birth dates',
  identifiers: 'identifiers',
  programs: 'programs',
};

/** "birth dates: 1971 → 1972": what changed in the listed party, one line per field. */
export function changeLines(changes: PartyChanges | null | undefined): string[] {
  return Object.entries(changes ?? {}).map(
    ([field, c]) =>
      `${FIELD_LABEL[field] ?? field.replace(/_/g, ' ')}: ${c.from.join(', ') || 'none'} → ${c.to.join(', ') || 'none'}`,
  );
}

/** What an event did, in words. */
export function eventText(e: AlertEvent): string {
  const status = e.status ? STATUS_LABEL[e.status].toLowerCase() : '';
  switch (e.kind) {
    case 'comment':
      return 'Comment';
    case 'proposal':
      return `Proposed ${status}`;
    case 'approval':
      return `Approved ${status}`;
    case 'reopened':
      return 'Re-opened';
    case 'party_changed':
      return 'The listed party changed';
    default:
      return status ? `Set to ${status}` : 'Decision';
  }
}

/** What an analyst may set; `delisted` is the system's (a delisting), for a person to close. */
export type DecisionStatus = Exclude<AlertStatus, 'delisted'>;
export const DECISION_STATUSES: DecisionStatus[] = ['open', 'escalated', 'confirmed', 'false_positive', 'closed'];
export const STATUSES: AlertStatus[] = [...DECISION_STATUSES, 'delisted'];

export const STATUS_LABEL: Record<AlertStatus, string> = {
  open: 'Open',
  escalated: 'Escalated',
  confirmed: 'Confirmed match',
  false_positive: 'False positive',
  closed: 'Closed',
  delisted: 'Delisted',
};

/** The badge class of a status: open work stands out, settled alerts are quiet. */
export const STATUS_BADGE: Record<AlertStatus, string> = {
  open: 'badge badge-warning',
  escalated: 'badge badge-danger',
  confirmed: 'badge badge-danger',
  false_positive: 'badge badge-success',
  closed: 'badge',
  delisted: 'badge badge-warning',
};

/** Statuses whose decision must say why (the API refuses them without a comment). */
export const NEEDS_COMMENT: readonly AlertStatus[] = ['confirmed', 'false_positive'];

export const COMMENT_MISSING = 'Write a comment first: confirming a match or marking a false positive needs a reason.';

/** The analyst who did something: the token's name, else its number. */
export function analyst(e: { token_id: number | null; token_label: string | null }): string {
  if (e.token_label) return e.token_label;
  return e.token_id ? `token ${e.token_id}` : 'the service';
}

/** "Proposed false positive by alice: awaiting a second analyst." */
export function pendingSentence(p: PendingDecision): string {
  return `Proposed ${STATUS_LABEL[p.status].toLowerCase()} by ${analyst(p)}: awaiting a second analyst.`;
}

/**
 * A failed decision as a sentence: a 409 means someone decided since the page loaded; the
 * other answers keep the service's own sentence.
 */
export function decisionError(err: unknown, many = false): string {
  if (err instanceof ApiError && err.status === 409) {
    return many
      ? 'Someone decided one of the selected alerts since this page loaded, so nothing was recorded. Reload the queue and decide again.'
      : 'Someone decided this alert since you opened it, so your decision was not recorded. Reload the alert to see theirs, then decide again.';
  }
  if (err instanceof ApiError && err.status === 403) {
    return many
      ? 'You proposed one of these decisions yourself: under the four-eyes rule another analyst must approve it, so nothing was recorded.'
      : 'You proposed this decision yourself: under the four-eyes rule another analyst must approve it.';
  }
  if (err instanceof ApiError && err.status === 404) {
    return many
      ? 'One of the selected alerts no longer exists, so nothing was recorded. Reload the queue.'
      : 'This alert no longer exists.';
  }
  if (err instanceof ApiError && err.status === 422) return COMMENT_MISSING;
  return (err as Error).message;
}

/** Lower-case tokens of a name without accents or punctuation, to compare two names part by part. */
function nameTokens(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Whether two name parts of four letters or more differ by one letter (added, left out, replaced, or two swapped). */
function closeSpelling(a: string, b: string): boolean {
  if (a.length < 4 || b.length < 4 || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const tail = (x: string, n: number) => x.slice(i + n);
  return (
    tail(a, 1) === tail(b, 1) ||
    tail(a, 1) === tail(b, 0) ||
    tail(a, 0) === tail(b, 1) ||
    (a[i] === b[i + 1] && a[i + 1] === b[i] && tail(a, 2) === tail(b, 2))
  );
}

export type Agreement = 'same' | 'close' | null;

/**
 * A name cut into its parts, each marked `same` when the other name has the same part (lower-case,
 * without accents), `close` when it has one a letter away: what the name matcher agreed on, roughly.
 */
export function markAgreeing(name: string, other: string): { text: string; agrees: Agreement }[] {
  const theirs = nameTokens(other);
  const same = new Set(theirs);
  return name
    .split(/(\s+|[,;()]+)/)
    .filter((part) => part !== '')
    .map((text) => {
      const tokens = nameTokens(text);
      if (tokens.length === 0) return { text, agrees: null };
      if (tokens.every((t) => same.has(t))) return { text, agrees: 'same' };
      if (tokens.every((t) => same.has(t) || theirs.some((o) => closeSpelling(t, o)))) return { text, agrees: 'close' };
      return { text, agrees: null };
    });
}

/** A listed party's fields as the screening answered them (`evidence.answer.metadata`). */
export interface PartyView {
  caption: string | null;
  aliases: string[];
  birth_dates: string[];
  countries: string[];
  identifiers: string[];
  programs: string[];
  party_type: string | null;
  explanation_text: string | null;
  review: { status: string; decided_at: string | null } | null;
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function identifier(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (!v || typeof v !== 'object') return null;
  const { type, value, country } = v as { type?: unknown; value?: unknown; country?: unknown };
  if (typeof value !== 'string') return null;
  return [text(type), value, text(country) ? `(${String(country)})` : null].filter(Boolean).join(' ');
}

export function partyOf(answer: Record<string, unknown>): PartyView {
  const m = (answer.metadata && typeof answer.metadata === 'object' ? answer.metadata : {}) as Record<string, unknown>;
  const aliases = Array.isArray(m.aliases)
    ? m.aliases.map((a) => (typeof a === 'string' ? a : text((a as { name?: unknown } | null)?.name))).filter(Boolean)
    : [];
  const review = m.review && typeof m.review === 'object' ? (m.review as PartyView['review']) : null;
  return {
    caption: text(m.caption) ?? text(m.name),
    aliases: aliases as string[],
    birth_dates: strings(m.birth_dates),
    countries: strings(m.countries),
    identifiers: (Array.isArray(m.identifiers) ? m.identifiers.map(identifier) : []).filter(
      (x): x is string => x !== null,
    ),
    programs: strings(m.programs),
    party_type: text(m.party_type),
    explanation_text: text(m.explanation_text),
    review,
  };
}

export function sourceUrl(answer: Record<string, unknown>): string | null {
  return text(answer.source_url);
}
