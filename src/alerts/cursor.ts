import type { Alert } from './store.js';

/**
 * The orders of the alert list and their keyset cursors. A cursor names the order it was issued
 * for and the sort keys of the last alert of its page; the id, last of the keys, makes every
 * position unique, so that pages never skip or repeat an alert on ties.
 */

export const ALERT_SORTS = ['time', 'score'] as const;
export type AlertSort = (typeof ALERT_SORTS)[number];
export const SORT_ORDERS = ['desc', 'asc'] as const;
type SortOrder = (typeof SORT_ORDERS)[number];

export interface AlertOrder {
  sort: AlertSort;
  order: SortOrder;
}

/** A cursor that is not one this list issued, or one issued for another order. */
export class AlertCursorError extends Error {}

/** The columns an order sorts by, each with its SQL type, most significant first. */
export const SORT_COLUMNS: Record<AlertSort, readonly { column: string; type: string }[]> = {
  time: [
    { column: 'last_seen', type: 'timestamptz' },
    { column: 'id', type: 'int' },
  ],
  score: [
    { column: 'score', type: 'float8' },
    { column: 'last_seen', type: 'timestamptz' },
    { column: 'id', type: 'int' },
  ],
};

const name = (o: AlertOrder) => `${o.sort}.${o.order}`;

export function encodeCursor(o: AlertOrder, last: Alert): string {
  const keys = o.sort === 'score' ? [last.score, last.last_seen, last.id] : [last.last_seen, last.id];
  return Buffer.from([name(o), ...keys].join('|')).toString('base64url');
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^\d{1,10}$/;
const SCORE = /^(?:0|1|0?\.\d+|\d\.\d+e-\d+|\de-\d+)$/;

/** The sort keys of a cursor issued for order `o`, in SORT_COLUMNS order. */
export function decodeCursor(o: AlertOrder, cursor: string): (string | number)[] {
  const [head, ...keys] = Buffer.from(cursor, 'base64url').toString().split('|');
  const issuedFor = /^(time|score)\.(desc|asc)$/.exec(head);
  if (!issuedFor) throw new AlertCursorError('cursor is not a next_cursor of this list');
  if (head !== name(o))
    throw new AlertCursorError(
      `this cursor was issued for sort=${issuedFor[1]} and order=${issuedFor[2]}: ask with the same sort and order, or start again without a cursor`,
    );
  const [score, seen, id] = o.sort === 'score' ? keys : [undefined, ...keys];
  const valid =
    keys.length === SORT_COLUMNS[o.sort].length &&
    (o.sort === 'time' || (SCORE.test(score!) && Number(score) <= 1)) &&
    ISO.test(seen ?? '') &&
    !Number.isNaN(Date.parse(seen!)) &&
    ID.test(id ?? '');
  if (!valid) throw new AlertCursorError('cursor is not a next_cursor of this list');
  return o.sort === 'score' ? [Number(score), seen!, Number(id)] : [seen!, Number(id)];
}
