import { call, client } from '../lib/api';
import { counted, dateTime, lastDays } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Async, DataTable, PageHeader } from '../components/ui';
import { DailyCard, ListsCard } from '../components/activity';
import { QuotaCards } from '../components/quota';
import { TopValues } from '../components/top-values';

const RANGE_DAYS = 30;

/** Quota this month, requests and matches per day, matches per list, and the latest matches. */
export default function Overview() {
  const range = lastDays(RANGE_DAYS);
  const account = useApi(() => call(client.GET('/api/v1/account')), []);
  const daily = useApi(() => call(client.GET('/api/v1/account/analytics/daily', { params: { query: range } })), []);
  const lists = useApi(() => call(client.GET('/api/v1/account/analytics/lists', { params: { query: range } })), []);
  const recent = useApi(() => call(client.GET('/api/v1/account/audit', { params: { query: { limit: 10 } } })), []);
  const top = useApi(() => call(client.GET('/api/v1/account/analytics/top-values', { params: { query: range } })), []);
  return (
    <>
      <PageHeader title="Overview" />
      <Async state={account}>{(a) => <QuotaCards quota={a.quota} plan={a.plan} />}</Async>
      <div class="grid-2">
        <DailyCard state={daily} title={`Requests and matches per day (last ${RANGE_DAYS} days)`} />
        <ListsCard state={lists} title={`Matches per list (last ${RANGE_DAYS} days)`} />
      </div>
      <section class="card" aria-labelledby="recent-title">
        <header class="card-header">
          <h2 id="recent-title" class="card-title">
            Recent matches
          </h2>
          <a href="/dashboard/audit">Open the audit trail</a>
        </header>
        <Async state={recent}>
          {(page) => (
            <DataTable
              rows={page.items}
              rowKey={(m) => `${m.request_id}/${m.list}/${m.matched_value}`}
              empty="No matches yet. Screened values that match a list appear here."
              scroll="Recent matches"
              columns={[
                { header: 'Time', cell: (m) => dateTime(m.time) },
                { header: 'Screened value', kind: 'value', cell: (m) => m.screened_value },
                { header: 'List', cell: (m) => m.list },
                { header: 'Match', cell: (m) => m.match },
              ]}
            />
          )}
        </Async>
        {recent.data ? (
          <p class="muted small">{counted(recent.data.total, 'match', 'matches')} in the last 30 days.</p>
        ) : null}
      </section>
      <TopValues state={top} title={`Most matched values (last ${RANGE_DAYS} days)`} />
    </>
  );
}
