import type { Schemas } from '../lib/api';
import { count, dateTime } from '../lib/format';
import type { Loaded } from '../lib/use-api';
import { Async, DataTable } from './ui';

/** The listed values matched most often (customer and operator overviews). */
export function TopValues({ state, title }: { state: Loaded<Schemas['TopValue'][]>; title: string }) {
  return (
    <section class="card" aria-labelledby="top-values-title">
      <h2 id="top-values-title" class="card-title">
        {title}
      </h2>
      <Async state={state}>
        {(rows) => (
          <DataTable
            rows={rows}
            rowKey={(v) => `${v.list}/${v.matched_value}`}
            empty="No matches in this period."
            scroll={title}
            columns={[
              { header: 'Listed value', kind: 'value', cell: (v) => v.matched_value },
              { header: 'List', cell: (v) => v.list },
              { header: 'Matches', kind: 'num', cell: (v) => count(v.matches) },
              { header: 'Last match', cell: (v) => dateTime(v.last_match_at) },
            ]}
          />
        )}
      </Async>
    </section>
  );
}
