import { useEffect, useState } from 'preact/hooks';
import type { paths } from '#contract';
import { answer, ApiError, call, client, type Schemas } from '../lib/api';
import { useApi } from '../lib/use-api';
import { listChoices, type ListChoice } from '../lib/list-choices';
import { Alert, DataTable, Field, PageHeader, useAction } from '../components/ui';

type Envelope = Schemas['ScreenResponse'] | Schemas['NameScreenResponse'];
type PartyType = NonNullable<paths['/api/v1/screen/name']['get']['parameters']['query']['party_type']>;

/** What every screening endpoint takes beside the value: the lists, and a past time to screen as of. */
interface Query {
  lists?: string;
  as_of?: string;
}

/** A screening's answer with what the service says it screened against (its response headers). */
interface Screened {
  envelope: Envelope;
  /** `X-As-Of`: the time the lists were screened as of; null: the current lists. */
  asOf: string | null;
  /** `X-List-Versions`: `[slug, version]` of each list screened. */
  versions: [string, string][];
}

async function screened(pending: Promise<{ data?: Envelope; error?: unknown; response: Response }>): Promise<Screened> {
  const { data, response } = await answer(pending);
  const versions = (response.headers.get('X-List-Versions') ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair): [string, string] => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1)];
    });
  return { envelope: data, asOf: response.headers.get('X-As-Of'), versions };
}

/** A field a kind takes beside the value (the name's party type, birth date, ...). */
interface Option {
  key: string;
  label: string;
  hint?: string;
  placeholder?: string;
  /** A select of these; else a text input. */
  choices?: string[];
  size?: number;
}

/**
 * One row per kind of value the API screens: how the form labels it, the fields it takes beside
 * the value, which endpoint it calls, and its monitored entity type (the webhooks page offers
 * those). A new kind is one more row: the dashboard knows the service's table of kinds
 * (src/core/kinds.ts) only through the generated contract types.
 */
interface Kind {
  id: string;
  label: string;
  placeholder: string;
  monitor?: Schemas['MonitoredEntityType'];
  options?: Option[];
  screen: (value: string, query: Query, options: Record<string, string>) => Promise<Screened>;
}

const PARTY_TYPES: PartyType[] = ['any', 'person', 'organization', 'vessel', 'aircraft'];
const orUndefined = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);
const numberOrUndefined = (v: string | undefined) => (v?.trim() ? Number(v) : undefined);

export const KINDS: Kind[] = [
  {
    id: 'crypto',
    label: 'Crypto address or ENS name',
    placeholder: '0x… / bc1… / name.eth',
    monitor: 'onchain_address',
    screen: (address, query) =>
      screened(client.GET('/api/v1/screen/crypto/{address}', { params: { path: { address }, query } })),
  },
  {
    id: 'email',
    label: 'E-mail address',
    placeholder: 'someone@example.com',
    monitor: 'email',
    screen: (email, query) =>
      screened(client.GET('/api/v1/screen/email/{email}', { params: { path: { email }, query } })),
  },
  {
    id: 'website',
    label: 'Website or URL',
    placeholder: 'example.com',
    monitor: 'website',
    screen: (address, query) =>
      screened(client.GET('/api/v1/screen/website', { params: { query: { address, ...query } } })),
  },
  {
    id: 'id',
    label: 'Government ID',
    placeholder: 'passport or registration number',
    monitor: 'government_id',
    screen: (government_id, query) =>
      screened(client.GET('/api/v1/screen/id/{government_id}', { params: { path: { government_id }, query } })),
  },
  {
    id: 'country',
    label: 'Country or region',
    placeholder: 'IR, IRN, Iran, UA-43',
    monitor: 'country',
    screen: (country, query) =>
      screened(client.GET('/api/v1/screen/country/{country}', { params: { path: { country }, query } })),
  },
  {
    id: 'name',
    label: 'Name (person, organisation, vessel, aircraft)',
    placeholder: 'a name in any script',
    options: [
      { key: 'party_type', label: 'Party type', choices: PARTY_TYPES },
      { key: 'birth_date', label: 'Birth date (optional)', placeholder: 'YYYY, YYYY-MM or YYYY-MM-DD', size: 12 },
      { key: 'country', label: 'Country (optional)', placeholder: 'IQ, Iraq', size: 10 },
      { key: 'threshold', label: 'Threshold (optional)', hint: '0 to 1, default 0.7', placeholder: '0.7', size: 5 },
      { key: 'limit', label: 'Matches at most (optional)', hint: '1 to 25, default 5', placeholder: '5', size: 4 },
    ],
    screen: (name, query, o) =>
      screened(
        client.GET('/api/v1/screen/name', {
          params: {
            query: {
              name,
              ...query,
              party_type: orUndefined(o.party_type) as PartyType | undefined,
              birth_date: orUndefined(o.birth_date),
              country: orUndefined(o.country),
              threshold: numberOrUndefined(o.threshold),
              limit: numberOrUndefined(o.limit),
            },
          },
        }),
      ),
  },
];

