/** Cells shared by the customer's and the operator's list tables. */
export function ListName({ name, slug, enabled }: { name: string; slug: string; enabled: boolean }) {
  return (
    <>
      {name} <span class="muted small">{slug}</span>
      {enabled ? null : <span class="badge"> disabled</span>}
    </>
  );
}

export function LastError({ error }: { error: string | null | undefined }) {
  return error ? <span class="badge badge-danger">{error}</span> : <>—</>;
}
