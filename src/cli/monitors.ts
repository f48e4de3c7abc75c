import { intArg, parse, table, UsageError } from './support.js';
import { KINDS } from '../core/kinds.js';
import { withStore } from './webhook-store.js';

export const summary = 'monitored values of customers (webhook events): add, list, rm';

const USAGE = `usage: cli monitors <add|list|rm> --customer ID [options]
  add --type TYPE --value VALUE [--label LABEL]   TYPE: ${KINDS.monitorTypes.join(', ')}
                                                  (an onchain_address with a dot is an ENS name)
  list
  rm MONITORED_ENTITY_ID                          queued events are still delivered (id null)`;

export function run(args: string[]): Promise<number> {
  const parsed = parse(args, {
    customer: { type: 'string' },
    type: { type: 'string' },
    value: { type: 'string' },
    label: { type: 'string' },
  });
  const { values: v } = parsed;
  return withStore(parsed, USAGE, async (store, customer) => {
    switch (parsed.sub) {
      case 'add': {
        if (typeof v.type !== 'string' || !KINDS.monitored(v.type)) {
          throw new UsageError(`--type must be one of ${KINDS.monitorTypes.join(', ')}`);
        }
        if (typeof v.value !== 'string' || v.value === '') throw new UsageError('--value is required');
        const m = await store.createMonitor(customer(), {
          entity_type: v.type,
          value: v.value,
          label: typeof v.label === 'string' ? v.label : null,
        });
        const ens = m.resolved_address ? ` (resolves to ${m.resolved_address})` : '';
        return { json: m, text: `monitoring ${m.entity_type} ${m.value}${ens} as ${m.id}` };
      }
      case 'list': {
        const all = await store.listMonitors(customer());
        return {
          json: all,
          text: table(all as unknown as Record<string, unknown>[], [
            'id',
            'entity_type',
            'value',
            'label',
            'resolved_address',
            'created_at',
          ]),
        };
      }
      case 'rm': {
        const id = intArg(parsed.positionals[0], 'MONITORED_ENTITY_ID');
        const m = await store.deleteMonitor(customer(), id);
        if (!m) throw new Error(`monitored entity ${id} of customer ${customer()} not found`);
        return { json: m, text: `stopped monitoring ${m.entity_type} ${m.value} (${m.id})` };
      }
      default:
        throw new UsageError(`unknown subcommand ${parsed.sub}`);
    }
  });
}
