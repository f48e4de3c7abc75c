import { useState } from 'preact/hooks';
import { call, client } from '../../lib/api';
import { count, dateTime } from '../../lib/format';
import { jobSummary, settled } from '../../lib/jobs';
import { useApi } from '../../lib/use-api';
import { Alert, Async, DataTable, PageHeader, useAction } from '../../components/ui';
import { LastError, ListName } from '../../components/list-cells';
import { UploadedLists, type UploadedListsApi } from '../../components/uploaded-lists';

const job = (job_id: number) => call(client.GET('/api/v1/admin/lists/jobs/{job_id}', { params: { path: { job_id } } }));

const OPERATOR_LISTS: UploadedListsApi = {
  idLabel: 'Slug',
  idHint: '3-48 lower-case letters, digits, underscores, starting with a letter.',
  list: () => call(client.GET('/api/v1/admin/lists')),
  create: (l) =>
    settled(
      call(client.POST('/api/v1/admin/lists', { body: { slug: l.id, display_name: l.display_name, list_type: l.list_type, entity_types: l.entity_types, in_default_set: l.in_default_set } })),
      job,
    ),
  upload: (slug, file, type) =>
    settled(
      call(
        client.POST('/api/v1/admin/lists/{slug}/upload', {
          params: { path: { slug } },
          body: file as unknown as string,
          bodySerializer: (b: unknown) => b as BodyInit,
          headers: { 'Content-Type': type },
        }),
      ),
      job,
    ),
  remove: (slug) => settled(call(client.DELETE('/api/v1/admin/lists/{slug}', { params: { path: { slug } } })), job),
};

/** Each list's version, last check, last error and entity count, with a refresh button; the operator's own lists. */
export default function ListStatus() {
  const lists = useApi(() => call(client.GET('/api/v1/admin/lists/status')), []);
  const [refreshing, setRefreshing] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ failed: boolean; text: string } | null>(null);
  const action = useAction();
  const refresh = (slug: string) => {
    setRefreshing(slug);
    setOutcome(null);
    void action
      .run(async () => {
        const done = await settled(call(client.POST('/api/v1/admin/lists/{slug}/refresh', { params: { path: { slug } }, body: {} })), job);
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
      {outcome ? <Alert kind={outcome.failed ? 'error' : 'success'}>{outcome.text}</Alert> : null}
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
      <UploadedLists api={OPERATOR_LISTS} title="Operator lists" />
    </>
  );
}
