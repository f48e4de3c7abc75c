import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { useApi } from '../lib/use-api';
import { Alert, Async, Dialog, Empty, Field, PageHeader, SecretOnce, useAction, TableScroll } from '../components/ui';

type Endpoint = Schemas['WebhookEndpoint'];
type MonitorType = Schemas['MonitoredEntityType'];

const MONITOR_TYPES: { type: MonitorType; label: string; placeholder: string }[] = [
  { type: 'onchain_address', label: 'Crypto address or ENS name', placeholder: '0x… or name.eth' },
  { type: 'email', label: 'E-mail address', placeholder: 'someone@example.com' },
  { type: 'website', label: 'Website', placeholder: 'example.com' },
  { type: 'government_id', label: 'Government ID', placeholder: 'AB850901' },
  { type: 'country', label: 'Country', placeholder: 'IR or Iran' },
];

function statusBadge(status: Schemas['WebhookDeliveryStatus']) {
  const kind = status === 'delivered' ? 'badge-success' : status === 'failed' ? 'badge-danger' : 'badge-warning';
  return <span class={`badge ${kind}`}>{status}</span>;
}

/** The delivery log of one endpoint, newest first. */
function Deliveries({ endpoint, onClose }: { endpoint: Endpoint; onClose: () => void }) {
  const log = useApi(() => call(client.GET('/api/v1/account/webhooks/{endpoint_id}/deliveries', { params: { path: { endpoint_id: endpoint.id }, query: { limit: 50 } } })), [endpoint.id]);
  return (
    <Dialog title={`Deliveries to ${endpoint.url}`} onClose={onClose}>
      <div class="page-actions">
        <button type="button" class="secondary" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <Async state={log}>
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No deliveries yet.</Empty>
          ) : (
            <TableScroll label="Delivery log">
              <table class="table compact" data-testid="deliveries">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Attempts</th>
                    <th scope="col">Next retry</th>
                    <th scope="col">Response</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((d) => (
                    <tr key={d.id}>
                      <td class="value">{d.event_id}</td>
                      <td>{d.event_type}</td>
                      <td>{statusBadge(d.status)}</td>
                      <td class="num">{d.attempts}</td>
                      <td>{d.status === 'pending' ? dateTime(d.next_attempt_at) : '—'}</td>
                      <td>
                        {d.last_status_code ?? '—'}
                        {d.last_error ? <span class="muted small"> {d.last_error}</span> : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p class="muted small">
                {count(page.total)} deliver{page.total === 1 ? 'y' : 'ies'}
              </p>
            </TableScroll>
          )
        }
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
      setSecret({ title: `New signing secret of ${rotated.url}`, value: rotated.secret });
      endpoints.reload();
    });
  const toggle = (e: Endpoint) =>
    action.run(async () => {
      await call(client.POST('/api/v1/account/webhooks/{endpoint_id}', { params: { path: { endpoint_id: e.id } }, body: { enabled: !e.enabled } }));
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
        Events are POSTed as JSON and signed with HMAC-SHA256 of the whole secret in the <code>X-Service-Signature</code> header (<code>t=…,v1=…</code>).
      </p>
      {secret ? <SecretOnce title={secret.title} secret={secret.value} onDone={() => setSecret(null)} /> : null}
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      <form class="form-row" onSubmit={create}>
        <Field label="Endpoint URL" hint="HTTPS on the public internet.">
          <input type="url" required value={url} size={48} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hooks/screening" />
        </Field>
        <button type="submit" disabled={action.busy}>
          Add endpoint
        </button>
      </form>
      <Async state={endpoints}>
        {(list) =>
          list.length === 0 ? (
            <Empty>No webhook endpoints.</Empty>
          ) : (
            <TableScroll label="Endpoints">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Status</th>
                    <th scope="col">Secret</th>
                    <th scope="col">Secret rotated</th>
                    <th scope="col">
                      <span class="muted">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((e) => (
                    <tr key={e.id}>
                      <td class="value">{e.url}</td>
                      <td>{e.enabled ? <span class="badge badge-success">enabled</span> : <span class="badge">disabled</span>}</td>
                      <td>
                        <code>{e.secret_prefix}…</code>
                      </td>
                      <td>{dateTime(e.secret_rotated_at)}</td>
                      <td class="actions">
                        <button type="button" class="secondary" onClick={() => setViewing(e)}>
                          Deliveries
                        </button>{' '}
                        <button type="button" class="secondary" disabled={!e.enabled} onClick={() => void test(e)}>
                          Send test
                        </button>{' '}
                        <button type="button" class="secondary" onClick={() => void rotate(e)}>
                          Rotate secret
                        </button>{' '}
                        <button type="button" class="secondary" onClick={() => void toggle(e)}>
                          {e.enabled ? 'Disable' : 'Enable'}
                        </button>{' '}
                        <button type="button" class="danger" onClick={() => setDeleting(e)}>
                          Delete
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Async>
      {viewing ? <Deliveries endpoint={viewing} onClose={() => setViewing(null)} /> : null}
      {deleting ? (
        <Dialog title="Delete this endpoint?" onClose={() => setDeleting(null)}>
          <p>
            <span class="value">{deleting.url}</span> and its pending deliveries and log will be deleted.
          </p>
          <div class="page-actions">
            <button type="button" class="danger" onClick={() => void remove(deleting)}>
              Delete endpoint
            </button>
            <button type="button" class="secondary" onClick={() => setDeleting(null)}>
              Cancel
            </button>
          </div>
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
      {ens ? <span class="muted small"> {m.resolved_address ? `resolves to ${m.resolved_address}` : 'does not resolve'}</span> : null}
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
      await call(client.POST('/api/v1/account/monitored-entities', { body: { entity_type: type, value: value.trim(), label: label.trim() || undefined } }));
      setValue('');
      setLabel('');
      monitors.reload();
    });
  };
  const remove = (id: number) =>
    action.run(async () => {
      await call(client.DELETE('/api/v1/account/monitored-entities/{monitored_entity_id}', { params: { path: { monitored_entity_id: id } } }));
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
          <input required value={value} maxLength={512} placeholder={kind.placeholder} onInput={(e) => setValue(e.currentTarget.value)} />
        </Field>
        <Field label="Label (optional)">
          <input value={label} maxLength={200} onInput={(e) => setLabel(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={action.busy}>
          Monitor
        </button>
      </form>
      <Async state={monitors}>
        {(list) =>
          list.length === 0 ? (
            <Empty>No monitored values.</Empty>
          ) : (
            <TableScroll label="Monitored values">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Value</th>
                    <th scope="col">Label</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span class="muted">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((m) => (
                    <tr key={m.id}>
                      <td>{MONITOR_TYPES.find((k) => k.type === m.entity_type)?.label ?? m.entity_type}</td>
                      <td class="value">{m.value}</td>
                      <td>{m.label ?? '—'}</td>
                      <td>{monitorStatus(m)}</td>
                      <td class="actions">
                        <button type="button" class="danger" onClick={() => void remove(m.id)} aria-label={`Remove ${m.value}`}>
                          Remove
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
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
