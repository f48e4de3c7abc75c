import { useState } from 'preact/hooks';
import { call, client } from '../../lib/api';
import { count, lastDays } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Alert, Async, DateRange, Empty, PageHeader } from '../../components/ui';
import { Chart } from '../../components/chart';

/** Activity across customers: requests and matches per day, the busiest customers, matches per list. */
export default function OperatorOverview() {
  const [range, setRange] = useState(lastDays(30));
  const daily = useApi(() => call(client.GET('/api/v1/admin/analytics/daily', { params: { query: range } })), [range]);
  const customers = useApi(() => call(client.GET('/api/v1/admin/analytics/customers', { params: { query: { ...range, limit: 10 } } })), [range]);
  const lists = useApi(() => call(client.GET('/api/v1/admin/analytics/lists', { params: { query: range } })), [range]);
  const pending = useApi(() => call(client.GET('/api/v1/admin/plan-requests', { params: { query: { status: 'pending' } } })), []);
  return (
    <>
      <PageHeader title="Operator overview">
        <DateRange from={range.from} to={range.to} onChange={setRange} />
      </PageHeader>
      {pending.data && pending.data.length > 0 ? (
        <Alert kind="info">
          {pending.data.length} plan change request{pending.data.length === 1 ? '' : 's'} waiting: <a href="/dashboard/admin/plans">review them</a>.
        </Alert>
      ) : null}
      <div class="grid-2">
        <section class="card" aria-label="Requests and matches per day">
          <Async state={daily}>
            {(days) => (
              <Chart
                title="Requests and matches per day, all customers"
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
                <Empty>No matches in this period.</Empty>
              ) : (
                <Chart title="Matches per list, all customers" axis="categories" labels={rows.map((r) => r.list)} series={[{ label: 'Matches', values: rows.map((r) => r.matches), color: 'danger' }]} />
              )
            }
          </Async>
        </section>
      </div>
      <section class="card" aria-labelledby="busiest">
        <h2 id="busiest">Busiest customers</h2>
        <Async state={customers}>
          {(rows) =>
            rows.length === 0 ? (
              <Empty>No requests in this period.</Empty>
            ) : (
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Customer</th>
                    <th scope="col" class="num">Requests</th>
                    <th scope="col" class="num">Credits</th>
                    <th scope="col" class="num">Paid with x402</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((c) => (
                    <tr key={c.customer_id}>
                      <td>{c.customer_id === 0 ? <span class="muted">anonymous x402 payers</span> : <a href={`/dashboard/admin/customers/${c.customer_id}`}>{c.name ?? `#${c.customer_id}`}</a>}</td>
                      <td class="num">{count(c.requests)}</td>
                      <td class="num">{count(c.credits)}</td>
                      <td class="num">{count(c.paid_requests)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Async>
      </section>
    </>
  );
}
