import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../../lib/api';
import { count, dateTime } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Alert, Async, DataTable, PageHeader, useAction } from '../../components/ui';
import { LastError, ListName } from '../../components/list-cells';

function outcomeText(o: Schemas['ListRefreshOutcome']): string {
  switch (o.result) {
    case 'new_version':
      return `${o.slug}: new version ${o.version} (${count(o.changes)} changes).`;
    case 'unchanged':
      return `${o.slug}: checked, unchanged.`;
    case 'reloaded':
      return `${o.slug}: reloaded the leader’s committed version ${o.version}.`;
    case 'not_configured':
      return `${o.slug}: not configured on this server (${o.error ?? 'see its last error'}).`;
    default:
      return `${o.slug}: the check failed: ${o.error ?? 'unknown error'}. The previous version stays in service.`;
  }
}

/** Each list's version, last check, last error and entity count, with a refresh button. */
export default function ListStatus() {
  const lists = useApi(() => call(client.GET('/api/v1/admin/lists')), []);
  const [refreshing, setRefreshing] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Schemas['ListRefreshOutcome'] | null>(null);
  const action = useAction();
  const refresh = (slug: string) => {
    setRefreshing(slug);
    setOutcome(null);
    void action
      .run(async () => {
        setOutcome(await call(client.POST('/api/v1/admin/lists/{slug}/refresh', { params: { path: { slug } } })));
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
      {outcome ? <Alert kind={outcome.result === 'failed' ? 'error' : 'success'}>{outcomeText(outcome)}</Alert> : null}
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      <section class="card" aria-label="Lists">
        <Async state={lists}>
          {(rows) => (
            <DataTable
              rows={rows}
              rowKey={(l) => l.slug}
              empty="No lists."
              scroll="Lists"
              columns={[
                { header: 'List', cell: (l) => <ListName name={l.display_name} slug={l.slug} enabled={l.enabled} /> },
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
                      <button type="button" class="secondary" disabled={refreshing !== null} onClick={() => refresh(l.slug)}>
                        {refreshing === l.slug ? 'Refreshing…' : 'Refresh'}
                      </button>
                    ) : null,
                },
              ]}
            />
          )}
        </Async>
      </section>
    </>
  );
}
