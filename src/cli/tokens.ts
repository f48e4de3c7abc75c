import { TOKEN_SCOPES, type TokenScope } from '../billing/tokens.js';
import { intArg, parse, table, UsageError, withClient } from './support.js';

export const summary = 'API tokens of customers: create (shown once), list, revoke';

const USAGE = `usage: cli tokens <create|list|revoke> [options]
  create --customer ID [--name LABEL] [--scopes screen,dashboard]
                                        prints the token once: sk_ + 32 base62 characters; scopes
                                        default to both (screen: metered endpoints, dashboard: /account)
  list --customer ID
  revoke TOKEN_ID                       effective on every node within TOKEN_CACHE_SECONDS`;

export function run(args: string[]): Promise<number> {
  const parsed = parse(args, { customer: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' } });
  const { values: v } = parsed;
  return withClient(parsed, USAGE, async (client) => {
    switch (parsed.sub) {
      case 'create': {
        const t = await client.createToken(
          intArg(v.customer, '--customer'),
          typeof v.name === 'string' ? v.name : undefined,
          scopesArg(v.scopes),
        );
        return {
          json: t,
          text: `token ${t.id} for customer ${intArg(v.customer, '--customer')} (shown only now):\n${t.token}`,
        };
      }
      case 'list': {
        const all = await client.listTokens(intArg(v.customer, '--customer'));
        return {
          json: all,
          text: table(all, ['id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at', 'revoked_at']),
        };
      }
      case 'revoke': {
        const t = await client.revokeToken(intArg(parsed.positionals[0], 'TOKEN_ID'));
        return { json: t, text: `revoked token ${t.id} (${t.prefix}…) at ${t.revoked_at}` };
      }
      default:
        throw new UsageError(`unknown subcommand ${parsed.sub}`);
    }
  });
}

function scopesArg(value: unknown): TokenScope[] | undefined {
  if (typeof value !== 'string') return undefined;
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(TOKEN_SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0)
    throw new UsageError(`--scopes takes ${TOKEN_SCOPES.join(', ')} (comma-separated)`);
  return scopes as TokenScope[];
}
