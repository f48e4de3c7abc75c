import type { Logger } from 'pino';
import type { Queryable } from '../store/db.js';
import type { AlertStatus } from './store.js';

/**
 * What screening answers say of a customer's decided alerts (`metadata.review`), without asking
 * the database per request: each customer's decided alerts are read once, on the customer's first
 * screening, and kept for the most recent customers (LRU). A decision made on this node is applied
 * before it is answered; other nodes hear it from the `alerts` trigger of migration 077 (NOTIFY
 * REVIEW_CHANNEL), and so does this node when the alert store reopens an alert itself.
 */

/** NOTIFY channel of alerts whose status or decision time changed; the payload is `customer_id:alert_id`. */
export const REVIEW_CHANNEL = 'alert_reviews';

export interface Review {
  alert_id: number;
  status: AlertStatus;
  decided_at: string;
}

/** An alert as the view keeps it: its key (customer, screened value, list, listed key) and its review. */
export interface ReviewedAlert {
  customer_id: number;
  id: number;
  screened_value: string;
  list: string;
  listed_key: string;
  status: AlertStatus;
  decided_at: Date | string | null;
}

const keyOf = (screened: string, list: string, listedKey: string) => `${screened}\u0000${list}\u0000${listedKey}`;

/**
 * The key an alert of a match is stored under: a name match's party (`metadata.id`), else the
 * listed value (as `listedKey` in src/alerts/store.ts).
 */
export function listedKeyOf(match: { value: string; metadata?: unknown }): string {
  const id = (match.metadata as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : match.value;
}

/** One customer's decided alerts; `pending` until they are read. */
export class CustomerReviews {
  pending: Promise<void> | null = null;
  private readonly byKey = new Map<string, Review>();

  /** The review of the match of `screened` on `list` (see listedKeyOf); undefined while no decision was made on it. */
  get(screened: string, list: string, listedKey: string): Review | undefined {
    return this.byKey.size === 0 ? undefined : this.byKey.get(keyOf(screened, list, listedKey));
  }

  set(a: ReviewedAlert): void {
    const key = keyOf(a.screened_value, a.list, a.listed_key);
    if (a.decided_at === null) this.byKey.delete(key);
    else this.byKey.set(key, { alert_id: a.id, status: a.status, decided_at: new Date(a.decided_at).toISOString() });
  }
}

const SELECT = 'SELECT customer_id, id, screened_value, list, listed_key, status, decided_at FROM alerts';

export class ReviewView {
  private readonly customers = new Map<number, CustomerReviews>();
  /** The customer last asked for, already the Map's most recent. */
  private recent: { customerId: number; reviews: CustomerReviews } | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly log: Logger,
    /** Customers kept at once; the least recently screening one is dropped first. */
    private readonly maxCustomers = 1_000,
  ) {}

  /** The customer's reviews: read on first use (wait for `pending`), kept while the customer screens. */
  of(customerId: number): CustomerReviews {
    // The customer screening again is answered without touching the Map (a delete and set per
    // request showed in the no-match route's profile).
    if (this.recent?.customerId === customerId && this.customers.get(customerId) === this.recent.reviews)
      return this.recent.reviews;
    let reviews = this.customers.get(customerId);
    if (reviews) {
      // Re-inserted: a Map iterates in insertion order, so its first key is the least recently used.
      this.customers.delete(customerId);
      this.customers.set(customerId, reviews);
      this.recent = { customerId, reviews };
      return reviews;
    }
    reviews = new CustomerReviews();
    this.customers.set(customerId, reviews);
    this.recent = { customerId, reviews };
    if (this.customers.size > this.maxCustomers) this.customers.delete(this.customers.keys().next().value!);
    const loading = reviews;
    loading.pending = this.db
      .query<ReviewedAlert>(`${SELECT} WHERE customer_id = $1 AND decided_at IS NOT NULL`, [customerId])
      .then(
        ({ rows }) => {
          for (const row of rows) loading.set(row);
          loading.pending = null;
        },
        (err: unknown) => {
          // Not kept: the next screening of the customer reads again.
          if (this.customers.get(customerId) === loading) this.customers.delete(customerId);
          loading.pending = null;
          this.log.error({ err, customerId }, 'decided alerts not read; this answer has no reviews');
        },
      );
    return reviews;
  }

  /** An alert as it now stands (a decision this node made): applied when its customer is kept. */
  apply(a: ReviewedAlert): void {
    const reviews = this.customers.get(a.customer_id);
    if (!reviews) return;
    // An answer already waiting for the customer's first read gets the row read, then this.
    if (reviews.pending) void reviews.pending.then(() => reviews.set(a));
    else reviews.set(a);
  }

  /** A REVIEW_CHANNEL payload: the alert is read again when its customer is kept. */
  changed(payload: string): void {
    const [customerId, id] = payload.split(':').map(Number);
    if (!Number.isInteger(customerId) || !Number.isInteger(id) || !this.customers.has(customerId)) return;
    this.db
      .query<ReviewedAlert>(`${SELECT} WHERE customer_id = $1 AND id = $2`, [customerId, id])
      .then(({ rows }) => rows.forEach((row) => this.apply(row)))
      .catch((err: unknown) => this.log.error({ err, customerId, id }, 'changed alert not read'));
  }
}
