import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { useApi } from '../lib/use-api';
import { KINDS } from './screen';
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

type Endpoint = Schemas['WebhookEndpoint'];
type MonitorType = Schemas['MonitoredEntityType'];

/** The kinds a value can be monitored as: the screening page's rows that have a monitored type. */
const MONITOR_TYPES = KINDS.flatMap((k) =>
  k.monitor ? [{ type: k.monitor, label: k.label, placeholder: k.placeholder }] : [],
);

function statusBadge(status: Schemas['WebhookDeliveryStatus']) {
  const kind = status === 'delivered' ? 'badge-success' : status === 'failed' ? 'badge-danger' : 'badge-warning';
  return <span class={`badge ${kind}`}>{status}</span>;
}

/** The delivery log of one endpoint, newest first. */
function Deliveries({ endpoint, onClose }: { endpoint: Endpoint; onClose: () => void }) {
  const log = useApi(
    () =>
      call(
        client.GET('/api/v1/account/webhooks/{endpoint_id}/deliveries', {
          params: { path: { endpoint_id: endpoint.id }, query: { limit: 50 } },
        }),
      ),
    [endpoint.id],
  );
  return (
    <Dialog title={`Deliveries to ${endpoint.url}`} onClose={onClose}>
      <div class="page-actions">
        <button type="button" class="secondary" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <Async state={log}>
        {(page) => (
          <>
            <DataTable
              rows={page.items}
              rowKey={(d) => d.id}
              empty="No deliveries yet."
              scroll="Delivery log"
              compact
              testId="deliveries"
              columns={[
                { header: 'Event', kind: 'value', cell: (d) => d.event_id },
                { header: 'Type', cell: (d) => d.event_type },
                { header: 'Status', cell: (d) => statusBadge(d.status) },
                { header: 'Attempts', kind: 'num', cell: (d) => d.attempts },
                { header: 'Next retry', cell: (d) => (d.status === 'pending' ? dateTime(d.next_attempt_at) : '—') },
                {
                  header: 'Response',
                  cell: (d) => (
                    <>
                      {d.last_status_code ?? '—'}
                      {d.last_error ? <span class="muted small"> {d.last_error}</span> : null}
                    </>
                  ),
                },
              ]}
            />
            <p class="muted small">
              {count(page.total)} deliver{page.total === 1 ? 'y' : 'ies'}
            </p>
          </>
        )}
      </Async>
    </Dialog>
  );
}

function EndpointsCard() {
  const endpoints = useApi(() => call(client.GET('/api/v1/account/webhooks')), []);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [viewing, setViewing] = useState<Endpoint | null>(null);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const [rotating, setRotating] = useState<Endpoint | null>(null);
  const action = useAction();
  const path = (e: Endpoint) => ({ params: { path: { endpoint_id: e.id } } });

  const create = (ev: Event) => {
    ev.preventDefault();
    void action.run(async () => {
      const created = await call(client.POST('/api/v1/account/webhooks', { body: { url: url.trim(), enabled: true } }));
      setUrl('');
      setSecret({ title: `Signing secret of ${created.url}`, value: created.secret });
      endpoints.reload();
    });
  };
  const rotate = (e: Endpoint) =>
    action.run(async () => {
      const rotated = await call(client.POST('/api/v1/account/webhooks/{endpoint_id}/rotate-secret', path(e)));
      setRotating(null);
      setSecret({ title: `New signing secret of ${rotated.url}`, value: rotated.secret });
      endpoints.reload();
    });
  const toggle = (e: Endpoint) =>
    action.run(async () => {
      await call(
        client.POST('/api/v1/account/webhooks/{endpoint_id}', {
          params: { path: { endpoint_id: e.id } },
          body: { enabled: !e.enabled },
        }),
      );
      endpoints.reload();
    });
  const test = (e: Endpoint) =>
    action.run(async () => {
      const sent = await call(client.POST('/api/v1/account/webhooks/{endpoint_id}/test', path(e)));
      setNotice(`Test event ${sent.event.id} queued for ${e.url}. Follow it in the delivery log.`);
    });
  const remove = (e: Endpoint) =>
    action.run(async () => {
      await call(client.DELETE('/api/v1/account/webhooks/{endpoint_id}', path(e)));
      setDeleting(null);
      endpoints.reload();
    });

  return (
    <section class="card" aria-labelledby="endpoints-title">
      <h2 id="endpoints-title">Endpoints</h2>
      <p class="muted small">
        Events are POSTed as JSON and signed with HMAC-SHA256 of the whole secret in the{' '}
        <code>X-Service-Signature</code> header (<code>t=…,v1=…</code>).
      </p>
      {secret ? <SecretOnce title={secret.title} secret={secret.value} onDone={() => setSecret(null)} /> : null}
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      <form class="form-row" onSubmit={create}>
        <Field label="Endpoint URL" hint="HTTPS on the public internet.">
          <input
            type="url"
            required
            value={url}
            size={48}
            onInput={(e) => setUrl(e.currentTarget.value)}
            placeholder="https://example.com/hooks/screening"
          />
        </Field>
        <button type="submit" disabled={action.busy}>
          Add endpoint
        </button>
      </form>
      <Async state={endpoints}>
        {(list) => (
          <DataTable
            rows={list}
            rowKey={(e) => e.id}
            empty="No webhook endpoints."
            scroll="Endpoints"
            columns={[
              { header: 'URL', kind: 'value', cell: (e) => e.url },
              {
                header: 'Status',
                cell: (e) =>
                  e.enabled ? <span class="badge badge-success">enabled</span> : <span class="badge">disabled</span>,
              },
              { header: 'Secret', cell: (e) => <code>{e.secret_prefix}…</code> },
              { header: 'Secret rotated', cell: (e) => dateTime(e.secret_rotated_at) },
              {
                header: 'Actions',
                kind: 'actions',
                cell: (e) => (
                  <>
                    <button type="button" class="secondary" onClick={() => setViewing(e)}>
                      Deliveries
                    </button>{' '}
                    <button type="button" class="secondary" disabled={!e.enabled} onClick={() => void test(e)}>
                      Send test
                    </button>{' '}
                    <button type="button" class="secondary" onClick={() => setRotating(e)}>
                      Rotate secret
                    </button>{' '}
                    <button type="button" class="secondary" onClick={() => void toggle(e)}>
                      {e.enabled ? 'Disable' : 'Enable'}
                    </button>{' '}
                    <button type="button" class="danger" onClick={() => setDeleting(e)}>
                      Delete
                    </button>
                  </>
                ),
              },
            ]}
          />
        )}
      </Async>
      {viewing ? <Deliveries endpoint={viewing} onClose={() => setViewing(null)} /> : null}
      {rotating ? (
        <Dialog title="Rotate the signing secret?" onClose={() => setRotating(null)}>
          <p>
            The current secret of <span class="value">{rotating.url}</span> stops signing at once: your receiver rejects
            every event until it has the new secret, shown once after this.
          </p>
          <DialogActions
            label="Rotate secret"
            busy={action.busy}
            onConfirm={() => void rotate(rotating)}
            onCancel={() => setRotating(null)}
          />
        </Dialog>
      ) : null}
      {deleting ? (
        <Dialog title="Delete this endpoint?" onClose={() => setDeleting(null)}>
          <p>
            <span class="value">{deleting.url}</span> and its pending deliveries and log will be deleted.
          </p>
          <DialogActions
            label="Delete endpoint"
            danger
            busy={action.busy}
            onConfirm={() => void remove(deleting)}
            onCancel={() => setDeleting(null)}
          />
        </Dialog>
      ) : null}
    </section>
  );
}

