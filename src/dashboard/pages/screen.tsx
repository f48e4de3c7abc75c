import { useState } from 'preact/hooks';
import { ApiError, call, client, type Schemas } from '../lib/api';
import { useApi } from '../lib/use-api';
import { Alert, DataTable, Field, PageHeader, useAction } from '../components/ui';

type Envelope = Schemas['ScreenResponse'];
/** What every screening endpoint takes beside the value: the lists, and a past time to screen as of. */
interface Query {
  lists?: string;
  as_of?: string;
}

/**
 * One row per kind of value the API screens: how the form labels it and which endpoint it calls.
 * A new kind (a name, when /screen/name exists) is one more row.
 */
interface Kind {
  id: string;
  label: string;
  placeholder: string;
  screen: (value: string, query: Query) => Promise<Envelope>;
}

export const KINDS: Kind[] = [
  {
    id: 'crypto',
    label: 'Crypto address or ENS name',
    placeholder: '0x… / bc1… / name.eth',
    screen: (address, query) => call(client.GET('/api/v1/screen/crypto/{address}', { params: { path: { address }, query } })),
  },
  {
    id: 'email',
    label: 'E-mail address',
    placeholder: 'someone@example.com',
    screen: (email, query) => call(client.GET('/api/v1/screen/email/{email}', { params: { path: { email }, query } })),
  },
  {
    id: 'website',
    label: 'Website or URL',
    placeholder: 'example.com',
    screen: (address, query) => call(client.GET('/api/v1/screen/website', { params: { query: { address, ...query } } })),
  },
  {
    id: 'id',
    label: 'Government ID',
    placeholder: 'passport or registration number',
    screen: (government_id, query) => call(client.GET('/api/v1/screen/id/{government_id}', { params: { path: { government_id }, query } })),
  },
  {
    id: 'country',
    label: 'Country or region',
    placeholder: 'IR, IRN, Iran, UA-43',
    screen: (country, query) => call(client.GET('/api/v1/screen/country/{country}', { params: { path: { country }, query } })),
  },
];

/** What a refused screening means for this user. */
function explain(err: Error): string {
  if (err instanceof ApiError && err.status === 402) return 'This month’s quota is used up: nothing was charged. Ask for a larger plan on the Billing page.';
  if (err instanceof ApiError && err.status === 403) return 'The token you signed in with cannot screen (it lacks the "screen" scope). Sign in with a token that has it.';
  return err.message;
}

/** A screening's answer, and the time it was screened as of (null: now). */
function Result({ result, asOf }: { result: Envelope; asOf: string | null }) {
  return (
    <section class="card" aria-label="Result" data-testid="screen-result">
      <h2>Result</h2>
      <p>
        <span class="value">{result.value}</span> {result.sanctioned ? <span class="badge badge-danger">sanctioned</span> : null}{' '}
        {result.flagged ? <span class="badge badge-warning">flagged</span> : <span class="badge badge-success">no match</span>}
      </p>
      <p class="muted small">
        Screened as of {asOf ?? 'now'}. Lists checked: {result.lists_checked.join(', ') || 'none'}
      </p>
      <DataTable
        rows={result.matches}
        rowKey={(m) => `${m.list}/${m.value}`}
        empty="Not found on the lists checked."
        scroll="Matches"
        columns={[
          { header: 'List', cell: (m) => m.list_name },
          { header: 'Type', cell: (m) => m.list_type },
          { header: 'Match', cell: (m) => m.match },
          { header: 'Listed value', kind: 'value', cell: (m) => m.value },
        ]}
      />
      <details>
        <summary>Response envelope (JSON)</summary>
        <pre class="json">{JSON.stringify(result, null, 2)}</pre>
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
  const [result, setResult] = useState<{ envelope: Envelope; asOf: string | null } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const action = useAction();
  const catalog = useApi(() => call(client.GET('/api/v1/screen/lists')), []);
  const kind = KINDS.find((k) => k.id === kindId)!;

  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(null);
    void action.run(async () => {
      try {
        const at = asOf.trim() || undefined;
        setResult({ envelope: await kind.screen(value.trim(), { lists: lists.length ? lists.join(',') : undefined, as_of: at }), asOf: at ?? null });
      } catch (err) {
        setResult(null);
        setFailure(explain(err as Error));
      }
    });
  };

  return (
    <>
      <PageHeader title="Screen a value" />
      <Alert kind="info">Metered: each screening here costs one credit and is recorded in your audit trail, exactly like an API call.</Alert>
      <form class="card" onSubmit={submit} aria-label="Screen a value">
        <div class="form-row">
          <Field label="Kind">
            <select
              value={kindId}
              onChange={(e) => {
                setKindId(e.currentTarget.value);
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
            <input required value={value} size={44} maxLength={512} placeholder={kind.placeholder} onInput={(e) => setValue(e.currentTarget.value)} />
          </Field>
          <Field label="As of (optional)" hint="A past time, ISO 8601 with a zone: the lists as they stood then.">
            <input value={asOf} size={26} maxLength={40} placeholder="2025-01-31T12:00:00Z" onInput={(e) => setAsOf(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={action.busy || !value.trim()}>
            {action.busy ? 'Screening…' : 'Screen (1 credit)'}
          </button>
        </div>
        <details>
          <summary>Lists to screen ({lists.length ? lists.length : 'default set'})</summary>
          <fieldset class="choice wrap">
            <legend class="sr-only">Lists</legend>
            {(catalog.data ?? [])
              .filter((l) => l.enabled)
              .map((l) => (
                <label key={l.slug}>
                  <input type="checkbox" checked={lists.includes(l.slug)} onChange={() => setLists((cur) => (cur.includes(l.slug) ? cur.filter((s) => s !== l.slug) : [...cur, l.slug]))} />{' '}
                  {l.display_name}
                </label>
              ))}
          </fieldset>
        </details>
      </form>
      {failure ? <Alert kind="error">{failure}</Alert> : null}
      {result ? <Result result={result.envelope} asOf={result.asOf} /> : null}
    </>
  );
}
