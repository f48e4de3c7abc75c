import { intArg, parse, table, UsageError } from './support.js';
import { withStore } from './webhook-store.js';

export const summary = 'webhook endpoints of customers: add, list, enable, disable, rotate, test, deliveries';

const USAGE = `usage: cli webhooks <add|list|enable|disable|rotate|test|deliveries> --customer ID [options]
  add --url URL [--disabled]         prints the signing secret once (whsec_...)
  list
  enable ENDPOINT_ID | disable ENDPOINT_ID
  rotate ENDPOINT_ID                 new secret, shown once; the old one stops signing at once
  test ENDPOINT_ID                   queues a test event (delivered by the running service)
  deliveries ENDPOINT_ID [--status pending|delivered|failed] [--limit N]`;

export function run(args: string[]): Promise<number> {
  const parsed = parse(args, {
    customer: { type: 'string' },
    url: { type: 'string' },
    disabled: { type: 'boolean' },
    status: { type: 'string' },
    limit: { type: 'string' },
  });
  const { values: v } = parsed;
  const endpointId = () => intArg(parsed.positionals[0], 'ENDPOINT_ID');
  const notFound = (id: number): never => {
    throw new Error(`webhook endpoint ${id} not found for this customer`);
  };
  return withStore(parsed, USAGE, async (store, customer) => {
    switch (parsed.sub) {
      case 'add': {
        if (typeof v.url !== 'string') throw new UsageError('--url is required');
        const e = await store.createEndpoint(customer(), { url: v.url, enabled: !v.disabled });
        return {
          json: e,
          text: `webhook endpoint ${e.id} → ${e.url}${e.enabled ? '' : ' (disabled)'}\nsigning secret (shown only now):\n${e.secret}`,
        };
      }
      case 'list': {
        const all = await store.listEndpoints(customer());
        return {
          json: all,
          text: table(all as unknown as Record<string, unknown>[], [
            'id',
            'url',
            'enabled',
            'secret_prefix',
            'secret_rotated_at',
            'created_at',
          ]),
        };
      }
      case 'enable':
      case 'disable': {
        const id = endpointId();
        const e = (await store.updateEndpoint(customer(), id, { enabled: parsed.sub === 'enable' })) ?? notFound(id);
        return { json: e, text: `webhook endpoint ${e.id} ${e.enabled ? 'enabled' : 'disabled'}` };
      }
      case 'rotate': {
        const id = endpointId();
        const e = (await store.rotateSecret(customer(), id)) ?? notFound(id);
        return {
          json: e,
          text: `new signing secret of endpoint ${e.id} (shown only now; the old one no longer signs):\n${e.secret}`,
        };
      }
      case 'test': {
        const id = endpointId();
        const t = (await store.sendTest(customer(), id)) ?? notFound(id);
        return { json: t, text: `queued test event ${t.event.id} as delivery ${t.delivery_id}` };
      }
      case 'deliveries': {
        const id = endpointId();
        const status = v.status;
        if (status !== undefined && status !== 'pending' && status !== 'delivered' && status !== 'failed')
          throw new UsageError('--status must be pending, delivered or failed');
        const limit = v.limit === undefined ? 20 : intArg(v.limit, '--limit');
        const page = (await store.deliveries(customer(), id, { status, limit, offset: 0 })) ?? notFound(id);
        const rows = page.items.map((d) => ({ ...d, attempt_log: undefined }));
        return {
          json: page,
          text:
            `${page.total} deliveries\n` +
            table(rows, [
              'id',
              'event_id',
              'event_type',
              'status',
              'attempts',
              'last_status_code',
              'last_latency_ms',
              'last_error',
              'next_attempt_at',
            ]),
        };
      }
      default:
        throw new UsageError(`unknown subcommand ${parsed.sub}`);
    }
  });
}
