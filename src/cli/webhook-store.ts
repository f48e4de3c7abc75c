import { join, resolve } from 'node:path';
import { COMMON_HELP, newDatabaseNote, runCommand, UsageError, type CommandOutput, type Parsed } from './support.js';
import { loadConfig, type Config } from '../config.js';
import { EnsResolver } from '../ens/resolver.js';
import { openDb } from '../store/open.js';
import { migrate } from '../store/migrate.js';
import { pgliteHolder } from '../store/pglite.js';
import { ensNameResolver } from '../webhooks/ens.js';
import { WebhookStore } from '../webhooks/store.js';

/**
 * Plumbing of the `monitors` and `webhooks` CLI commands: they work on the control-plane
 * database directly (DATABASE_URL, or the embedded one in DATA_DIR when no server holds it),
 * with the same checks as the API (value normalization, SSRF guard, ENS resolution).
 */
export const HELP = COMMON_HELP.replace(/\n {2}--server URL[^\n]*/, '').replace(
  /Without --server the command[\s\S]*$/,
  'The command works on DATABASE_URL, or on the embedded database in DATA_DIR (stop the server first).',
);

export function storeFor(cfg: Config, db: Awaited<ReturnType<typeof openDb>>): WebhookStore {
  const ens = new EnsResolver({
    rpcUrl: cfg.ETH_RPC_URL,
    universalResolver: cfg.ENS_UNIVERSAL_RESOLVER as `0x${string}` | undefined,
    ttlSeconds: 0,
  });
  return new WebhookStore(db, {
    policy: { allowLoopback: cfg.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE },
    names: cfg.ETH_RPC_URL ? ensNameResolver(ens) : undefined,
  });
}

export function withStore(
  parsed: Parsed,
  usage: string,
  fn: (store: WebhookStore, customerId: () => number) => Promise<CommandOutput>,
): Promise<number> {
  const customer = () => {
    const v = parsed.values.customer;
    if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError('--customer ID is required');
    return Number(v);
  };
  return runCommand(
    parsed,
    usage,
    HELP,
    async () => {
      const cfg = loadConfig();
      if (!cfg.DATABASE_URL) {
        const holder = pgliteHolder(join(cfg.DATA_DIR, 'pglite'));
        if (holder !== null)
          throw new Error(
            `the server (pid ${holder}) holds the embedded database in ${cfg.DATA_DIR}: stop it, use DATABASE_URL, or use the dashboard API (/api/v1/account/...)`,
          );
      }
      const note = newDatabaseNote(cfg);
      const db = await openDb(cfg);
      await migrate(db);
      const using =
        db.kind === 'pglite'
          ? `the embedded database in ${resolve(cfg.DATA_DIR, 'pglite')}${note}`
          : 'the PostgreSQL database of DATABASE_URL';
      return { resource: storeFor(cfg, db), close: () => db.close(), using };
    },
    (store) => fn(store, customer),
  );
}
