import { useState } from 'preact/hooks';
import { call, client } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { navigate } from '../lib/router';
import { useApi } from '../lib/use-api';
import { STATUS_BADGE, STATUS_LABEL, type AlertRow } from '../lib/alerts';
import { SUBJECT_TYPE_LABEL, deleteSubject, getSubject, type Subject } from '../lib/subjects';
import { Alert, Async, DataTable, Dialog, DialogActions, KeysetPager, PageHeader, useAction } from '../components/ui';

const ALERT_PAGE = 50;

function Values({ label, values }: { label: string; values: string[] }) {
  return (
    <>
      <dt>{label}</dt>
      <dd class="value">{values.length ? values.join(', ') : <span class="muted">none</span>}</dd>
    </>
  );
}

function Fields({ subject }: { subject: Subject }) {
  return (
    <section class="card" aria-labelledby="fields-title">
      <h2 id="fields-title" class="card-title">
        Fields
      </h2>
      <dl class="details" data-testid="subject-fields">
        <dt>Reference</dt>
        <dd class="value">{subject.external_id}</dd>
        <dt>Type</dt>
        <dd>{SUBJECT_TYPE_LABEL[subject.type]}</dd>
        <Values label="Names" values={subject.names} />
        <dt>Birth date</dt>
        <dd>{subject.birth_date ?? <span class="muted">none</span>}</dd>
        <Values label="Countries" values={subject.countries} />
        <Values
          label="Identifiers"
          values={subject.identifiers.map((i) => (i.type ? `${i.type} ${i.value}` : i.value))}
        />
        <Values label="Crypto addresses" values={subject.values.crypto} />
        <Values label="E-mail addresses" values={subject.values.email} />
        <Values label="Websites" values={subject.values.website} />
      </dl>
    </section>
  );
}

/** The subject's alerts, newest first, a keyset page at a time. */
function Alerts({ subject }: { subject: Subject }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useApi(
    () =>
      call(
        client.GET('/api/v1/account/alerts', {
          params: { query: { subject: subject.external_id, limit: ALERT_PAGE, cursor } },
        }),
      ),
    [subject.external_id, cursor],
  );
  return (
    <section class="card" aria-labelledby="subject-alerts-title">
      <h2 id="subject-alerts-title" class="card-title">
        Alerts
      </h2>
      <p class="muted small">
        {count(subject.open_alerts)} open or escalated.{' '}
        <a href={`/dashboard/alerts?subject=${encodeURIComponent(subject.external_id)}`}>
          Open them in the review queue
        </a>
      </p>
      <Async state={page} fresh>
        {(p) => (
          <>
            <DataTable
              rows={p.items}
              rowKey={(a) => a.id}
              empty={cursors.length > 1 ? 'No more alerts.' : 'No alert: no list names this subject.'}
              scroll="Alerts of the subject"
              testId="subject-alerts"
              columns={[
                { header: 'Alert', cell: (a) => <a href={`/dashboard/alerts/${a.id}`}>Alert {a.id}</a> },
                { header: 'Screened', kind: 'value', cell: (a) => a.screened_value },
                { header: 'Matched', kind: 'value', cell: (a) => a.matched_value },
                {
                  header: 'Status',
                  cell: (a) => <span class={STATUS_BADGE[a.status]}>{STATUS_LABEL[a.status]}</span>,
                },
                { header: 'List', cell: (a) => a.list },
                { header: 'Score', kind: 'num', cell: (a) => a.score.toFixed(2) },
                { header: 'Last seen', cell: (a) => dateTime(a.last_seen) },
              ]}
            />
            {p.next_cursor || cursors.length > 1 ? (
              <KeysetPager label="Alert pages" cursors={cursors} setCursors={setCursors} next={p.next_cursor} />
            ) : null}
          </>
        )}
      </Async>
    </section>
  );
}

interface Moment {
  at: string;
  text: string;
  href?: string;
}

/** What happened to the subject, oldest first: added, changed, screened, and its alerts opened and decided. */
function moments(subject: Subject, alerts: AlertRow[]): Moment[] {
  const out: Moment[] = [{ at: subject.created_at, text: 'Added to the book' }];
  if (subject.updated_at !== subject.created_at) out.push({ at: subject.updated_at, text: 'Last changed' });
  if (subject.screened_at) out.push({ at: subject.screened_at, text: 'Last screened' });
  for (const a of alerts) {
    const href = `/dashboard/alerts/${a.id}`;
    out.push({ at: a.first_seen, text: `Alert ${a.id} opened: ${a.matched_value} on ${a.list}`, href });
    if (a.decided_at) out.push({ at: a.decided_at, text: `Alert ${a.id} set to ${STATUS_LABEL[a.status]}`, href });
  }
  return out.sort((x, y) => x.at.localeCompare(y.at));
}

function History({ subject }: { subject: Subject }) {
  const alerts = useApi(
    () =>
      call(client.GET('/api/v1/account/alerts', { params: { query: { subject: subject.external_id, limit: 500 } } })),
    [subject.external_id],
  );
  return (
    <section class="card" aria-labelledby="subject-history-title">
      <h2 id="subject-history-title" class="card-title">
        History
      </h2>
      <Async state={alerts}>
        {(p) => (
          <ol class="history" data-testid="subject-history">
            {moments(subject, p.items).map((m, i) => (
              <li key={i}>
                <span class="muted small">{dateTime(m.at)}</span> {m.href ? <a href={m.href}>{m.text}</a> : m.text}
              </li>
            ))}
          </ol>
        )}
      </Async>
    </section>
  );
}

function Remove({ subject }: { subject: Subject }) {
  const [asking, setAsking] = useState(false);
  const action = useAction();
  const remove = () =>
    void action.run(async () => {
      await deleteSubject(subject.external_id);
      navigate('/subjects');
    });
  return (
    <>
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        Delete
      </button>
      {asking ? (
        <Dialog title={`Delete subject ${subject.external_id}?`} onClose={() => setAsking(false)}>
          <p>It leaves your book and is never screened or alerted on again. Its alerts and their history stay.</p>
          {action.error ? <Alert kind="error">{action.error}</Alert> : null}
          <DialogActions
            label="Delete"
            danger
            busy={action.busy}
            onConfirm={remove}
            onCancel={() => setAsking(false)}
          />
        </Dialog>
      ) : null}
    </>
  );
}

/** One subject of the book: its fields, its alerts and what happened to it. */
export default function SubjectPage({ params }: { params: Record<string, string> }) {
  const id = params.id;
  const loaded = useApi(() => getSubject(id), [id]);
  return (
    <>
      <PageHeader title={`Subject ${id}`}>
        <a href="/dashboard/subjects">Back to the subjects</a>
        {loaded.data ? <Remove subject={loaded.data} /> : null}
      </PageHeader>
      <Async state={loaded}>
        {(subject) => (
          <>
            <Fields subject={subject} />
            <Alerts subject={subject} />
            <History subject={subject} />
          </>
        )}
      </Async>
    </>
  );
}
