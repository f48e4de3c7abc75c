import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../../lib/api';
import { count, dateTime } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import {
  Alert,
  Async,
  DataTable,
  Dialog,
  DialogActions,
  Empty,
  Field,
  PageHeader,
  useAction,
} from '../../components/ui';
import { RequestStatus } from '../../components/plan-request';

function PlanRow({ plan, onSaved }: { plan: Schemas['Plan']; onSaved: () => void }) {
  const [quota, setQuota] = useState(String(plan.monthly_quota));
  const action = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await call(
        client.POST('/api/v1/admin/plans/{plan_id}', {
          params: { path: { plan_id: plan.id } },
          body: { monthly_quota: Number(quota) },
        }),
      );
      onSaved();
    });
  };
  return (
    <tr>
      <td>{plan.name}</td>
      <td>
        <form class="form-row" onSubmit={save}>
          <input
            type="number"
            min={0}
            max={1_000_000_000}
            required
            value={quota}
            aria-label={`Monthly quota of ${plan.name}`}
            onInput={(e) => setQuota(e.currentTarget.value)}
          />
          <button type="submit" class="secondary" disabled={action.busy || quota === String(plan.monthly_quota)}>
            Save
          </button>
        </form>
        {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      </td>
      <td>{plan.created_at.slice(0, 10)}</td>
    </tr>
  );
}

function Requests() {
  const [status, setStatus] = useState<'pending' | ''>('pending');
  const requests = useApi(
    () => call(client.GET('/api/v1/admin/plan-requests', { params: { query: { status: status || undefined } } })),
    [status],
  );
  const [deciding, setDeciding] = useState<{ request: Schemas['AdminPlanChangeRequest']; approve: boolean } | null>(
    null,
  );
  const [note, setNote] = useState('');
  const action = useAction();
  const decide = () =>
    action.run(async () => {
      const { request, approve } = deciding!;
      const path = approve
        ? '/api/v1/admin/plan-requests/{request_id}/approve'
        : '/api/v1/admin/plan-requests/{request_id}/decline';
      await call(
        client.POST(path, { params: { path: { request_id: request.id } }, body: { note: note.trim() || undefined } }),
      );
      setDeciding(null);
      setNote('');
      requests.reload();
    });
  return (
    <section class="card" aria-labelledby="requests-title">
      <header class="card-header">
        <h2 id="requests-title">Plan change requests</h2>
        <Field label="Show">
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as 'pending' | '')}>
            <option value="pending">Waiting for a decision</option>
            <option value="">All</option>
          </select>
        </Field>
      </header>
      <Async state={requests}>
        {(list) => (
          <DataTable
            rows={list}
            rowKey={(r) => r.id}
            empty="No requests."
            scroll="Plan change requests"
            testId="admin-plan-requests"
            columns={[
              { header: 'Asked', cell: (r) => dateTime(r.created_at) },
              {
                header: 'Customer',
                cell: (r) => <a href={`/dashboard/admin/customers/${r.customer_id}`}>{r.customer_name}</a>,
              },
              // The customer's plan now: beside a decided request it would show the approved plan as if it had been the old one.
              {
                header: 'Current plan',
                cell: (r) => (r.status === 'pending' ? (r.current_plan ?? 'own quota') : '—'),
              },
              { header: 'Asked for', cell: (r) => `${r.plan} (${count(r.monthly_quota)}/month)` },
              { header: 'Note', cell: (r) => r.note ?? '—' },
              { header: 'Status', cell: (r) => <RequestStatus status={r.status} /> },
              {
                header: 'Actions',
                kind: 'actions',
                cell: (r) =>
                  r.status === 'pending' ? (
                    <>
                      <button type="button" onClick={() => setDeciding({ request: r, approve: true })}>
                        Approve
                      </button>{' '}
                      <button type="button" class="danger" onClick={() => setDeciding({ request: r, approve: false })}>
                        Decline
                      </button>
                    </>
                  ) : null,
              },
            ]}
          />
        )}
      </Async>
      {deciding ? (
        <Dialog
          title={`${deciding.approve ? 'Approve' : 'Decline'} ${deciding.request.customer_name}’s request for ${deciding.request.plan}`}
          onClose={() => setDeciding(null)}
        >
          <p>
            {deciding.approve
              ? 'The customer moves to this plan at once and its quota applies to the current month (an own quota of the customer is cleared).'
              : 'The customer sees the request as declined, with your note.'}
          </p>
          <Field label="Note to the customer (optional)">
            <textarea rows={3} maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
          </Field>
          {action.error ? <Alert kind="error">{action.error}</Alert> : null}
          <DialogActions
            label={deciding.approve ? 'Approve' : 'Decline'}
            danger={!deciding.approve}
            busy={action.busy}
            onConfirm={() => void decide()}
            onCancel={() => setDeciding(null)}
          />
        </Dialog>
      ) : null}
    </section>
  );
}

/** Plans (create, change a quota) and the customers' plan change requests. */
export default function Plans() {
  const plans = useApi(() => call(client.GET('/api/v1/admin/plans')), []);
  const [name, setName] = useState('');
  const [quota, setQuota] = useState('');
  const action = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await call(client.POST('/api/v1/admin/plans', { body: { name: name.trim(), monthly_quota: Number(quota) } }));
      setName('');
      setQuota('');
      plans.reload();
    });
  };
  return (
    <>
      <PageHeader title="Plans" />
      <Requests />
      <section class="card" aria-labelledby="plans-title">
        <h2 id="plans-title">Plans offered</h2>
        <form class="form-row" onSubmit={create}>
          <Field label="Name">
            <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Credits per month">
            <input
              type="number"
              required
              min={0}
              max={1_000_000_000}
              value={quota}
              onInput={(e) => setQuota(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" disabled={action.busy}>
            Create plan
          </button>
        </form>
        {action.error ? <Alert kind="error">{action.error}</Alert> : null}
        <Async state={plans}>
          {(list) =>
            list.length === 0 ? (
              <Empty>No plans yet.</Empty>
            ) : (
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Plan</th>
                    <th scope="col">Credits per month</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((p) => (
                    <PlanRow key={p.id} plan={p} onSaved={plans.reload} />
                  ))}
                </tbody>
              </table>
            )
          }
        </Async>
      </section>
    </>
  );
}
