import { useState } from 'preact/hooks';
import { call, client } from '../lib/api';
import { count, dateTime, lastDays, usd } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Async, DateRange, Empty, PageHeader, TableScroll } from '../components/ui';
import { Chart } from '../components/chart';

/** Requests and credits per day and per endpoint, and x402 payments. */
export default function Usage() {
  const [range, setRange] = useState(lastDays(30));
  const daily = useApi(() => call(client.GET('/api/v1/account/analytics/daily', { params: { query: range } })), [range]);
  const endpoints = useApi(() => call(client.GET('/api/v1/account/analytics/endpoints', { params: { query: range } })), [range]);
  const perDay = useApi(() => call(client.GET('/api/v1/account/usage', { params: { query: range } })), [range]);
  const payments = useApi(() => call(client.GET('/api/v1/account/payments', { params: { query: range } })), [range]);
  return (
    <>
      <PageHeader title="Usage">
        <DateRange from={range.from} to={range.to} onChange={setRange} />
      </PageHeader>
      <section class="card" aria-label="Requests and credits per day">
        <Async state={daily}>
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
        <Async state={endpoints}>
          {(rows) =>
            rows.length === 0 ? (
              <Empty>No requests in this period.</Empty>
            ) : (
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Endpoint</th>
                    <th scope="col" class="num">Requests</th>
                    <th scope="col" class="num">Credits</th>
                    <th scope="col" class="num">Paid with x402</th>
                    <th scope="col" class="num">Matches</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.endpoint}>
                      <td>{r.endpoint}</td>
                      <td class="num">{count(r.requests)}</td>
                      <td class="num">{count(r.credits)}</td>
                      <td class="num">{count(r.paid_requests)}</td>
                      <td class="num">{count(r.matches)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Async>
      </section>
      <section class="card" aria-labelledby="per-day">
        <h2 id="per-day">Per endpoint and day</h2>
        <Async state={perDay}>
          {(rows) =>
            rows.length === 0 ? (
              <Empty>No requests in this period.</Empty>
            ) : (
              <details>
                <summary>{count(rows.length)} rows</summary>
                <table class="table compact">
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col">Endpoint</th>
                      <th scope="col" class="num">Requests</th>
                      <th scope="col" class="num">Credits</th>
                      <th scope="col" class="num">Paid with x402</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={`${r.day}/${r.endpoint}`}>
                        <td>{r.day}</td>
                        <td>{r.endpoint}</td>
                        <td class="num">{count(r.requests)}</td>
                        <td class="num">{count(r.credits)}</td>
                        <td class="num">{count(r.paid_requests)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            )
          }
        </Async>
      </section>
      <section class="card" aria-labelledby="payments">
        <h2 id="payments">x402 payments</h2>
        <Async state={payments}>
          {(rows) =>
            rows.length === 0 ? (
              <Empty>No pay-per-request payments in this period.</Empty>
            ) : (
              <TableScroll label="x402 payments">
                <table class="table">
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Endpoint</th>
                      <th scope="col" class="num">Amount</th>
                      <th scope="col">Network</th>
                      <th scope="col">Transaction</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((p) => (
                      <tr key={p.request_id}>
                        <td>{dateTime(p.time)}</td>
                        <td>{p.endpoint}</td>
                        <td class="num">{usd(p.amount)}</td>
                        <td>{p.network}</td>
                        <td class="value">{p.tx_hash}</td>
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
