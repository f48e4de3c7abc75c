import { useEffect, useRef, useState } from 'preact/hooks';
import { count, counted, dateTime } from '../lib/format';
import { navigate } from '../lib/router';
import { useApi } from '../lib/use-api';
import {
  BOOK_PAGE,
  IMPORT_ACCEPT,
  NO_BOOK_FILTER,
  POLL_MS,
  SUBJECT_TYPE_LABEL,
  countRows,
  importFormat,
  importJob,
  listSubjects,
  startImport,
  type BookFilter,
  type SubjectJob,
  type SubjectType,
} from '../lib/subjects';
import { subjectHref } from '../lib/subject-link';
import { Alert, Async, Choice, DataTable, Empty, Field, KeysetPager, PageHeader, useAction } from '../components/ui';

const TYPES = Object.entries(SUBJECT_TYPE_LABEL) as [SubjectType, string][];

/** An import under way or finished: its progress, then what was taken and refused. */
function ImportProgress({ job, rows }: { job: SubjectJob; rows: number | null }) {
  if (job.state === 'running') {
    // A job followed from its address (the page reloaded) has no file to count: the bar only moves.
    return (
      <div class="import-progress" data-testid="import-progress">
        {rows === null ? (
          <progress aria-label="Rows read" />
        ) : (
          <progress max={Math.max(rows, job.rows_read, 1)} value={job.rows_read} aria-label="Rows read" />
        )}
        <p class="muted small" role="status">
          {rows === null
            ? `${counted(job.rows_read, 'row', 'rows')} read…`
            : `${count(job.rows_read)} of ${counted(rows, 'row', 'rows')} read…`}
        </p>
      </div>
    );
  }
  return (
    <div data-testid="import-result">
      {job.state === 'failed' ? (
        <Alert kind="error">
          The import stopped: {job.error ?? 'unknown error'}. The rows read before it stopped are kept.
        </Alert>
      ) : (
        <Alert kind="success">
          Import finished: {counted(job.taken, 'row', 'rows')} taken, {count(job.refused)} refused,{' '}
          {counted(job.alerts_opened, 'alert', 'alerts')} opened.
        </Alert>
      )}
      {job.alerts_opened > 0 ? (
        <p>
          <a href="/dashboard/alerts">Review the alerts in the review queue</a>
        </p>
      ) : null}
      {job.refused > 0 ? (
        <>
          <h3 class="card-title">Refused rows</h3>
          {job.refused > job.refused_rows.length ? (
            <p class="muted small">The first {count(job.refused_rows.length)} are listed.</p>
          ) : null}
          <DataTable
            rows={job.refused_rows}
            rowKey={(r) => r.line}
            empty="No row was refused."
            scroll="Refused rows"
            compact
            testId="refused-rows"
            columns={[
              { header: 'Line', kind: 'num', cell: (r) => count(r.line) },
              { header: 'Reason', cell: (r) => r.reason },
            ]}
          />
        </>
      ) : null}
    </div>
  );
}

/** A file chosen, sent as one import job, and the job followed until it ends. */
function Import({ onFinished }: { onFinished: () => void }) {
  const file = useRef<HTMLInputElement>(null);
  const action = useAction();
  const [job, setJob] = useState<SubjectJob | null>(null);
  const [rows, setRows] = useState<number | null>(null);
  const [lost, setLost] = useState<string | null>(null);
  useEffect(() => {
    const id = Number(new URLSearchParams(location.search).get('import'));
    if (Number.isInteger(id) && id >= 1) void action.run(async () => setJob(await importJob(id)));
  }, []);
  useEffect(() => {
    if (!job || job.state !== 'running') return;
    const timer = setTimeout(
      () =>
        void importJob(job.id).then(
          (next) => {
            setJob(next);
            if (next.state !== 'running') onFinished();
          },
          (err: Error) => setLost(`The import goes on, but its progress could not be read: ${err.message}`),
        ),
      POLL_MS,
    );
    return () => clearTimeout(timer);
  }, [job]);
  const submit = (e: Event) => {
    e.preventDefault();
    const chosen = file.current?.files?.[0];
    void action.run(async () => {
      if (!chosen) throw new Error('Choose a file to import first.');
      const format = importFormat(chosen.name);
      if (!format) throw new Error('Choose a .csv file (with a header line) or a .ndjson file (one subject per line).');
      setJob(null);
      setLost(null);
      setRows(await countRows(chosen, format.header));
      const started = await startImport(chosen, format.type);
      // The job's address keeps it: a reload follows it again.
      navigate(`/subjects?import=${started.id}`, { replace: true });
      setJob(started);
      if (started.state !== 'running') onFinished();
    });
  };
  const running = job?.state === 'running' && !lost;
  return (
    <section class="card" aria-labelledby="import-title">
      <h2 id="import-title" class="card-title">
        Import subjects
      </h2>
      <p class="muted small">
        A CSV file with a header line, or NDJSON with one subject per line; each row is added or updated by its external
        id and screened when new or changed, for one credit.
      </p>
      <form class="form-row" onSubmit={submit}>
        <Field label="File">
          <input type="file" ref={file} accept={IMPORT_ACCEPT} />
        </Field>
        <button type="submit" disabled={action.busy || running}>
          {action.busy || running ? 'Importing…' : 'Import'}
        </button>
      </form>
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      {lost ? <Alert kind="error">{lost}</Alert> : null}
      {job ? <ImportProgress job={job} rows={rows} /> : null}
    </section>
  );
}

