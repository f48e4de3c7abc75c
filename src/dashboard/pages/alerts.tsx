import { useState } from 'preact/hooks';
import { call, client } from '../lib/api';
import { count, counted, dateTime } from '../lib/format';
import { saveBlob } from '../lib/download';
import { useApi } from '../lib/use-api';
import { listChoices } from '../lib/list-choices';
import { subjectHref } from '../lib/subject-link';
import {
  COMMENT_MISSING,
  NEEDS_COMMENT,
  STATUSES,
  DECISION_STATUSES,
  STATUS_BADGE,
  STATUS_LABEL,
  decisionError,
  type AlertRow,
  type AlertStatus,
  type DecisionStatus,
  type AlertView,
} from '../lib/alerts';
import {
  MATCH_KINDS,
  PAGE_SIZES,
  exportAlerts,
  filterProblem,
  linkedFilter,
  listAlerts,
  narrows,
  queueQuery,
  statusCounts,
  type QueueFilter,
} from '../lib/alert-queue';
import { Alert, Async, Choice, DataTable, Empty, Field, KeysetPager, PageHeader, useAction } from '../components/ui';

/** Chips that filter by status, each with its count (and "All"). */
function StatusChips({
  current,
  onPick,
  counts,
}: {
  current: AlertStatus | '';
  onPick: (s: AlertStatus | '') => void;
  counts: Record<AlertStatus, { n: number; more: boolean }> | undefined;
}) {
  const label = (s: AlertStatus) => {
    const c = counts?.[s];
    return c ? `${STATUS_LABEL[s]} ${count(c.n)}${c.more ? '+' : ''}` : STATUS_LABEL[s];
  };
  return (
    <div class="chips" role="group" aria-label="Alerts by status" data-testid="status-counts">
      <button type="button" class="chip" aria-pressed={current === '' ? 'true' : 'false'} onClick={() => onPick('')}>
        All
      </button>
      {STATUSES.map((s) => (
        <button
          type="button"
          key={s}
          class="chip"
          aria-pressed={current === s ? 'true' : 'false'}
          onClick={() => onPick(s)}
        >
          {label(s)}
        </button>
      ))}
    </div>
  );
}

function Filters({
  draft,
  setDraft,
  onApply,
  lists,
}: {
  draft: QueueFilter;
  setDraft: (f: QueueFilter) => void;
  onApply: (e: Event) => void;
  lists: { slug: string; display_name: string }[];
}) {
  const set = (patch: Partial<QueueFilter>) => setDraft({ ...draft, ...patch });
  return (
    <form class="card filters" onSubmit={onApply} aria-label="Filters">
      <Choice
        label="Status"
        any="Any status"
        value={draft.status}
        options={STATUSES.map((st) => [st, STATUS_LABEL[st]])}
        onChange={(v) => set({ status: v as AlertStatus | '' })}
      />
      <Choice
        label="List"
        any="All lists"
        value={draft.list}
        options={lists.map((l) => [l.slug, l.display_name])}
        onChange={(v) => set({ list: v })}
      />
      <Choice
        label="Match"
        any="Any match"
        value={draft.kind}
        options={MATCH_KINDS.map((k) => [k, k])}
        onChange={(v) => set({ kind: v })}
      />
      {(
        [
          ['Score from', 'min_score'],
          ['Score to', 'max_score'],
        ] as const
      ).map(([label, key]) => (
        <Field key={key} label={label}>
          <input
            type="number"
            class="score-input"
            min={0}
            max={1}
            step={0.01}
            value={draft[key]}
            onInput={(e) => set({ [key]: e.currentTarget.value })}
          />
        </Field>
      ))}
      <Field label="Seen from">
        <input type="date" value={draft.from} onChange={(e) => set({ from: e.currentTarget.value })} />
      </Field>
      <Field label="Seen to">
        <input type="date" value={draft.to} onChange={(e) => set({ to: e.currentTarget.value })} />
      </Field>
      <Field label="Value contains">
        <input value={draft.text} maxLength={200} onInput={(e) => set({ text: e.currentTarget.value })} />
      </Field>
      <Field label="Subject" hint="A subject’s reference (external id).">
        <input value={draft.subject} maxLength={200} onInput={(e) => set({ subject: e.currentTarget.value })} />
      </Field>
      <Field label="Sort by">
        <select value={draft.sort} onChange={(e) => set({ sort: e.currentTarget.value as QueueFilter['sort'] })}>
          <option value="time">Last seen, newest first</option>
          <option value="score">Score, highest first</option>
        </select>
      </Field>
      <Field label="Per page">
        <select value={String(draft.limit)} onChange={(e) => set({ limit: Number(e.currentTarget.value) })}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit">Apply</button>
    </form>
  );
}

