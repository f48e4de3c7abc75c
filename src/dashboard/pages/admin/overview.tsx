import { useState } from 'preact/hooks';
import { call, client } from '../../lib/api';
import { count, lastDays } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Alert, Async, DataTable, DateRange, PageHeader } from '../../components/ui';
import { DailyCard, ListsCard } from '../../components/activity';
import { TopValues } from '../../components/top-values';

/** Activity across customers: requests and matches per day, the busiest customers, matches per list. */
export default function OperatorOverview() {
  const [range, setRange] = useState(lastDays(30));
  const daily = useApi(() => call(client.GET('/api/v1/admin/analytics/daily', { params: { query: range } })), [range]);
  const customers = useApi(
    () => call(client.GET('/api/v1/admin/analytics/customers', { params: { query: { ...range, limit: 10 } } })),
    [range],
  );
  const lists = useApi(() => call(client.GET('/api/v1/admin/analytics/lists', { params: { query: range } })), [range]);
  const top = useApi(
    () => call(client.GET('/api/v1/admin/analytics/top-values', { params: { query: range } })),
    [range],
  );
  const pending = useApi(
    () => call(client.GET('/api/v1/admin/plan-requests', { params: { query: { status: 'pending' } } })),
    [],
  );
  return (
    <>
      <PageHeader title="Operator overview">
        <DateRange from={range.from} to={range.to} onChange={setRange} />
      </PageHeader>
      {pending.data && pending.data.length > 0 ? (
        <Alert kind="info">
          {pending.data.length} plan change request{pending.data.length === 1 ? '' : 's'} waiting:{' '}
          <a href="/dashboard/admin/plans">review them</a>.
        </Alert>
      ) : null}
      <div class="grid-2">
        <DailyCard state={daily} title="Requests and matches per day, all customers" />
        <ListsCard state={lists} title="Matches per list, all customers" />
      </div>
      <section class="card" aria-labelledby="busiest">
        <h2 id="busiest">Busiest customers</h2>
        <Async state={customers}>
          {(rows) => (
            <DataTable
              rows={rows}
              rowKey={(c) => c.customer_id}
              empty="No requests in this period."
              columns={[
                {
                  header: 'Customer',
                  cell: (c) =>
                    c.customer_id === 0 ? (
                      <span class="muted">anonymous x402 payers</span>
                    ) : (
                      <a href={`/dashboard/admin/customers/${c.customer_id}`}>{c.name ?? `#${c.customer_id}`}</a>
                    ),
                },
                { header: 'Requests', kind: 'num', cell: (c) => count(c.requests) },
                { header: 'Credits', kind: 'num', cell: (c) => count(c.credits) },
                { header: 'Paid with x402', kind: 'num', cell: (c) => count(c.paid_requests) },
              ]}
            />
          )}
        </Async>
      </section>
      <TopValues state={top} title="Most matched values, all customers" />
    </>
  );
}