/** What a refused screening means for this user. */
function explain(err: Error): string {
  if (err instanceof ApiError && err.status === 402)
    return 'This month’s quota is used up: nothing was charged. Ask for a larger plan on the Billing page.';
  if (err instanceof ApiError && err.status === 403)
    return 'The token you signed in with cannot screen (it lacks the "screen" scope). Sign in with a token that has it.';
  return err.message;
}

/** A match of either envelope: a name's match names the listed party and its score. */
type Match = Envelope['matches'][number];
const party = (m: Match) =>
  'metadata' in m && m.metadata && typeof m.metadata === 'object' && 'caption' in m.metadata
    ? (m as Schemas['NameScreenMatch']).metadata
    : null;

type Sources = Schemas['StatsResponse']['sources'];

/**
 * The lists of a screening that were not screened as asked: those asked for (or, for the default
 * set, every enabled list) that have no data on this service, and those screened with an older
 * version because their last update failed. A name search leaves out lists without names: those
 * are not reported.
 */
function notScreened(checked: string[], asked: string[], sources: Sources, names: Map<string, string>): string[] {
  const wanted = asked.length ? asked : Object.keys(sources);
  const name = (slug: string) => names.get(slug) ?? slug;
  const missing = wanted
    .filter((s) => !checked.includes(s) && sources[s] && (sources[s].last_error || !sources[s].last_updated))
    .map((s) => `${name(s)} (${sources[s].last_error ?? 'not available on this service'})`);
  const failing = checked.filter((s) => sources[s]?.last_error).map((s) => `${name(s)} (${sources[s].last_error})`);
  return [...missing, ...failing];
}