/** The decision for the selected rows: one status and comment for all, recorded all or none. */
function BulkDecision({
  selected,
  onDone,
  onReload,
}: {
  selected: Map<number, number>;
  onDone: (message: string) => void;
  onReload: () => void;
}) {
  const [status, setStatus] = useState<DecisionStatus>('false_positive');
  const [comment, setComment] = useState('');
  const action = useAction();
  const [problem, setProblem] = useState<string | null>(null);
  const needsComment = NEEDS_COMMENT.includes(status);
  const submit = (e: Event) => {
    e.preventDefault();
    setProblem(null);
    if (needsComment && !comment.trim()) return setProblem(COMMENT_MISSING);
    void action.run(async () => {
      const decisions = [...selected].map(([id, version]) => ({
        id,
        version,
        status,
        comment: comment.trim() || undefined,
      }));
      try {
        const res = await call(client.POST('/api/v1/account/alerts/decisions', { body: { decisions } }));
        const pending = (res.alerts as AlertView[]).filter((a) => a.pending).length;
        setComment('');
        onDone(
          pending
            ? `${counted(pending, 'alert awaits', 'alerts await')} a second analyst’s approval.`
            : `${counted(res.alerts.length, 'alert', 'alerts')} set to ${STATUS_LABEL[status].toLowerCase()}.`,
        );
      } catch (err) {
        throw new Error(decisionError(err, true), { cause: err });
      }
    });
  };
  const error = problem ?? action.error;
  return (
    <form class="card bulk" onSubmit={submit} aria-label="Decide the selected alerts">
      <h2 class="card-title">Decide {counted(selected.size, 'selected alert', 'selected alerts')}</h2>
      <div class="form-row">
        <Field label="New status">
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as DecisionStatus)}>
            {DECISION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABEL[s]}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label={needsComment ? 'Comment (required)' : 'Comment'}
          hint={needsComment ? 'Confirming a match or marking a false positive needs a reason.' : undefined}
        >
          <textarea
            rows={2}
            maxLength={4000}
            value={comment}
            aria-invalid={problem ? 'true' : undefined}
            onInput={(e) => setComment(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" disabled={action.busy || selected.size === 0}>
          {action.busy ? 'Recording…' : 'Record decision'}
        </button>
      </div>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {action.error ? (
        <button type="button" class="secondary" onClick={onReload}>
          Reload the queue
        </button>
      ) : null}
    </form>
  );
}

/** The subject a row's match came from: its reference, linking to its page, and its names. */
function SubjectLine({ subject }: { subject: NonNullable<AlertRow['subject']> }) {
  return (
    <div class="small" data-testid="alert-subject">
      Subject <a href={subjectHref(subject.external_id)}>{subject.external_id}</a>{' '}
      <span class="muted">{subject.names.join('; ')}</span>
    </div>
  );
}

function Rows({
  rows,
  selected,
  toggle,
  toggleAll,
}: {
  rows: AlertRow[];
  selected: Map<number, number>;
  toggle: (a: AlertRow) => void;
  toggleAll: (on: boolean) => void;
}) {
  const all = rows.every((r) => selected.has(r.id));
  return (
    <>
      <label class="select-all">
        <input type="checkbox" checked={all} onChange={(e) => toggleAll(e.currentTarget.checked)} /> Select all on this
        page
      </label>
      <DataTable
        rows={rows}
        rowKey={(a) => a.id}
        empty="No alerts for these filters."
        scroll="Alerts"
        testId="alerts-table"
        columns={[
          {
            header: 'Select',
            kind: 'actions',
            cell: (a) => (
              <input
                type="checkbox"
                aria-label={`Select alert ${a.id}`}
                checked={selected.has(a.id)}
                onChange={() => toggle(a)}
              />
            ),
          },
          {
            header: 'Screened value',
            kind: 'value',
            cell: (a) => (
              <>
                <a href={`/dashboard/alerts/${a.id}`}>{a.screened_value}</a>
                {a.subject ? <SubjectLine subject={a.subject} /> : null}
              </>
            ),
          },
          { header: 'Matched', kind: 'value', cell: (a) => a.matched_value },
          { header: 'Status', cell: (a) => <span class={STATUS_BADGE[a.status]}>{STATUS_LABEL[a.status]}</span> },
          { header: 'List', cell: (a) => a.list },
          { header: 'Score', kind: 'num', cell: (a) => a.score.toFixed(2) },
          { header: 'Match', cell: (a) => a.match },
          { header: 'Seen', kind: 'num', cell: (a) => count(a.occurrences) },
          { header: 'Last seen', cell: (a) => dateTime(a.last_seen) },
        ]}
      />
    </>
  );
}

