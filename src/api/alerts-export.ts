import type { AlertDetail } from '../alerts/store.js';
import { csvPageChunks } from './csv.js';

/**
 * The body of `GET /account/alerts/export` (docs/alerts.md). CSV has one row per alert, so that a
 * spreadsheet's filters and sorts work on alerts; its history is one cell, an event per line.
 * JSON is an array of AlertDetail: a download cut off is invalid JSON, never a shorter list.
 */

export const ALERT_CSV_COLUMNS = [
  'id',
  'status',
  'version',
  'screened_value',
  'matched_value',
  'listed_party',
  'list',
  'list_type',
  'match',
  'score',
  'occurrences',
  'first_seen',
  'last_seen',
  'decided_at',
  'list_version',
  'request_id',
  'subject_external_id',
  'history',
] as const;

type Event = AlertDetail['history'][number];

/** One event as a line: "<at> decision <status> on version <n> by <label> (token <id>): <comment>". */
function eventLine(e: Event): string {
  const who = `${e.token_label ?? 'an unnamed token'} (token ${e.token_id})`;
  const what = e.kind === 'decision' ? `decision ${e.status} on version ${e.on_version}` : 'comment';
  return `${e.at} ${what} by ${who}${e.comment === null ? '' : `: ${e.comment}`}`;
}

function csvRow(a: AlertDetail): string[] {
  return [
    String(a.id),
    a.status,
    String(a.version),
    a.screened_value,
    a.matched_value,
    a.listed_party,
    a.list,
    a.list_type,
    a.match,
    String(a.score),
    String(a.occurrences),
    a.first_seen,
    a.last_seen,
    a.decided_at ?? '',
    a.evidence.list_version,
    a.evidence.request_id,
    a.subject?.external_id ?? '',
    a.history.map(eventLine).join('\n'),
  ];
}

async function* csvPages(pages: AsyncIterable<AlertDetail[]>): AsyncIterable<string[][]> {
  for await (const page of pages) yield page.map(csvRow);
}

export function alertCsv(pages: AsyncIterable<AlertDetail[]>): AsyncIterable<string> {
  return csvPageChunks(ALERT_CSV_COLUMNS, csvPages(pages));
}

export async function* alertJsonArray(pages: AsyncIterable<AlertDetail[]>): AsyncIterable<string> {
  let first = true;
  yield '[';
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield (first ? '\n' : ',\n') + page.map((a) => JSON.stringify(a)).join(',\n');
    first = false;
  }
  yield first ? ']\n' : '\n]\n';
}
