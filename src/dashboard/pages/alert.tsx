import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, client } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { useApi } from '../lib/use-api';
import { subjectHref } from '../lib/subject-link';
import {
  COMMENT_MISSING,
  NEEDS_COMMENT,
  STATUS_BADGE,
  STATUS_LABEL,
  analyst,
  changeLines,
  decisionError,
  eventText,
  markAgreeing,
  partyOf,
  pendingSentence,
  sourceUrl,
  type AlertEvent,
  type DecisionStatus,
  type AlertView,
  type PartyView,
} from '../lib/alerts';
import { Alert, Async, Empty, Field, PageHeader, SourceLink, useAction } from '../components/ui';

/** A name with the parts that the other name shares marked. */
function Marked({ name, other }: { name: string; other: string }) {
  return (
    <span class="value">
      {markAgreeing(name, other).map((p, i) =>
        p.agrees ? (
          <mark key={i} class={p.agrees === 'close' ? 'close' : undefined}>
            {p.text}
          </mark>
        ) : (
          p.text
        ),
      )}
    </span>
  );
}

function Values({ label, values }: { label: string; values: string[] }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{values.length ? values.join(', ') : <span class="muted">none listed</span>}</dd>
    </>
  );
}

/** The screened value beside the listed party, the agreeing name parts marked on both sides. */
function SideBySide({ alert, party }: { alert: AlertView; party: PartyView }) {
  const listed = alert.matched_value;
  return (
    <>
      <div class="grid-2 compare">
        <section class="card" aria-labelledby="screened-title">
          <h2 id="screened-title" class="card-title">
            Screened
          </h2>
          <dl class="details">
            <dt>Value</dt>
            <dd data-testid="screened-value">
              <Marked name={alert.screened_value} other={listed} />
            </dd>
            {alert.subject ? (
              <>
                <dt>Subject</dt>
                <dd data-testid="alert-subject">
                  <a href={subjectHref(alert.subject.external_id)}>{alert.subject.external_id}</a>{' '}
                  <span class="muted">({alert.subject.type})</span>
                </dd>
                <Values label="Subject names" values={alert.subject.names} />
              </>
            ) : null}
            <dt>Endpoint</dt>
            <dd>{alert.evidence.endpoint}</dd>
            <dt>Request id</dt>
            <dd>
              <code>{alert.evidence.request_id}</code>
            </dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="listed-title">
          <h2 id="listed-title" class="card-title">
            Listed party
          </h2>
          <dl class="details" data-testid="listed-party">
            <dt>Matched</dt>
            <dd>
              <Marked name={listed} other={alert.screened_value} />
            </dd>
            {party.caption && party.caption !== listed ? (
              <>
                <dt>Name</dt>
                <dd class="value">{party.caption}</dd>
              </>
            ) : null}
            <dt>Party</dt>
            <dd class="value">{alert.listed_party}</dd>
            {party.party_type ? (
              <>
                <dt>Type</dt>
                <dd>{party.party_type}</dd>
              </>
            ) : null}
            {party.aliases.length ? <Values label="Aliases" values={party.aliases} /> : null}
            <Values label="Birth dates" values={party.birth_dates} />
            <Values label="Countries" values={party.countries} />
            <Values label="Identifiers" values={party.identifiers} />
            <Values label="Programs" values={party.programs} />
          </dl>
        </section>
      </div>
      <p class="muted small legend-marks">
        <mark>Marked</mark>: a name part found on both sides; <mark class="close">dotted</mark>: one a letter away.
      </p>
    </>
  );
}

/** Why it matched, in words when the answer carried them, and where the listing comes from. */
function Evidence({ alert, party }: { alert: AlertView; party: PartyView }) {
  return (
    <section class="card" aria-labelledby="evidence-title">
      <h2 id="evidence-title" class="card-title">
        Evidence
      </h2>
      <p data-testid="explanation">
        {party.explanation_text ??
          `A${alert.match === 'exact' ? 'n exact' : ` ${alert.match}`} match with score ${alert.score.toFixed(2)}.`}
      </p>
      <dl class="details">
        <dt>List</dt>
        <dd>
          {alert.list} <span class="muted">({alert.list_type})</span>
        </dd>
        <dt>List version</dt>
        <dd data-testid="list-version">{alert.evidence.list_version}</dd>
        <dt>Score</dt>
        <dd>{alert.score.toFixed(2)}</dd>
        <dt>Match</dt>
        <dd>{alert.match}</dd>
        <dt>Source</dt>
        <dd>
          <SourceLink url={sourceUrl(alert.evidence.answer)} />
        </dd>
        <dt>Occurrences</dt>
        <dd data-testid="occurrences">{count(alert.occurrences)}</dd>
        <dt>First seen</dt>
        <dd>{dateTime(alert.first_seen)}</dd>
        <dt>Last seen</dt>
        <dd>{dateTime(alert.last_seen)}</dd>
      </dl>
    </section>
  );
}