function Filters({
  draft,
  setDraft,
  onApply,
}: {
  draft: BookFilter;
  setDraft: (f: BookFilter) => void;
  onApply: (e: Event) => void;
}) {
  const set = (patch: Partial<BookFilter>) => setDraft({ ...draft, ...patch });
  return (
    <form class="card filters" onSubmit={onApply} aria-label="Search the book">
      <Field label="Name or reference">
        <input type="search" value={draft.q} maxLength={200} onInput={(e) => set({ q: e.currentTarget.value })} />
      </Field>
      <Choice
        label="Type"
        any="Any type"
        value={draft.type}
        options={TYPES}
        onChange={(v) => set({ type: v as SubjectType | '' })}
      />
      <Field label="Country">
        <input
          value={draft.country}
          maxLength={60}
          placeholder="DE or Germany"
          onInput={(e) => set({ country: e.currentTarget.value })}
        />
      </Field>
      <Choice
        label="Alerts"
        any="With or without"
        value={draft.has_alerts}
        options={[
          ['yes', 'With open alerts'],
          ['no', 'Without open alerts'],
        ]}
        onChange={(v) => set({ has_alerts: v as BookFilter['has_alerts'] })}
      />
      <button type="submit">Search</button>
    </form>
  );
}

/** The customer's book: import, search and filters, keyset pages of subjects. */
export default function Subjects() {
  const [draft, setDraft] = useState<BookFilter>(NO_BOOK_FILTER);
  const [filter, setFilter] = useState<BookFilter>(NO_BOOK_FILTER);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [tick, setTick] = useState(0);
  const page = useApi(() => listSubjects(filter, cursor), [filter, cursor, tick]);
  const apply = (e: Event) => {
    e.preventDefault();
    if (draft.country.trim().length === 1) return;
    setFilter({ ...draft });
    setCursors([undefined]);
  };
  const narrowed = filter.q.trim() || filter.type || filter.country.trim() || filter.has_alerts;
  return (
    <>
      <PageHeader title="Subjects" />
      <Import onFinished={() => setTick((t) => t + 1)} />
      <Filters draft={draft} setDraft={setDraft} onApply={apply} />
      {draft.country.trim().length === 1 ? (
        <Alert kind="error">A country is an ISO code of two letters or more, or its name.</Alert>
      ) : null}
      <section class="card" aria-label="Subjects">
        <Async state={page} fresh>
          {(p) =>
            p.subjects.length === 0 ? (
              <Empty>
                {cursors.length > 1
                  ? 'No more subjects.'
                  : narrowed
                    ? 'No subjects for this search.'
                    : 'Your book is empty: import a file or add subjects through the API.'}
              </Empty>
            ) : (
              <>
                <DataTable
                  rows={p.subjects}
                  rowKey={(s) => s.external_id}
                  empty="No subjects."
                  scroll="Subjects"
                  testId="subjects-table"
                  columns={[
                    {
                      header: 'Reference',
                      kind: 'value',
                      cell: (s) => <a href={subjectHref(s.external_id)}>{s.external_id}</a>,
                    },
                    { header: 'Names', cell: (s) => s.names.join('; ') },
                    { header: 'Type', cell: (s) => SUBJECT_TYPE_LABEL[s.type] },
                    { header: 'Born', cell: (s) => s.birth_date ?? '—' },
                    { header: 'Countries', cell: (s) => s.countries.join(', ') || '—' },
                    {
                      header: 'Open alerts',
                      kind: 'num',
                      cell: (s) => (s.open_alerts ? <span class="badge badge-warning">{s.open_alerts}</span> : '0'),
                    },
                    { header: 'Screened', cell: (s) => dateTime(s.screened_at) },
                  ]}
                />
                <KeysetPager
                  label="Subject pages"
                  cursors={cursors}
                  setCursors={setCursors}
                  next={p.next_cursor}
                  forward={`Next ${BOOK_PAGE}`}
                />
              </>
            )
          }
        </Async>
      </section>
    </>
  );
}
