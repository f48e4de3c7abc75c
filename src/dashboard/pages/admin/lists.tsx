import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../../lib/api';
import { count, dateTime } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Alert, Async, PageHeader, useAction, TableScroll } from '../../components/ui';

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
            <TableScroll label="Lists">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">List</th>
                    <th scope="col">Cadence</th>
                    <th scope="col">Version</th>
                    <th scope="col" class="num">Entities</th>
                    <th scope="col">Last check</th>
                    <th scope="col">Last change</th>
                    <th scope="col">Last error</th>
                    <th scope="col">
                      <span class="muted">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((l) => (
                    <tr key={l.slug}>
                      <td>
                        {l.display_name} <span class="muted small">{l.slug}</span>
                        {l.enabled ? null : <span class="badge"> disabled</span>}
                      </td>
                      <td>{l.cadence}</td>
                      <td class="value">{l.version ?? '—'}</td>
                      <td class="num">{count(l.total)}</td>
                      <td>{dateTime(l.last_checked)}</td>
                      <td>{dateTime(l.last_updated)}</td>
                      <td>{l.last_error ? <span class="badge badge-danger">{l.last_error}</span> : '—'}</td>
                      <td class="actions">
                        {l.enabled ? (
                          <button type="button" class="secondary" disabled={refreshing !== null} onClick={() => refresh(l.slug)}>
                            {refreshing === l.slug ? 'Refreshing…' : 'Refresh'}
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
        </Async>
      </section>
    </>
  );
}
