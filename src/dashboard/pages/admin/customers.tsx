import { useState } from 'preact/hooks';
import { call, client } from '../../lib/api';
import { count } from '../../lib/format';
import { navigate } from '../../lib/router';
import { useApi } from '../../lib/use-api';
import { Alert, Async, DataTable, Field, PageHeader, useAction } from '../../components/ui';
import { AllowanceFields, allowanceBody, type Allowance } from '../../components/plan-select';

/** Every customer with this month's use; create a customer on a plan or with its own quota. */
export default function Customers() {
  const customers = useApi(
    () => call(client.GET('/api/v1/admin/customers', { params: { query: { limit: 1000 } } })),
    [],
  );
  const plans = useApi(() => call(client.GET('/api/v1/admin/plans')), []);
  const [name, setName] = useState('');
  const [allowance, setAllowance] = useState<Allowance>({ planId: '', quota: '' });
  const action = useAction();

  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const c = await call(
        client.POST('/api/v1/admin/customers', { body: { name: name.trim(), ...allowanceBody(allowance, undefined) } }),
      );
      navigate(`/admin/customers/${c.id}`);
    });
  };

  return (
    <>
      <PageHeader title="Customers" />
      <form class="card" onSubmit={create} aria-labelledby="new-customer">
        <h2 id="new-customer">New customer</h2>
        <div class="form-row">
          <Field label="Name">
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <AllowanceFields plans={plans.data ?? []} value={allowance} onChange={setAllowance} />
          <button type="submit" disabled={action.busy || !name.trim()}>
            Create customer
          </button>
        </div>
        <p class="muted small">
          With neither a plan nor a quota the customer gets the default quota (DEFAULT_MONTHLY_QUOTA).
        </p>
        {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      </form>
      <section class="card" aria-labelledby="all-customers">
        <h2 id="all-customers">All customers</h2>
        <Async state={customers}>
          {(list) => (
            <DataTable
              rows={list}
              rowKey={(c) => c.id}
              empty="No customers yet."
              scroll="All customers"
              columns={[
                {
                  header: 'Customer',
                  cell: (c) => (
                    <>
                      <a href={`/dashboard/admin/customers/${c.id}`}>{c.name}</a>{' '}
                      <span class="muted small">#{c.id}</span>
                    </>
                  ),
                },
                { header: 'Plan', cell: (c) => c.plan ?? '—' },
                {
                  header: 'Monthly quota',
                  kind: 'num',
                  cell: (c) => (
                    <>
                      {count(c.monthly_quota)}
                      {c.quota_override !== null && c.plan ? <span class="muted small"> (own)</span> : null}
                    </>
                  ),
                },
                { header: 'Used this month', kind: 'num', cell: (c) => count(c.quota.used) },
                { header: 'Left', kind: 'num', cell: (c) => count(c.quota.remaining) },
              ]}
            />
          )}
        </Async>
      </section>
    </>
  );
}
