import type { Schemas } from '../lib/api';
import type { Loaded } from '../lib/use-api';
import { Chart } from './chart';
import { Async, Empty } from './ui';

/** Requests and matches per day (the customer's overview, the operator's overview and customer page). */
export function DailyCard({ state, title }: { state: Loaded<Schemas['DailyActivity'][]>; title: string }) {
  return (
    <section class="card" aria-label="Requests and matches per day">
      <Async state={state}>
        {(days) => (
          <Chart
            title={title}
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
  );
}

/** Matches per list (the customer's and the operator's overviews). */
export function ListsCard({ state, title }: { state: Loaded<Schemas['ListActivity'][]>; title: string }) {
  return (
    <section class="card" aria-label="Matches per list">
      <Async state={state}>
        {(rows) =>
          rows.length === 0 ? (
            <>
              <h2 class="card-title">{title}</h2>
              <Empty>No matches in this period.</Empty>
            </>
          ) : (
            <Chart
              title={title}
              axis="categories"
              labels={rows.map((r) => r.list)}
              series={[{ label: 'Matches', values: rows.map((r) => r.matches), color: 'danger' }]}
            />
          )
        }
      </Async>
    </section>
  );
}
