import { call, client } from '../lib/api';
import { count, dateTime, lastDays } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Async, Empty, PageHeader } from '../components/ui';
import { Chart } from '../components/chart';
import { QuotaCards } from '../components/quota';

const RANGE_DAYS = 30;

/** Quota this month, requests and matches per day, matches per list, and the latest matches. */
export default function Overview() {
  const range = lastDays(RANGE_DAYS);
  const account = useApi(() => call(client.GET('/api/v1/account')), []);
  const daily = useApi(() => call(client.GET('/api/v1/account/analytics/daily', { params: { query: range } })), []);
  const lists = useApi(() => call(client.GET('/api/v1/account/analytics/lists', { params: { query: range } })), []);
  const recent = useApi(() => call(client.GET('/api/v1/account/audit', { params: { query: { limit: 10 } } })), []);
  return (
    <>
      <PageHeader title="Overview" />
      <Async state={account}>{(a) => <QuotaCards quota={a.quota} plan={a.plan} />}</Async>
      <div class="grid-2">
        <section class="card" aria-label="Requests and matches per day">
          <Async state={daily}>
            {(days) => (
              <Chart
                title={`Requests and matches per day (last ${RANGE_DAYS} days)`}
                axis="days"
                labels={days.map((d) => d.day)}
                series={[
                  { label: 'Requests', values: days.map((d) => d.requests), color: 'primary' },
                  { label: 'Matches', values: days.map((d) => d.matches), color: 'danger' },
                ]}
              />
            )}
          </Async>
        </section>
        <section class="card" aria-label="Matches per list">
          <Async state={lists}>
            {(rows) =>
              rows.length === 0 ? (
                <>
                  <h2 class="card-title">Matches per list</h2>
                  <Empty>No matches in the last {RANGE_DAYS} days.</Empty>
                </>
              ) : (
                <Chart
                  title={`Matches per list (last ${RANGE_DAYS} days)`}
                  axis="categories"
                  labels={rows.map((r) => r.list)}
                  series={[{ label: 'Matches', values: rows.map((r) => r.matches), color: 'danger' }]}
                />
              )
            }
          </Async>
        </section>
      </div>
      <section class="card" aria-labelledby="recent-title">
        <header class="card-header">
          <h2 id="recent-title" class="card-title">
            Recent matches
          </h2>
          <a href="/dashboard/audit">Open the audit trail</a>
        </header>
        <Async state={recent}>
          {(page) =>
            page.items.length === 0 ? (
              <Empty>No matches yet. Screened values that match a list appear here.</Empty>
            ) : (
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Screened value</th>
                    <th scope="col">List</th>
                    <th scope="col">Match</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((m) => (
                    <tr key={`${m.request_id}/${m.list}/${m.matched_value}`}>
                      <td>{dateTime(m.time)}</td>
                      <td class="value">{m.screened_value}</td>
                      <td>{m.list}</td>
                      <td>{m.match}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Async>
        {recent.data ? <p class="muted small">{count(recent.data.total)} matches in the last 30 days.</p> : null}
      </section>
    </>
  );
}
