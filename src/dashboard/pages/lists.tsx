import { call, client } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Async, Empty, PageHeader, TableScroll } from '../components/ui';

/**
 * The lists screened against (what /screen/lists and /stats give) and the delisted feed. Further
 * list pages (the changes feed, private lists) sit beside these sections.
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
        <Async state={lists}>
          {(rows) => (
            <TableScroll label="Source lists">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">List</th>
                    <th scope="col">Type</th>
                    <th scope="col">Updates</th>
                    <th scope="col" class="num">Entities</th>
                    <th scope="col">Last update</th>
                    <th scope="col">Last error</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((l) => {
                    const source = stats.data?.sources[l.slug];
                    return (
                      <tr key={l.slug}>
                        <td>
                          {l.display_name} <span class="muted small">{l.slug}</span>
                          {l.enabled ? null : <span class="badge"> disabled</span>}
                        </td>
                        <td>{l.list_type}</td>
                        <td>{l.cadence}</td>
                        <td class="num">{count(l.total)}</td>
                        <td>{dateTime(l.last_updated)}</td>
                        <td>{source?.last_error ? <span class="badge badge-danger">{source.last_error}</span> : '—'}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableScroll>
          )}
        </Async>
      </section>
      <section class="card" aria-labelledby="delisted-title">
        <h2 id="delisted-title">Recently delisted</h2>
        <Async state={delisted}>
          {(rows) =>
            rows.length === 0 ? (
              <Empty>No delistings recorded.</Empty>
            ) : (
              <TableScroll label="Recently delisted">
                <table class="table">
                  <thead>
                    <tr>
                      <th scope="col">Removed</th>
                      <th scope="col">List</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Value</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((d) => (
                      <tr key={`${d.list}/${d.entity_type}/${d.value}`}>
                        <td>{dateTime(d.removed_at)}</td>
                        <td>{d.list}</td>
                        <td>{d.entity_type}</td>
                        <td class="value">{d.value}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            )
          }
        </Async>
      </section>
    </>
  );
}
