import { useState } from 'preact/hooks';
import { client, detailText } from '../lib/api';
import { signIn, takeEndReason } from '../lib/session';
import { Alert, Field } from '../components/ui';

type As = 'customer' | 'operator';

/** Why a credential was refused, in the user's words. */
function refusal(as: As, status: number, body: unknown): string {
  if (status === 0) return 'The service could not be reached. Check your connection and try again.';
  if (as === 'customer') {
    if (status === 401) return 'This API token is not valid: it is mistyped, revoked, or belongs to another service.';
    if (status === 403)
      return 'This token cannot open the dashboard: it was created for screening only (scope "screen"). Use a token with the "dashboard" scope.';
  } else {
    if (status === 401) return 'Wrong admin key.';
    if (status === 503) return 'The operator API is disabled on this server (ADMIN_KEY is not set).';
  }
  return `Sign-in failed: ${detailText(body, status)}`;
}

/**
 * Sign-in with a customer API token (checked with GET /account) or with the operator's admin key,
 * which is exchanged for a one-hour operator session token: only that token is kept.
 */
export function SignIn() {
  const [as, setAs] = useState<As>('customer');
  const [credential, setCredential] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [ended] = useState(takeEndReason);

  const submit = async (e: Event) => {
    e.preventDefault();
    const secret = credential.trim();
    if (!secret) return setError(as === 'customer' ? 'Enter your API token.' : 'Enter the admin key.');
    setBusy(true);
    setError(null);
    const headers = { Authorization: `Bearer ${secret}` };
    try {
      if (as === 'customer') {
        const { data, error: body, response } = await client.GET('/api/v1/account', { headers });
        if (!data) return setError(refusal(as, response.status, body));
        signIn({ kind: 'customer', token: secret, name: data.name });
      } else {
        const { data, error: body, response } = await client.POST('/api/v1/admin/session', { headers, body: {} });
        if (!data) return setError(refusal(as, response.status, body));
        signIn({ kind: 'operator', token: data.token, name: 'Operator', expiresAt: data.expires_at });
      }
      setCredential('');
    } catch {
      setError(refusal(as, 0, null));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <h1>Sign in</h1>
      <p class="muted">Sanctions and risk screening: your usage, audit trail, tokens and webhooks.</p>
      {ended ? <Alert kind="info">{ended}</Alert> : null}
      <form onSubmit={(e) => void submit(e)} class="card" noValidate>
        <fieldset class="choice">
          <legend>Sign in as</legend>
          <label>
            <input
              type="radio"
              name="as"
              value="customer"
              checked={as === 'customer'}
              onChange={() => (setAs('customer'), setError(null))}
            />{' '}
            Customer
          </label>
          <label>
            <input
              type="radio"
              name="as"
              value="operator"
              checked={as === 'operator'}
              onChange={() => (setAs('operator'), setError(null))}
            />{' '}
            Operator
          </label>
        </fieldset>
        <Field
          label={as === 'customer' ? 'API token' : 'Admin key'}
          hint={
            as === 'customer'
              ? 'Starts with sk_. Kept in this browser tab only until you sign out or close it.'
              : 'The service’s ADMIN_KEY. It is exchanged for a one-hour operator session and not kept.'
          }
        >
          <input
            id="credential"
            type="password"
            autoComplete="off"
            spellcheck={false}
            value={credential}
            onInput={(e) => setCredential(e.currentTarget.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'signin-error' : undefined}
          />
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error ? (
          <div id="signin-error">
            <Alert kind="error">{error}</Alert>
          </div>
        ) : null}
      </form>
      <p class="muted small">
        No token yet? The operator creates your account and a first token (operator pages, or{' '}
        <code>make cli ARGS="customers create …"</code>). The <a href="/docs">API reference</a> documents every
        endpoint.
      </p>
    </main>
  );
}
