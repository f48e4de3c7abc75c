import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../lib/api';
import { useApi } from '../lib/use-api';
import {
  Alert,
  Async,
  DataTable,
  Dialog,
  DialogActions,
  Field,
  PageHeader,
  SecretOnce,
  useAction,
} from '../components/ui';
import { tokenColumns } from '../components/token-columns';

type Scope = Schemas['ApiToken']['scopes'][number];
const SCOPES: { scope: Scope; label: string }[] = [
  { scope: 'screen', label: 'screen — call the metered screening endpoints' },
  { scope: 'dashboard', label: 'dashboard — read usage and the audit trail, manage tokens and webhooks' },
];

function CreateToken({ onCreated }: { onCreated: (t: Schemas['CreatedApiToken']) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['screen']);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const created = await call(
        client.POST('/api/v1/account/tokens', { body: { name: name.trim() || undefined, scopes } }),
      );
      setName('');
      onCreated(created);
    });
  };
  const toggle = (s: Scope) => setScopes((cur) => (cur.includes(s) ? cur.filter((x) => x !== s) : [...cur, s]));
  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-token-title">
      <h2 id="create-token-title">Create a token</h2>
      <div class="form-row">
        <Field label="Name" hint="To recognise it later, e.g. the server that uses it.">
          <input value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
      </div>
      <fieldset class="choice stack">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s.scope}>
            <input type="checkbox" checked={scopes.includes(s.scope)} onChange={() => toggle(s.scope)} /> {s.label}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={action.busy || scopes.length === 0}>
        Create token
      </button>
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
    </form>
  );
}

/** The customer's API tokens: create (the secret shown once), list with last use, revoke. */
export default function Tokens() {
  const tokens = useApi(() => call(client.GET('/api/v1/account/tokens')), []);
  const account = useApi(() => call(client.GET('/api/v1/account')), []);
  const [created, setCreated] = useState<Schemas['CreatedApiToken'] | null>(null);
  const [revoking, setRevoking] = useState<Schemas['ApiToken'] | null>(null);
  const action = useAction();
  const current = account.data?.token.id;

  const revoke = (t: Schemas['ApiToken']) =>
    action.run(async () => {
      await call(client.DELETE('/api/v1/account/tokens/{token_id}', { params: { path: { token_id: t.id } } }));
      setRevoking(null);
      tokens.reload();
    });

  return (
    <>
      <PageHeader title="API tokens" />
      {created ? (
        <SecretOnce
          title={`New token “${created.name ?? created.prefix}”`}
          secret={created.token}
          onDone={() => setCreated(null)}
        />
      ) : null}
      <CreateToken
        onCreated={(t) => {
          setCreated(t);
          tokens.reload();
        }}
      />
      <section class="card" aria-labelledby="tokens-title">
        <h2 id="tokens-title">Your tokens</h2>
        {action.error ? <Alert kind="error">{action.error}</Alert> : null}
        <Async state={tokens}>
          {(list) => (
            <DataTable
              rows={list}
              rowKey={(t) => t.id}
              empty="No tokens."
              scroll="Your tokens"
              columns={tokenColumns({ current, onRevoke: setRevoking })}
            />
          )}
        </Async>
      </section>
      {revoking ? (
        <Dialog title="Revoke this token?" onClose={() => setRevoking(null)}>
          <p>
            <code>{revoking.prefix}…</code> {revoking.name ? `(${revoking.name})` : null} will be refused at once by
            this server and within a few seconds by every other node.
            {revoking.id === current ? ' You are signed in with it: you will be signed out.' : null}
          </p>
          <DialogActions
            label="Revoke token"
            danger
            busy={action.busy}
            onConfirm={() => void revoke(revoking)}
            onCancel={() => setRevoking(null)}
          />
        </Dialog>
      ) : null}
    </>
  );
}
