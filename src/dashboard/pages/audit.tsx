import { useState } from 'preact/hooks';
import { call, client } from '../lib/api';
import { counted, dateTime, lastDays } from '../lib/format';
import { saveBlob } from '../lib/download';
import { useApi } from '../lib/use-api';
import { listChoices } from '../lib/list-choices';
import {
  Alert,
  Async,
  DataTable,
  DateRange,
  Dialog,
  Empty,
  Field,
  KeysetPager,
  PageHeader,
  SourceLink,
  useAction,
} from '../components/ui';

const PAGE = 50;

interface Filter {
  from: string;
  to: string;
  list: string;
  endpoint: string;
  value_contains: string;
}

function query(f: Filter) {
  return {
    from: f.from,
    to: f.to,
    list: f.list || undefined,
    endpoint: f.endpoint || undefined,
    value_contains: f.value_contains.trim() || undefined,
  };
}

type Json = Record<string, unknown>;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const records = (v: unknown): Json[] =>
  Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];
const listed = (items: string[]) => (items.length > 0 ? items.join('; ') : '—');

/** A name match's party as the answer gave it: names, dates, countries, identifiers, programs and score. */
function Party({ party }: { party: Json }) {
  const identifiers = records(party.identifiers).map((i) =>
    [i.type, i.value, i.country ? `(${String(i.country)})` : null].filter((x) => x !== null && x !== '').join(' '),
  );
  return (
    <dl class="details" data-testid="detail-party">
      <dt>Party</dt>
      <dd>
        {String(party.caption ?? party.name ?? '—')} {party.id ? <span class="muted">({String(party.id)})</span> : null}
      </dd>
      <dt>Aliases</dt>
      <dd class="value">{listed(records(party.aliases).map((a) => String(a.name)))}</dd>
      <dt>Birth dates</dt>
      <dd>{listed(strings(party.birth_dates))}</dd>
      <dt>Countries</dt>
      <dd>{listed(strings(party.countries))}</dd>
      <dt>Identifiers</dt>
      <dd class="value">{listed(identifiers)}</dd>
      <dt>Programs</dt>
      <dd>{listed(strings(party.programs))}</dd>
      {typeof party.score === 'number' ? (
        <>
          <dt>Score</dt>
          <dd>{party.score.toFixed(2)}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** What a match rests on: the evidence stored with it, or for an older row the listing looked up now. */
function Evidence({ metadata, evidence }: { metadata: Json | null; evidence: Json | null }) {
  if (!metadata) return <p class="muted small">The listing’s metadata is no longer in the list history.</p>;
  const explanation = metadata.explanation_text;
  return (
    <>
      {evidence && typeof explanation === 'string' ? <p data-testid="detail-explanation">{explanation}</p> : null}
      {evidence && Array.isArray(metadata.aliases) ? <Party party={metadata} /> : null}
      <h3 class="small muted">
        {evidence ? 'Listing metadata as answered' : 'Listing metadata as the list has it now'}
      </h3>
      <pre class="json" tabIndex={0} aria-label="Metadata as JSON">
        {JSON.stringify(metadata, null, 2)}
      </pre>
    </>
  );
}

/** One request's matches with the evidence stored with each. */
function MatchDetail({ requestId, day, onClose }: { requestId: string; day: string; onClose: () => void }) {
  const detail = useApi(
    () =>
      call(
        client.GET('/api/v1/account/audit/requests/{request_id}', {
          params: { path: { request_id: requestId }, query: { day } },
        }),
      ),
    [requestId, day],
  );
  return (
    <Dialog title="Match detail" onClose={onClose}>
      <Async state={detail}>
        {(d) => (
          <>
            <dl class="details">
              <dt>Request id</dt>
              <dd>
                <code data-testid="detail-request-id">{d.request_id}</code>
              </dd>
              <dt>Time</dt>
              <dd>{dateTime(d.time)}</dd>
              <dt>Endpoint</dt>
              <dd>{d.endpoint}</dd>
            </dl>
            {d.matches.map((m) => (
              <section key={`${m.list}/${m.matched_value}`} class="card" aria-label={`Match on ${m.list_name}`}>
                <dl class="details">
                  <dt>Screened value</dt>
                  <dd class="value">{m.screened_value}</dd>
                  <dt>Matched value</dt>
                  <dd class="value">{m.matched_value}</dd>
                  <dt>List</dt>
                  <dd>
                    {m.list_name}{' '}
                    <span class="muted">
                      ({m.list}, {m.list_type})
                    </span>
                  </dd>
                  <dt>Match</dt>
                  <dd>{m.match}</dd>
                  <dt>List version</dt>
                  <dd>{m.list_version || '—'}</dd>
                  <dt>Source</dt>
                  <dd>
                    <SourceLink url={m.source_url} />
                  </dd>
                </dl>
                <Evidence metadata={m.metadata} evidence={m.evidence} />
              </section>
            ))}
          </>
        )}
      </Async>
    </Dialog>
  );
}

/** The audit trail: filters, keyset pages, CSV export of the filtered set, and each match's detail. */
export default function Audit() {
  const [draft, setDraft] = useState<Filter>({ ...lastDays(30), list: '', endpoint: '', value_contains: '' });
  const [filter, setFilter] = useState<Filter>(draft);
  /** Cursors of the pages before the current one (keyset pagination), and the current page's. */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const lists = useApi(() => listChoices(), []);
  const endpoints = useApi(
    () =>
      call(
        client.GET('/api/v1/account/analytics/endpoints', { params: { query: { from: filter.from, to: filter.to } } }),
      ),
    [filter.from, filter.to],
  );
  const page = useApi(
    () => call(client.GET('/api/v1/account/audit', { params: { query: { ...query(filter), limit: PAGE, cursor } } })),
    [filter, cursor],
  );
  const [open, setOpen] = useState<{ requestId: string; day: string } | null>(null);
  const exporting = useAction();

  const apply = (e: Event) => {
    e.preventDefault();
    setFilter({ ...draft });
    setCursors([undefined]);
  };
  const exportCsv = () =>
    exporting.run(async () => {
      const blob = await call(
        client.GET('/api/v1/account/audit/export', { params: { query: query(filter) }, parseAs: 'blob' }),
      );
      saveBlob(blob as Blob, `audit-${filter.from}-${filter.to}.csv`);
    });

  return (
    <>
      <PageHeader title="Audit trail">
        <button type="button" class="secondary" onClick={() => void exportCsv()} disabled={exporting.busy}>
          {exporting.busy ? 'Exporting…' : 'Export CSV'}
        </button>
      </PageHeader>
      {exporting.error ? <Alert kind="error">{exporting.error}</Alert> : null}
      <form class="card filters" onSubmit={apply} aria-label="Filters">
        <DateRange from={draft.from} to={draft.to} onChange={(r) => setDraft({ ...draft, ...r })} />
        <Field label="List">
          <select value={draft.list} onChange={(e) => setDraft({ ...draft, list: e.currentTarget.value })}>
            <option value="">All lists</option>
            {(lists.data ?? []).map((l) => (
              <option key={l.slug} value={l.slug}>
                {l.display_name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Endpoint">
          <select value={draft.endpoint} onChange={(e) => setDraft({ ...draft, endpoint: e.currentTarget.value })}>
            <option value="">All endpoints</option>
            {(endpoints.data ?? []).map((x) => (
              <option key={x.endpoint} value={x.endpoint}>
                {x.endpoint}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Value contains">
          <input
            value={draft.value_contains}
            maxLength={200}
            onInput={(e) => setDraft({ ...draft, value_contains: e.currentTarget.value })}
          />
        </Field>
        <button type="submit">Apply</button>
      </form>
      <section class="card" aria-label="Matches">
        <Async state={page} fresh>
          {(p) =>
            p.items.length === 0 ? (
              <Empty>No matches for these filters.</Empty>
            ) : (
              <>
                <p class="muted small" data-testid="audit-total">
                  {counted(p.total, 'match', 'matches')}
                </p>
                <DataTable
                  rows={p.items}
                  rowKey={(m) => `${m.request_id}/${m.list}/${m.matched_value}`}
                  empty="No matches for these filters."
                  scroll="Matches"
                  columns={[
                    {
                      header: 'Time',
                      cell: (m) => (
                        <button
                          type="button"
                          class="row-button"
                          onClick={() => setOpen({ requestId: m.request_id, day: m.time.slice(0, 10) })}
                        >
                          {dateTime(m.time)}
                        </button>
                      ),
                    },
                    { header: 'Endpoint', cell: (m) => m.endpoint },
                    { header: 'Screened value', kind: 'value', cell: (m) => m.screened_value },
                    { header: 'Matched value', kind: 'value', cell: (m) => m.matched_value },
                    { header: 'List', cell: (m) => m.list },
                    { header: 'Match', cell: (m) => m.match },
                  ]}
                />
                <KeysetPager
                  label="Audit trail pages"
                  cursors={cursors}
                  setCursors={setCursors}
                  next={p.next_cursor}
                  back="Newer"
                  forward="Older"
                />
              </>
            )
          }
        </Async>
      </section>
      {open ? <MatchDetail requestId={open.requestId} day={open.day} onClose={() => setOpen(null)} /> : null}
    </>
  );
}