/** A screening's answer, with the lists' time and versions as the service stated them. */
function Result({ result, unscreened }: { result: Screened; unscreened: string[] | null }) {
  const { envelope, asOf, versions } = result;
  const parties = envelope.matches.some((m) => party(m) !== null);
  return (
    <section class="card" aria-label="Result" data-testid="screen-result">
      <h2>Result</h2>
      <p>
        <span class="value">{envelope.value}</span>{' '}
        {envelope.sanctioned ? <span class="badge badge-danger">sanctioned</span> : null}{' '}
        {envelope.flagged ? (
          <span class="badge badge-warning">flagged</span>
        ) : (
          <span class="badge badge-success">no match</span>
        )}
      </p>
      <dl class="details">
        <dt>Lists as of</dt>
        <dd data-testid="screened-as-of">{asOf ?? 'now (the current lists)'}</dd>
        <dt>List versions</dt>
        <dd data-testid="list-versions">
          {versions.length === 0
            ? envelope.lists_checked.join(', ') || 'none'
            : versions.map(([slug, version], i) => (
                <span key={slug}>
                  {i > 0 ? ', ' : null}
                  {slug} <span class="value">{version}</span>
                </span>
              ))}
        </dd>
        {unscreened ? (
          <>
            <dt>Lists not screened</dt>
            <dd data-testid="lists-not-screened">{unscreened.length ? unscreened.join('; ') : 'none'}</dd>
          </>
        ) : null}
      </dl>
      <DataTable
        rows={envelope.matches as Match[]}
        rowKey={(m) => `${m.list}/${party(m)?.id ?? m.value}`}
        empty="Not found on the lists checked."
        scroll="Matches"
        columns={[
          { header: 'List', cell: (m) => m.list_name },
          { header: 'Type', cell: (m) => m.list_type },
          { header: 'Match', cell: (m) => m.match },
          { header: parties ? 'Listed name' : 'Listed value', kind: 'value', cell: (m) => m.value },
          ...(parties
            ? [
                { header: 'Party', cell: (m: Match) => (party(m) ? `${party(m)!.caption} (${party(m)!.id})` : '—') },
                {
                  header: 'Score',
                  kind: 'num' as const,
                  cell: (m: Match) => (party(m) ? party(m)!.score.toFixed(2) : '—'),
                },
              ]
            : []),
        ]}
      />
      {envelope.matches.length > 0 ? (
        <ol class="explanations" aria-label="Why each matched" data-testid="match-explanations">
          {(envelope.matches as Match[]).map((m) => (
            <li key={`${m.list}/${party(m)?.id ?? m.value}`}>
              <strong>{m.list_name}</strong>: {m.metadata.explanation_text}
              {m.metadata.review ? (
                <>
                  {' '}
                  <span class="badge" data-testid="match-review">
                    alert {m.metadata.review.alert_id}: {m.metadata.review.status.replace('_', ' ')}
                  </span>
                </>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      <details>
        <summary>Response envelope (JSON)</summary>
        <pre class="json" tabIndex={0} aria-label="The answer as JSON">
          {JSON.stringify(envelope, null, 2)}
        </pre>
      </details>
    </section>
  );
}

/** Screens one value of a kind through the metered API, like any client would. */
export default function Screen() {
  const [kindId, setKindId] = useState(KINDS[0].id);
  const [value, setValue] = useState('');
  const [lists, setLists] = useState<string[]>([]);
  const [asOf, setAsOf] = useState('');
  const [options, setOptions] = useState<Record<string, string>>({});
  const [result, setResult] = useState<Screened | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const action = useAction();
  const catalog = useApi(() => listChoices(), []);
  const stats = useApi(() => call(client.GET('/api/v1/stats')), []);
  const names = new Map((catalog.data ?? []).map((l: ListChoice) => [l.slug, l.display_name]));
  // An error about one kind's value says nothing of the next kind's.
  useEffect(() => setFailure(null), [kindId]);
  const kind = KINDS.find((k) => k.id === kindId)!;

  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(null);
    void action.run(async () => {
      try {
        setResult(
          await kind.screen(
            value.trim(),
            { lists: lists.length ? lists.join(',') : undefined, as_of: asOf.trim() || undefined },
            options,
          ),
        );
      } catch (err) {
        setResult(null);
        setFailure(explain(err as Error));
      }
    });
  };

  return (
    <>
      <PageHeader title="Screen a value" />
      <Alert kind="info">
        Metered: each screening here costs one credit and is recorded in your audit trail, exactly like an API call.
      </Alert>
      <form class="card" onSubmit={submit} aria-label="Screen a value">
        <div class="form-row">
          <Field label="Kind">
            <select
              value={kindId}
              onChange={(e) => {
                setKindId(e.currentTarget.value);
                setOptions({});
                setResult(null);
              }}
            >
              {KINDS.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Value">
            <input
              required
              value={value}
              size={44}
              maxLength={512}
              placeholder={kind.placeholder}
              onInput={(e) => setValue(e.currentTarget.value)}
            />
          </Field>
          {(kind.options ?? []).map((o) => (
            <Field key={o.key} label={o.label} hint={o.hint}>
              {o.choices ? (
                <select
                  value={options[o.key] ?? o.choices[0]}
                  onChange={(e) => setOptions({ ...options, [o.key]: e.currentTarget.value })}
                >
                  {o.choices.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  value={options[o.key] ?? ''}
                  size={o.size}
                  maxLength={64}
                  placeholder={o.placeholder}
                  onInput={(e) => setOptions({ ...options, [o.key]: e.currentTarget.value })}
                />
              )}
            </Field>
          ))}
          <Field label="As of (optional)" hint="A past time, ISO 8601 with a zone: the lists as they stood then.">
            <input
              value={asOf}
              size={26}
              maxLength={40}
              placeholder="2025-01-31T12:00:00Z"
              onInput={(e) => setAsOf(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" disabled={action.busy || !value.trim()}>
            {action.busy ? 'Screening…' : 'Screen (1 credit)'}
          </button>
        </div>
        <details>
          <summary>Lists to screen ({lists.length ? lists.length : 'default set'})</summary>
          <fieldset class="choice wrap">
            <legend class="sr-only">Lists</legend>
            {(catalog.data ?? []).map((l) => (
              <label key={l.slug}>
                <input
                  type="checkbox"
                  checked={lists.includes(l.slug)}
                  onChange={() =>
                    setLists((cur) => (cur.includes(l.slug) ? cur.filter((s) => s !== l.slug) : [...cur, l.slug]))
                  }
                />{' '}
                {l.display_name}
              </label>
            ))}
          </fieldset>
        </details>
      </form>
      {failure ? <Alert kind="error">{failure}</Alert> : null}
      {result ? (
        <Result
          result={result}
          unscreened={stats.data ? notScreened(result.envelope.lists_checked, lists, stats.data.sources, names) : null}
        />
      ) : null}
    </>
  );
}