function History({ events }: { events: AlertEvent[] }) {
  if (events.length === 0) return <Empty>No decisions or comments yet.</Empty>;
  return (
    <ol class="history" data-testid="history">
      {events.map((e, i) => (
        <li key={i}>
          <div>
            <strong>{eventText(e)}</strong> <span class="muted">by {analyst(e)}</span>
            <span class="muted small"> · {dateTime(e.at)}</span>
          </div>
          {e.comment ? <p class="history-comment">{e.comment}</p> : null}
          {e.changes && !e.comment ? (
            <ul class="history-changes">
              {changeLines(e.changes).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/** A delisted alert (the system's) can only be closed: the API refuses any other decision on it. */
const DECISIONS: { status: DecisionStatus; label: string }[] = [
  { status: 'confirmed', label: 'Confirm match' },
  { status: 'false_positive', label: 'False positive' },
  { status: 'escalated', label: 'Escalate' },
  { status: 'closed', label: 'Close' },
  { status: 'open', label: 'Re-open' },
];

/** The decision buttons with their comment box; a decision names the version on screen. */
function Decide({ alert, onDecided }: { alert: AlertView; onDecided: (a: AlertView, stale: boolean) => void }) {
  const [comment, setComment] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const action = useAction();
  const decide = (status: DecisionStatus) => {
    setProblem(null);
    if (NEEDS_COMMENT.includes(status) && !comment.trim()) return setProblem(COMMENT_MISSING);
    void action.run(async () => {
      try {
        const next = await call(
          client.POST('/api/v1/account/alerts/{alert_id}/decision', {
            params: { path: { alert_id: alert.id } },
            body: { status, version: alert.version, comment: comment.trim() || undefined },
          }),
        );
        setComment('');
        onDecided(next, false);
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) onDecided(alert, true);
        throw new Error(decisionError(err), { cause: err });
      }
    });
  };
  const comments = useAction();
  const addComment = () => {
    setProblem(null);
    if (!comment.trim()) return setProblem('Write the comment first.');
    void comments.run(async () => {
      const next = await call(
        client.POST('/api/v1/account/alerts/{alert_id}/comments', {
          params: { path: { alert_id: alert.id } },
          body: { text: comment.trim() },
        }),
      );
      setComment('');
      onDecided(next, false);
    });
  };
  const error = problem ?? action.error ?? comments.error;
  return (
    <section class="card" aria-labelledby="decide-title">
      <h2 id="decide-title" class="card-title">
        Decision
      </h2>
      <Field label="Comment" hint="Required to confirm a match or to mark a false positive; optional otherwise.">
        <textarea
          rows={3}
          maxLength={4000}
          value={comment}
          aria-invalid={problem ? 'true' : undefined}
          onInput={(e) => setComment(e.currentTarget.value)}
        />
      </Field>
      <div class="decide-buttons">
        {DECISIONS.filter(
          (d) => d.status !== alert.status && (alert.status !== 'delisted' || d.status === 'closed'),
        ).map((d) => (
          <button
            type="button"
            key={d.status}
            class={d.status === 'confirmed' ? 'danger' : d.status === 'false_positive' ? undefined : 'secondary'}
            disabled={action.busy || comments.busy}
            onClick={() => decide(d.status)}
          >
            {alert.pending?.status === d.status ? `Approve: ${d.label.toLowerCase()}` : d.label}
          </button>
        ))}
        <button type="button" class="secondary" disabled={action.busy || comments.busy} onClick={addComment}>
          Add comment
        </button>
      </div>
      {error ? <Alert kind="error">{error}</Alert> : null}
    </section>
  );
}

/** One alert: the screened value beside the listed party, the evidence, the history and the decision. */
export default function AlertPage({ params }: { params: Record<string, string> }) {
  const id = Number(params.id);
  const valid = Number.isInteger(id) && id >= 1;
  const loaded = useApi<AlertView>(
    () =>
      valid
        ? call(client.GET('/api/v1/account/alerts/{alert_id}', { params: { path: { alert_id: id } } })).catch((err) => {
            throw err instanceof ApiError && err.status === 404
              ? new Error('This alert does not exist, or it belongs to another customer.')
              : err;
          })
        : Promise.reject(new Error('This address names no alert: open one from the review queue.')),
    [id],
  );
  const [shown, setShown] = useState<AlertView | null>(null);
  const [stale, setStale] = useState(false);
  useEffect(() => {
    setShown(null);
    setStale(false);
  }, [loaded.data]);
  const reload = () => loaded.reload();

  return (
    <>
      <PageHeader title={`Alert ${valid ? id : ''}`.trim()}>
        <a href="/dashboard/alerts">Back to the review queue</a>
      </PageHeader>
      <Async state={loaded}>
        {(fetched) => {
          const alert = shown ?? fetched;
          const party = partyOf(alert.evidence.answer);
          return (
            <>
              <p class="alert-status">
                <span class={STATUS_BADGE[alert.status]} data-testid="alert-status">
                  {STATUS_LABEL[alert.status]}
                </span>{' '}
                <span class="muted small">
                  version {alert.version}
                  {alert.decided_at ? `, decided ${dateTime(alert.decided_at)}` : ''}
                </span>
              </p>
              {alert.pending ? (
                <Alert kind="info">
                  <span data-testid="pending">{pendingSentence(alert.pending)}</span>{' '}
                  <span class="muted small">({dateTime(alert.pending.at)})</span>
                  {alert.pending.comment ? <p class="history-comment">{alert.pending.comment}</p> : null}
                </Alert>
              ) : null}
              {stale ? (
                <Alert kind="info">
                  <button type="button" class="link" onClick={reload}>
                    Reload this alert
                  </button>
                </Alert>
              ) : null}
              <SideBySide alert={alert} party={party} />
              <Evidence alert={alert} party={party} />
              <Decide
                alert={alert}
                onDecided={(next, isStale) => {
                  setStale(isStale);
                  if (!isStale) setShown(next);
                }}
              />
              <section class="card" aria-labelledby="history-title">
                <h2 id="history-title" class="card-title">
                  History
                </h2>
                <History events={alert.history} />
              </section>
            </>
          );
        }}
      </Async>
    </>
  );
}
