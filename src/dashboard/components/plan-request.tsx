import type { Schemas } from '../lib/api';

/** A plan change request's status as a badge (billing page and operator pages). */
export function RequestStatus({ status }: { status: Schemas['PlanChangeRequest']['status'] }) {
  const kind = { pending: 'badge-warning', approved: 'badge-success', declined: 'badge-danger', cancelled: '' }[status];
  return <span class={`badge ${kind}`}>{status}</span>;
}
