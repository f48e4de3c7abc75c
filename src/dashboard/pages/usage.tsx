import { useState } from 'preact/hooks';
import { call, client } from '../lib/api';
import { count, dateTime, lastDays, usd } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Alert, Async, BACKWARDS_RANGE, DataTable, DateRange, Empty, PageHeader } from '../components/ui';
import { Chart } from '../components/chart';

type Range = { from: string; to: string };

/** Requests and credits per day and per endpoint, and x402 payments. */
export default function Usage() {
  const [range, setRange] = useState(lastDays(30));
  return (
    <>
      <PageHeader title="Usage">
        <DateRange from={range.from} to={range.to} onChange={setRange} />
      </PageHeader>
      {range.from > range.to ? <Alert kind="error">{BACKWARDS_RANGE}</Alert> : <UsageIn range={range} />}
    </>
  );
}

/** The usage of one valid range (a new range is a new set of calls). */
function UsageIn({ range }: { range: Range }) {
  const daily = useApi(
    () => call(client.GET('/api/v1/account/analytics/daily', { params: { query: range } })),
    [range],
  );
  const endpoints = useApi(
    () => call(client.GET('/api/v1/account/analytics/endpoints', { params: { query: range } })),
    [range],
  );
  const perDay = useApi(() => call(client.GET('/api/v1/account/usage', { params: { query: range } })), [range]);
  const payments = useApi(() => call(client.GET('/api/v1/account/payments', { params: { query: range } })), [range]);
  return (
    <>
      <section class="card" aria-label="Requests and credits per day">
        <Async state={daily} fresh>
          {(days) => (
            <Chart
              title="Requests and credits per day"
              axis="days"
              labels={days.map((d) => d.day)}
              series={[
                { label: 'Requests', values: days.map((d) => d.requests), color: 'primary' },
                { label: 'Credits', values: days.map((d) => d.credits), color: 'neutral' },
              ]}
            />
          )}
        </Async>
      </section>
      <section class="card" aria-labelledby="per-endpoint">
        <h2 id="per-endpoint">Per endpoint</h2>
        <Async state={endpoints} fresh>
          {(rows) => (
            <DataTable
              rows={rows}
              rowKey={(r) => r.endpoint}
              empty="No requests in this period."
              columns={[
                { header: 'Endpoint', cell: (r) => r.endpoint },
                { header: 'Requests', kind: 'num', cell: (r) => count(r.requests) },
                { header: 'Credits', kind: 'num', cell: (r) => count(r.credits) },
                { header: 'Paid with x402', kind: 'num', cell: (r) => count(r.paid_requests) },
                { header: 'Matches', kind: 'num', cell: (r) => count(r.matches) },
              ]}
            />
          )}
        </Async>
      </section>
      <section class="card" aria-labelledby="per-day">
        <h2 id="per-day">Per endpoint and day</h2>
        <Async state={perDay} fresh>
          {(rows) =>
            rows.length === 0 ? (
              <Empty>No requests in this period.</Empty>
            ) : (
              <details>
                <summary>{count(rows.length)} rows</summary>
                <DataTable
                  rows={rows}
                  rowKey={(r) => `${r.day}/${r.endpoint}`}
                  empty="No requests in this period."
                  compact
                  columns={[
                    { header: 'Day', cell: (r) => r.day },
                    { header: 'Endpoint', cell: (r) => r.endpoint },
                    { header: 'Requests', kind: 'num', cell: (r) => count(r.requests) },
                    { header: 'Credits', kind: 'num', cell: (r) => count(r.credits) },
                    { header: 'Paid with x402', kind: 'num', cell: (r) => count(r.paid_requests) },
                  ]}
                />
              </details>
            )
          }
        </Async>
      </section>
      <section class="card" aria-labelledby="payments">
        <h2 id="payments">x402 payments</h2>
        <Async state={payments} fresh>
          {(rows) => (
            <DataTable
              rows={rows}
              rowKey={(p) => p.request_id}
              empty="No pay-per-request payments in this period."
              scroll="x402 payments"
              columns={[
                { header: 'Time', cell: (p) => dateTime(p.time) },
                { header: 'Endpoint', cell: (p) => p.endpoint },
                { header: 'Amount', kind: 'num', cell: (p) => usd(p.amount) },
                { header: 'Network', cell: (p) => p.network },
                { header: 'Transaction', kind: 'value', cell: (p) => p.tx_hash },
              ]}
            />
          )}
        </Async>
      </section>
    </>
  );
}
