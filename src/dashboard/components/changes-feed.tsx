import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../lib/api';
import { dateTime, lastDays } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Alert, Async, DataTable, Field, useAction } from './ui';

type Change = Schemas['ChangesPage']['changes'][number];
const PAGE = 100;

/**
 * The changes feed of the public lists (listed, delisted, relisted) since a day, in ingest order,
 * read on page by page with the feed's cursor.
 */
export function ChangesFeed() {
  const [since, setSince] = useState(lastDays(7).from);
  const [kind, setKind] = useState('');
  /** Pages read on after the first, with the More button. */
  const [more, setMore] = useState<Schemas['ChangesPage'][]>([]);
  const query = { since: `${since}T00:00:00Z`, kinds: kind || undefined, limit: PAGE };
  const first = useApi(() => call(client.GET('/api/v1/changes', { params: { query } })), [since, kind]);
  const action = useAction();
  const reset = () => setMore([]);
  const readOn = (cursor: string) =>
    action.run(async () => {
      const page = await call(client.GET('/api/v1/changes', { params: { query: { ...query, cursor } } }));
      setMore((m) => [...m, page]);
    });
  return (
    <section class="card" aria-labelledby="changes-title">
      <h2 id="changes-title">Changes feed</h2>
      <div class="form-row">
        <Field label="Since (UTC day)">
          <input
            type="date"
            value={since}
            onChange={(e) => {
              setSince(e.currentTarget.value);
              reset();
            }}
          />
        </Field>
        <Field label="Change">
          <select
            value={kind}
            onChange={(e) => {
              setKind(e.currentTarget.value);
              reset();
            }}
          >
            <option value="">All changes</option>
            <option value="listed">Listed</option>
            <option value="delisted">Delisted</option>
            <option value="relisted">Relisted</option>
          </select>
        </Field>
      </div>
      <Async state={first}>
        {(page) => {
          const all = [page, ...more];
          const rows: Change[] = all.flatMap((p) => p.changes);
          const last = all[all.length - 1];
          return (
            <>
              <DataTable
                rows={rows}
                rowKey={(c) => c.change_id}
                empty="No changes in this period."
                scroll="Changes feed"
                testId="changes"
                columns={[
                  { header: 'When', cell: (c) => dateTime(c.at) },
                  { header: 'Change', cell: (c) => c.kind },
                  { header: 'List', cell: (c) => c.list_name },
                  { header: 'Kind', cell: (c) => c.entity_type },
                  { header: 'Value', kind: 'value', cell: (c) => c.value },
                  { header: 'Version', kind: 'value', cell: (c) => c.list_version },
                ]}
              />
              {last.has_more ? (
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  onClick={() => void readOn(last.next_cursor)}
                >
                  More changes
                </button>
              ) : null}
              {action.error ? <Alert kind="error">{action.error}</Alert> : null}
            </>
          );
        }}
      </Async>
    </section>
  );
}
