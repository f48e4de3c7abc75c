import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Alert, Async, DataTable, Dialog, DialogActions, Field, PageHeader, useAction } from '../components/ui';
import { QuotaCards } from '../components/quota';
import { RequestStatus } from '../components/plan-request';

/**
 * The plan, this month's use and the plans offered; asking for another plan records a request the
 * operator approves or declines (its outcome is listed here). The 402's `upgrade_plan` option
 * points here.
 */
export default function Billing() {
  const account = useApi(() => call(client.GET('/api/v1/account')), []);
  const plans = useApi(() => call(client.GET('/api/v1/account/plans')), []);
  const requests = useApi(() => call(client.GET('/api/v1/account/plan-requests')), []);
  const [asking, setAsking] = useState<Schemas['OfferedPlan'] | null>(null);
  const [note, setNote] = useState('');
  const action = useAction();
  const pending = requests.data?.find((r) => r.status === 'pending');

  const ask = (plan: Schemas['OfferedPlan']) =>
    action.run(async () => {
      await call(
        client.POST('/api/v1/account/plan-requests', { body: { plan_id: plan.id, note: note.trim() || undefined } }),
      );
      setAsking(null);
      setNote('');
      requests.reload();
    });
  const cancel = (r: Schemas['PlanChangeRequest']) =>
    action.run(async () => {
      await call(
        client.DELETE('/api/v1/account/plan-requests/{request_id}', { params: { path: { request_id: r.id } } }),
      );
      requests.reload();
    });

  return (
    <>
      <PageHeader title="Billing" />
      <Async state={account}>{(a) => <QuotaCards quota={a.quota} plan={a.plan} />}</Async>
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      <section class="card" aria-labelledby="plans-title">
        <h2 id="plans-title">Plans</h2>
        {pending ? (
          <Alert kind="info">Your request for the {pending.plan} plan is waiting for the operator’s decision.</Alert>
        ) : null}
        <Async state={plans}>
          {(list) => (
            <DataTable
              rows={list}
              rowKey={(p) => p.id}
              empty="The operator offers no plans yet. Contact them to change your quota."
              columns={[
                {
                  header: 'Plan',
                  cell: (p) =>
                    account.data?.plan === p.name ? (
                      <>
                        {p.name} <span class="badge badge-success">current</span>
                      </>
                    ) : (
                      p.name
                    ),
                },
                { header: 'Credits per month', kind: 'num', cell: (p) => count(p.monthly_quota) },
                {
                  header: 'Actions',
                  kind: 'actions',
                  cell: (p) =>
                    account.data?.plan === p.name ? null : (
                      <button type="button" class="secondary" disabled={Boolean(pending)} onClick={() => setAsking(p)}>
                        Request this plan
                      </button>
                    ),
                },
              ]}
            />
          )}
        </Async>
      </section>
      <section class="card" aria-labelledby="requests-title">
        <h2 id="requests-title">Your plan requests</h2>
        <Async state={requests}>
          {(list) => (
            <DataTable
              rows={list}
              rowKey={(r) => r.id}
              empty="No requests yet."
              testId="plan-requests"
              columns={[
                { header: 'Asked', cell: (r) => dateTime(r.created_at) },
                { header: 'Plan', cell: (r) => r.plan },
                { header: 'Status', cell: (r) => <RequestStatus status={r.status} /> },
                { header: 'Decided', cell: (r) => dateTime(r.decided_at) },
                { header: 'Operator’s note', cell: (r) => r.decision_note ?? '—' },
                {
                  header: 'Actions',
                  kind: 'actions',
                  cell: (r) =>
                    r.status === 'pending' ? (
                      <button type="button" class="secondary" onClick={() => void cancel(r)}>
                        Cancel request
                      </button>
                    ) : null,
                },
              ]}
            />
          )}
        </Async>
      </section>
      {asking ? (
        <Dialog title={`Request the ${asking.name} plan`} onClose={() => setAsking(null)}>
          <p>
            {count(asking.monthly_quota)} credits per month. The operator approves or declines the request; an approved
            plan applies to the current month at once.
          </p>
          <Field label="Note to the operator (optional)">
            <textarea rows={3} maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
          </Field>
          <DialogActions
            label="Send request"
            busy={action.busy}
            onConfirm={() => void ask(asking)}
            onCancel={() => setAsking(null)}
          />
        </Dialog>
      ) : null}
    </>
  );
}
