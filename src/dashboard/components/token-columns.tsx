import type { Schemas } from '../lib/api';
import { dateTime } from '../lib/format';
import type { Column } from './ui';

type Token = Schemas['ApiToken'];

/** The columns of a token table (the customer's tokens page, the operator's customer page). */
export function tokenColumns(opts: { current?: number; onRevoke: (t: Token) => void }): Column<Token>[] {
  return [
    {
      header: 'Name',
      cell: (t) => (
        <>
          {t.name ?? <span class="muted">unnamed</span>}
          {t.id === opts.current ? <span class="badge"> this session</span> : null}
        </>
      ),
    },
    { header: 'Token', cell: (t) => <code>{t.prefix}…</code> },
    { header: 'Scopes', cell: (t) => t.scopes.join(', ') },
    { header: 'Created', cell: (t) => dateTime(t.created_at) },
    { header: 'Last used', cell: (t) => dateTime(t.last_used_at) },
    {
      header: 'Status',
      cell: (t) =>
        t.revoked_at ? (
          <span class="badge badge-danger">revoked {t.revoked_at.slice(0, 10)}</span>
        ) : (
          <span class="badge badge-success">active</span>
        ),
    },
    {
      header: 'Actions',
      kind: 'actions',
      cell: (t) =>
        t.revoked_at ? null : (
          <button
            type="button"
            class="danger"
            onClick={() => opts.onRevoke(t)}
            aria-label={`Revoke ${t.name ?? t.prefix}`}
          >
            Revoke
          </button>
        ),
    },
  ];
}
