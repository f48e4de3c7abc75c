import { useEffect, useState } from 'preact/hooks';
import { call, client, type Schemas } from '../../lib/api';
import { lastDays } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Alert, Async, DataTable, Field, PageHeader, SecretOnce, useAction } from '../../components/ui';
import { tokenColumns } from '../../components/token-columns';
import { QuotaCards } from '../../components/quota';
import { DailyCard } from '../../components/activity';
import { AllowanceFields, allowanceBody, type Allowance } from '../../components/plan-select';

function EditAllowance({
  customer,
  plans,
  onSaved,
}: {
  customer: Schemas['CustomerDetail'];
  plans: Schemas['Plan'][];
  onSaved: () => void;
}) {
  const initial = {
    planId: customer.plan_id ? String(customer.plan_id) : '',
    quota: customer.quota_override === null ? '' : String(customer.quota_override),
  };
  const [allowance, setAllowance] = useState<Allowance>(initial);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  useEffect(() => setAllowance(initial), [customer]);
  const save = (e: Event) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      await call(
        client.POST('/api/v1/admin/customers/{customer_id}', {
          params: { path: { customer_id: customer.id } },
          body: allowanceBody(allowance, null),
        }),
      );
      setSaved(true);
      onSaved();
    });
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="allowance-title">
      <h2 id="allowance-title">Plan and quota</h2>
      <div class="form-row">
        <AllowanceFields plans={plans} value={allowance} onChange={setAllowance} />
        <button type="submit" disabled={action.busy}>
          Save
        </button>
      </div>
      <p class="muted small">
        A new quota applies to the current month on every node at once: credits they hold on lease are revoked.
      </p>
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      {saved ? <Alert kind="success">Saved.</Alert> : null}
    </form>
  );
}

function CustomerTokens({ customerId }: { customerId: number }) {
  const tokens = useApi(
    () =>
      call(
        client.GET('/api/v1/admin/customers/{customer_id}/tokens', { params: { path: { customer_id: customerId } } }),
      ),
    [customerId],
  );
  const [name, setName] = useState('');
  const [created, setCreated] = useState<Schemas['CreatedApiToken'] | null>(null);
  const action = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      setCreated(
        await call(
          client.POST('/api/v1/admin/customers/{customer_id}/tokens', {
            params: { path: { customer_id: customerId } },
            body: { name: name.trim() || undefined },
          }),
        ),
      );
      setName('');
      tokens.reload();
    });
  };
  const revoke = (id: number) =>
    action.run(async () => {
      await call(client.DELETE('/api/v1/admin/tokens/{token_id}', { params: { path: { token_id: id } } }));
      tokens.reload();
    });
  return (
    <section class="card" aria-labelledby="customer-tokens">
      <h2 id="customer-tokens">API tokens</h2>
      {created ? (
        <SecretOnce title="New token for this customer" secret={created.token} onDone={() => setCreated(null)} />
      ) : null}
      <form class="form-row" onSubmit={create}>
        <Field label="Token name">
          <input value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={action.busy}>
          Create token
        </button>
      </form>
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      <Async state={tokens}>
        {(list) => (
          <DataTable
            rows={list}
            rowKey={(t) => t.id}
            empty="No tokens: create one and hand it to the customer to sign in."
            scroll="API tokens"
            columns={tokenColumns({ onRevoke: (t) => void revoke(t.id) })}
          />
        )}
      </Async>
    </section>
  );
}

/** One customer: this month's use, plan and quota, requests per day, tokens. */
export default function Customer({ params }: { params: Record<string, string> }) {
  const id = Number(params.id);
  const customer = useApi(
    () => call(client.GET('/api/v1/admin/customers/{customer_id}', { params: { path: { customer_id: id } } })),
    [id],
  );
  const plans = useApi(() => call(client.GET('/api/v1/admin/plans')), []);
  const range = lastDays(30);
  const daily = useApi(
    () => call(client.GET('/api/v1/admin/analytics/daily', { params: { query: { ...range, customer_id: id } } })),
    [id],
  );
  return (
    <Async state={customer}>
      {(c) => (
        <>
          <PageHeader title={c.name}>
            <span class="muted">
              Customer #{c.id}, since {c.created_at.slice(0, 10)}
            </span>
          </PageHeader>
          <QuotaCards quota={c.quota} plan={c.plan} />
          <EditAllowance customer={c} plans={plans.data ?? []} onSaved={customer.reload} />
          <DailyCard state={daily} title="Requests and matches per day (last 30 days)" />
          <CustomerTokens customerId={c.id} />
        </>
      )}
    </Async>
  );
}
