import { useEffect, useRef, useState } from 'preact/hooks';
import { call, client } from '../../lib/api';
import { count, dateTime } from '../../lib/format';
import { jobSummary, settled } from '../../lib/jobs';
import { useApi } from '../../lib/use-api';
import { Alert, PageHeader, useAction } from '../../components/ui';
import { LastError, ListTable } from '../../components/list-cells';
import { listJob, UploadedLists } from '../../components/uploaded-lists';

const job = listJob('admin');

/** Each list's version, last check, last error and entity count, with a refresh button; the operator's own lists. */
export default function ListStatus() {
  const lists = useApi(() => call(client.GET('/api/v1/admin/lists/status')), []);
  const [refreshing, setRefreshing] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ failed: boolean; text: string } | null>(null);
  const action = useAction();
  // The Refresh buttons sit far down a long table: the outcome is brought into view where it appears.
  const said = useRef<HTMLDivElement>(null);
  useEffect(() => said.current?.scrollIntoView({ block: 'nearest' }), [outcome, action.error]);
  const refresh = (slug: string) => {
    setRefreshing(slug);
    setOutcome(null);
    void action
      .run(async () => {
        const done = await settled(
          call(client.POST('/api/v1/admin/lists/{slug}/refresh', { params: { path: { slug } }, body: {} })),
          job,
        );
        setOutcome({ failed: done.results.some((r) => r.result === 'failed'), text: jobSummary(done) });
        lists.reload();
      })
      .finally(() => setRefreshing(null));
  };
  return (
    <>
      <PageHeader title="List status">
        <button type="button" class="secondary" onClick={lists.reload}>
          Reload
        </button>
      </PageHeader>
      <div ref={said}>
        {outcome ? <Alert kind={outcome.failed ? 'error' : 'success'}>{outcome.text}</Alert> : null}
        {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      </div>
      <section class="card" aria-label="Lists">
        <ListTable
          state={lists}
          title="Lists"
          columns={[
            { header: 'Cadence', cell: (l) => l.cadence },
            { header: 'Version', kind: 'value', cell: (l) => l.version ?? '—' },
            { header: 'Entities', kind: 'num', cell: (l) => count(l.total) },
            { header: 'Last check', cell: (l) => dateTime(l.last_checked) },
            { header: 'Last change', cell: (l) => dateTime(l.last_updated) },
            { header: 'Last error', cell: (l) => <LastError error={l.last_error} /> },
            {
              header: 'Actions',
              kind: 'actions',
              cell: (l) =>
                l.enabled ? (
                  <button
                    type="button"
                    class="secondary"
                    disabled={refreshing !== null}
                    onClick={() => refresh(l.slug)}
                  >
                    {refreshing === l.slug ? 'Refreshing…' : 'Refresh'}
                  </button>
                ) : null,
            },
          ]}
        />
      </section>
      <UploadedLists owner="admin" title="Operator lists" />
    </>
  );
}