/** The review queue: counts per status, filters, keyset pages, bulk decisions and exports. */
export default function Alerts() {
  const [draft, setDraft] = useState<QueueFilter>(() => linkedFilter(location.search));
  const [filter, setFilter] = useState<QueueFilter>(draft);
  const [problem, setProblem] = useState<string | null>(null);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [selected, setSelected] = useState<Map<number, number>>(new Map());
  const [done, setDone] = useState<string | null>(null);
  const lists = useApi(() => listChoices(), []);
  const [tick, setTick] = useState(0);
  const counts = useApi(() => statusCounts(), [tick]);
  const page = useApi(() => listAlerts({ ...queueQuery(filter), limit: filter.limit, cursor }), [filter, cursor, tick]);
  const exporting = useAction();
  const account = useApi(() => call(client.GET('/api/v1/account')), []);

  const show = (f: QueueFilter) => {
    const wrong = filterProblem(f);
    setProblem(wrong);
    if (wrong) return;
    setFilter({ ...f });
    setCursors([undefined]);
    setSelected(new Map());
  };
  const apply = (e: Event) => {
    e.preventDefault();
    setDone(null);
    show(draft);
  };
  const pick = (status: AlertStatus | '') => {
    const f = { ...draft, status };
    setDraft(f);
    show(f);
  };
  const reload = () => {
    setSelected(new Map());
    setTick((t) => t + 1);
  };
  const toggle = (a: AlertRow) => {
    const next = new Map(selected);
    if (next.has(a.id)) next.delete(a.id);
    else next.set(a.id, a.version);
    setSelected(next);
  };
  const toggleAll = (rows: AlertRow[], on: boolean) => {
    const next = new Map(selected);
    for (const r of rows) {
      if (on) next.set(r.id, r.version);
      else next.delete(r.id);
    }
    setSelected(next);
  };
  const download = (format: 'csv' | 'json') =>
    exporting.run(async () => saveBlob(await exportAlerts(filter, format), `alerts.${format}`));

  return (
    <>
      <PageHeader title="Review queue">
        <button type="button" class="secondary" onClick={() => void download('csv')} disabled={exporting.busy}>
          Export CSV
        </button>
        <button type="button" class="secondary" onClick={() => void download('json')} disabled={exporting.busy}>
          Export JSON
        </button>
      </PageHeader>
      {exporting.error ? <Alert kind="error">{exporting.error}</Alert> : null}
      {account.data?.four_eyes ? (
        <p class="muted" data-testid="four-eyes">
          Four-eyes rule on: a confirmed match or a false positive takes effect when a second analyst approves it.
        </p>
      ) : null}
      <StatusChips current={filter.status} onPick={pick} counts={counts.data} />
      {counts.error ? (
        <Alert kind="error">The counts per status could not be loaded: {counts.error.message}</Alert>
      ) : null}
      <Filters draft={draft} setDraft={setDraft} onApply={apply} lists={lists.data ?? []} />
      {problem ? <Alert kind="error">{problem}</Alert> : null}
      {done ? <Alert kind="success">{done}</Alert> : null}
      {selected.size > 0 ? (
        <BulkDecision
          selected={selected}
          onDone={(message) => {
            setDone(message);
            reload();
          }}
          onReload={() => {
            setDone(null);
            reload();
          }}
        />
      ) : null}
      <section class="card" aria-label="Alerts">
        <Async state={page} fresh>
          {(p) =>
            p.items.length === 0 ? (
              <Empty>
                {cursors.length > 1
                  ? 'No more alerts.'
                  : narrows(filter)
                    ? 'No alerts for these filters.'
                    : 'No alerts yet: a screening that matches a list opens one.'}
              </Empty>
            ) : (
              <>
                <Rows rows={p.items} selected={selected} toggle={toggle} toggleAll={(on) => toggleAll(p.items, on)} />
                <KeysetPager label="Alert pages" cursors={cursors} setCursors={setCursors} next={p.next_cursor} />
              </>
            )
          }
        </Async>
      </section>
    </>
  );
}
