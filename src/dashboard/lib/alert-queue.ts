import { ApiError, call, client, detailText, type Schemas } from './api';
import { session } from './session';
import { STATUSES, type AlertStatus } from './alerts';

/** The review queue's filters as the form holds them (strings: empty means "any"). */
export interface QueueFilter {
  status: AlertStatus | '';
  list: string;
  kind: string;
  min_score: string;
  max_score: string;
  from: string;
  to: string;
  text: string;
  /** A subject's external id. */
  subject: string;
  sort: 'time' | 'score';
  limit: number;
}

const NO_FILTER: QueueFilter = {
  status: '',
  list: '',
  kind: '',
  min_score: '',
  max_score: '',
  from: '',
  to: '',
  text: '',
  subject: '',
  sort: 'time',
  limit: 50,
};

export const PAGE_SIZES = [25, 50, 100, 200, 500];
export const MATCH_KINDS = ['exact', 'subdomain', 'domain', 'region', 'fuzzy', 'regex'];

/** The queue as a link opens it: `?subject=` narrows it to one subject's alerts (from the subject's page). */
export function linkedFilter(search: string): QueueFilter {
  const subject = new URLSearchParams(search).get('subject') ?? '';
  return { ...NO_FILTER, subject };
}

/** The day after `YYYY-MM-DD` at midnight UTC: the To day is included. */
function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
}

/** Whether a filter narrows the queue at all (the sort and page size do not). */
export function narrows(f: QueueFilter): boolean {
  return Object.values(queueQuery({ ...f, sort: 'time' })).some((v) => v !== undefined);
}

/** What is wrong with a filter, as a sentence, or null. */
export function filterProblem(f: QueueFilter): string | null {
  const min = f.min_score === '' ? null : Number(f.min_score);
  const max = f.max_score === '' ? null : Number(f.max_score);
  for (const s of [min, max]) {
    if (s !== null && !(s >= 0 && s <= 1)) return 'A score is a number from 0 to 1, such as 0.85.';
  }
  if (min !== null && max !== null && min > max)
    return 'The lowest score is above the highest: choose a lowest score at or below the highest.';
  if (f.from && f.to && f.from > f.to)
    return 'The From date is after the To date: choose a From on or before the To date.';
  return null;
}

/**
 * The list's query. `sort`, `min_score` and `max_score` are sent only when they narrow or reorder
 * the list, so that the default queue asks only what every version of the API answers.
 */
export function queueQuery(f: QueueFilter) {
  return {
    status: f.status || undefined,
    list: f.list || undefined,
    kind: (f.kind || undefined) as Schemas['AlertPage']['items'][number]['match'] | undefined,
    since: f.from ? `${f.from}T00:00:00.000Z` : undefined,
    until: f.to ? dayAfter(f.to) : undefined,
    text: f.text.trim() || undefined,
    subject: f.subject.trim() || undefined,
    min_score: f.min_score === '' ? undefined : Number(f.min_score),
    max_score: f.max_score === '' ? undefined : Number(f.max_score),
    sort: f.sort === 'time' ? undefined : f.sort,
  };
}

/** A page of alerts; a refused filter is told as a sentence (the API's answer is validator text). */
export async function listAlerts(query: { limit: number; [k: string]: unknown }): Promise<Schemas['AlertPage']> {
  try {
    // The score filter and sort are newer than the generated types; the API validates them.
    return await call(client.GET('/api/v1/account/alerts', { params: { query: query as { limit: number } } }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 422)
      throw new ApiError(
        422,
        'The service did not accept these filters. Clear the score range and the sort, then apply again.',
      );
    throw err;
  }
}

/** How many alerts have each status, counted up to `cap` (the API has no count per status for a customer). */
export async function statusCounts(cap = 500): Promise<Record<AlertStatus, { n: number; more: boolean }>> {
  const pages = await Promise.all(STATUSES.map((status) => listAlerts({ status, limit: cap })));
  return Object.fromEntries(
    STATUSES.map((s, i) => [s, { n: pages[i].items.length, more: pages[i].next_cursor !== null }]),
  ) as Record<AlertStatus, { n: number; more: boolean }>;
}

/** The filtered alerts with their history as a file (CSV or JSON), fetched with the session's token. */
export async function exportAlerts(f: QueueFilter, format: 'csv' | 'json'): Promise<Blob> {
  const params = new URLSearchParams({ format });
  for (const [k, v] of Object.entries(queueQuery(f))) if (v !== undefined) params.set(k, String(v));
  let res: Response;
  try {
    res = await fetch(`/api/v1/account/alerts/export?${params}`, {
      headers: { Authorization: `Bearer ${session()?.token ?? ''}` },
    });
  } catch {
    throw new ApiError(0, 'The service could not be reached. Check your connection and try again.');
  }
  if (res.status === 404) throw new ApiError(404, 'This service does not offer an export of alerts yet.');
  if (!res.ok) throw new ApiError(res.status, detailText(await res.json().catch(() => null), res.status));
  return res.blob();
}
