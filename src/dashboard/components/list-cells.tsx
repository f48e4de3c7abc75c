import type { Loaded } from '../lib/use-api';
import { Async, DataTable, type Column } from './ui';

/** Cells shared by the customer's and the operator's list tables. */
function ListName({ name, slug, enabled }: { name: string; slug: string; enabled: boolean }) {
  return (
    <>
      {name} <span class="muted small">{slug}</span>
      {enabled ? null : <span class="badge"> disabled</span>}
    </>
  );
}

export function LastError({ error }: { error: string | null | undefined }) {
  return error ? <span class="badge badge-danger long">{error}</span> : <>—</>;
}

/** The lists as a table, each named first (the customer's Lists page, the operator's List status), then `columns`. */
export function ListTable<L extends { slug: string; display_name: string; enabled: boolean }>({
  state,
  title,
  columns,
}: {
  state: Loaded<L[]>;
  title: string;
  columns: Column<L>[];
}) {
  return (
    <Async state={state}>
      {(rows) => (
        <DataTable
          rows={rows}
          rowKey={(l) => l.slug}
          empty="No lists."
          scroll={title}
          columns={[
            { header: 'List', cell: (l) => <ListName name={l.display_name} slug={l.slug} enabled={l.enabled} /> },
            ...columns,
          ]}
        />
      )}
    </Async>
  );
}
