import { intArg, parse, table, UsageError, withClient } from './support.js';

export const summary = 'plans (monthly credit quotas): create, list, update';

const USAGE = `usage: cli plans <create|list|update> [options]
  create --name NAME --quota N
  list
  update ID --quota N`;

export function run(args: string[]): Promise<number> {
  const parsed = parse(args, { name: { type: 'string' }, quota: { type: 'string' } });
  const { values: v } = parsed;
  return withClient(parsed, USAGE, async (client) => {
    switch (parsed.sub) {
      case 'create': {
        if (typeof v.name !== 'string' || v.name === '') throw new UsageError('--name is required');
        const p = await client.createPlan(v.name, intArg(v.quota, '--quota'));
        return { json: p, text: `created plan ${p.id} (${p.name}), monthly quota ${p.monthly_quota}` };
      }
      case 'list': {
        const all = await client.listPlans();
        return { json: all, text: table(all, ['id', 'name', 'monthly_quota', 'created_at']) };
      }
      case 'update': {
        const p = await client.updatePlan(intArg(parsed.positionals[0], 'ID'), intArg(v.quota, '--quota'));
        return { json: p, text: `plan ${p.id} (${p.name}) now has a monthly quota of ${p.monthly_quota}` };
      }
      default:
        throw new UsageError(`unknown subcommand ${parsed.sub}`);
    }
  });
}
