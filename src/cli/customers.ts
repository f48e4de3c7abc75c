import { intArg, parse, table, UsageError, withClient } from './support.js';

export const summary = 'customers of the metered API: create, list, show, update';

const USAGE = `usage: cli customers <create|list|get|update> [options]
  create --name NAME [--quota N] [--plan ID|NAME]   quota default: the plan's, else DEFAULT_MONTHLY_QUOTA
  list
  get ID                                            with this month's quota use
  update ID [--name NAME] [--quota N|none] [--plan ID|NAME|none]`;

const COLUMNS = ['id', 'name', 'plan', 'monthly_quota', 'created_at'];

export function run(args: string[]): Promise<number> {
  const parsed = parse(args, { name: { type: 'string' }, quota: { type: 'string' }, plan: { type: 'string' } });
  const { values: v } = parsed;
  return withClient(parsed, USAGE, async (client) => {
    const planId = async (p: string | boolean | undefined) =>
      typeof p === 'string' ? (await client.findPlan(p)).id : undefined;
    switch (parsed.sub) {
      case 'create': {
        if (typeof v.name !== 'string' || v.name === '') throw new UsageError('--name is required');
        const c = await client.createCustomer({
          name: v.name,
          plan_id: await planId(v.plan),
          monthly_quota: v.quota === undefined ? undefined : intArg(v.quota, '--quota'),
        });
        return { json: c, text: `created customer ${c.id} (${c.name}), monthly quota ${c.monthly_quota}` };
      }
      case 'list': {
        const all = await client.listCustomers();
        return { json: all, text: table(all, COLUMNS) };
      }
      case 'get': {
        const c = await client.getCustomer(intArg(parsed.positionals[0], 'ID'));
        return {
          json: c,
          text: `${table([c], COLUMNS)}\n${c.quota.month}: ${c.quota.used} of ${c.quota.monthly_quota} credits used`,
        };
      }
      case 'update': {
        const id = intArg(parsed.positionals[0], 'ID');
        const c = await client.updateCustomer(id, {
          name: typeof v.name === 'string' ? v.name : undefined,
          plan_id: v.plan === 'none' ? null : await planId(v.plan),
          monthly_quota: v.quota === undefined ? undefined : v.quota === 'none' ? null : intArg(v.quota, '--quota'),
        });
        return {
          json: c,
          text: `updated customer ${c.id}: monthly quota ${c.monthly_quota}${c.plan ? ` (plan ${c.plan})` : ''}`,
        };
      }
      default:
        throw new UsageError(`unknown subcommand ${parsed.sub}`);
    }
  });
}