function monitorStatus(m: Schemas['MonitoredEntity']) {
  const ens = m.entity_type === 'onchain_address' && m.value.includes('.');
  return (
    <>
      {m.last_event ? (
        <span class={`badge ${m.last_event.type === 'entity.delisted' ? 'badge-success' : 'badge-danger'}`}>
          {m.last_event.type.replace('entity.', '')} on {m.last_event.list} {m.last_event.at.slice(0, 10)}
        </span>
      ) : (
        <span class="badge">no change since added</span>
      )}
      {ens ? (
        <span class="muted small">
          {' '}
          {m.resolved_address ? `resolves to ${m.resolved_address}` : 'does not resolve'}
        </span>
      ) : null}
    </>
  );
}

function MonitorsCard() {
  const monitors = useApi(() => call(client.GET('/api/v1/account/monitored-entities')), []);
  const [type, setType] = useState<MonitorType>('onchain_address');
  const [value, setValue] = useState('');
  const [label, setLabel] = useState('');
  const action = useAction();
  const kind = MONITOR_TYPES.find((k) => k.type === type)!;
  const add = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await call(
        client.POST('/api/v1/account/monitored-entities', {
          body: { entity_type: type, value: value.trim(), label: label.trim() || undefined },
        }),
      );
      setValue('');
      setLabel('');
      monitors.reload();
    });
  };
  const remove = (id: number) =>
    action.run(async () => {
      await call(
        client.DELETE('/api/v1/account/monitored-entities/{monitored_entity_id}', {
          params: { path: { monitored_entity_id: id } },
        }),
      );
      monitors.reload();
    });
  return (
    <section class="card" aria-labelledby="monitors-title">
      <h2 id="monitors-title">Monitored values</h2>
      <p class="muted small">Each endpoint receives an event when a monitored value is listed, delisted or relisted.</p>
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      <form class="form-row" onSubmit={add}>
        <Field label="Kind">
          <select value={type} onChange={(e) => setType(e.currentTarget.value as MonitorType)}>
            {MONITOR_TYPES.map((k) => (
              <option key={k.type} value={k.type}>
                {k.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Value">
          <input
            required
            value={value}
            maxLength={512}
            placeholder={kind.placeholder}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </Field>
        <Field label="Label (optional)">
          <input value={label} maxLength={200} onInput={(e) => setLabel(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={action.busy}>
          Monitor
        </button>
      </form>
      <Async state={monitors}>
        {(list) => (
          <DataTable
            rows={list}
            rowKey={(m) => m.id}
            empty="No monitored values."
            scroll="Monitored values"
            columns={[
              {
                header: 'Kind',
                cell: (m) => MONITOR_TYPES.find((k) => k.type === m.entity_type)?.label ?? m.entity_type,
              },
              { header: 'Value', kind: 'value', cell: (m) => m.value },
              { header: 'Label', cell: (m) => m.label ?? '—' },
              { header: 'Status', cell: monitorStatus },
              {
                header: 'Actions',
                kind: 'actions',
                cell: (m) => (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => void remove(m.id)}
                    aria-label={`Remove ${m.value}`}
                  >
                    Remove
                  </button>
                ),
              },
            ]}
          />
        )}
      </Async>
    </section>
  );
}

/** Webhook endpoints with their delivery logs, and the monitored values that trigger events. */
export default function Webhooks() {
  return (
    <>
      <PageHeader title="Webhooks" />
      <EndpointsCard />
      <MonitorsCard />
    </>
  );
}
