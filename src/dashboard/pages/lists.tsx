import { call, client } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Async, DataTable, PageHeader } from '../components/ui';
import { LastError, ListTable } from '../components/list-cells';
import { ChangesFeed } from '../components/changes-feed';

/**
 * The lists screened against (what /screen/lists and /stats give), the changes feed and the
 * delisted feed. The customer's own lists have their page (Private lists).
 */
export default function Lists() {
  const lists = useApi(() => call(client.GET('/api/v1/screen/lists')), []);
  const stats = useApi(() => call(client.GET('/api/v1/stats')), []);
  const delisted = useApi(() => call(client.GET('/api/v1/delisted', { params: { query: { limit: 50 } } })), []);
  return (
    <>
      <PageHeader title="Lists" />
      <Async state={stats}>
        {(s) => (
          <section class="stats" aria-label="Totals">
            <div class="stat">
              <span class="stat-label">Country and region designations</span>
              <span class="stat-value">{count(s.countries)}</span>
            </div>
            <div class="stat">
              <span class="stat-label">Delisted entities</span>
              <span class="stat-value">{count(s.delisted)}</span>
            </div>
            <div class="stat">
              <span class="stat-label">Last list update</span>
              <span class="stat-value small">{dateTime(s.last_updated)}</span>
            </div>
            <div class="stat">
              <span class="stat-label">Next primary list check</span>
              <span class="stat-value small">{dateTime(s.primary_refresh.next_check_at)}</span>
            </div>
          </section>
        )}
      </Async>
      <section class="card" aria-labelledby="lists-title">
        <h2 id="lists-title">Source lists</h2>
        <ListTable
          state={lists}
          title="Source lists"
          columns={[
            { header: 'Type', cell: (l) => l.list_type },
            { header: 'Updates', cell: (l) => l.cadence },
            { header: 'Entities', kind: 'num', cell: (l) => count(l.total) },
            { header: 'Last update', cell: (l) => dateTime(l.last_updated) },
            { header: 'Last error', cell: (l) => <LastError error={stats.data?.sources[l.slug]?.last_error} /> },
          ]}
        />
      </section>
      <ChangesFeed />
      <section class="card" aria-labelledby="delisted-title">
        <h2 id="delisted-title">Recently delisted</h2>
        <Async state={delisted}>
          {(rows) => (
            <DataTable
              rows={rows}
              rowKey={(d) => `${d.list}/${d.entity_type}/${d.value}`}
              empty="No delistings recorded."
              scroll="Recently delisted"
              columns={[
                { header: 'Removed', cell: (d) => dateTime(d.removed_at) },
                { header: 'List', cell: (d) => d.list },
                { header: 'Kind', cell: (d) => d.entity_type },
                { header: 'Value', kind: 'value', cell: (d) => d.value },
              ]}
            />
          )}
        </Async>
      </section>
    </>
  );
}
