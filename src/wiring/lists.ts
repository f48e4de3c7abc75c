import type { Logger } from 'pino';
import { Engine } from '../../engine/engine.js';
import { ListManager } from '../../loaders/manager.js';
import { LISTS } from '../../loaders/registry.js';
import { EnsResolver } from '../ens/resolver.js';
import { ListCatalog } from '../lists/catalog.js';
import { ListJobs } from '../lists/jobs.js';
import { removeCommitLeftovers, removeUploadLeftovers } from '../lists/leftovers.js';
import { COMMITS_CHANNEL, ListOperations } from '../lists/operations.js';
import { acquireLeadership, soleLeader, type Leadership } from '../store/leader.js';
import { localNotifier, pgNotifier, type Notifier } from '../store/notify.js';
import { createWebhookSink } from '../webhooks/index.js';
import { AlertStore } from '../alerts/store.js';
import { SubjectStore } from '../subjects/store.js';
import { createBookSink } from '../subjects/watch.js';
import type { WiringContext } from './context.js';
import type { Stores } from './stores.js';

export interface Lists {
  engine: Engine;
  ens: EnsResolver;
  catalog: ListCatalog;
  leadership: Leadership;
  notifier: Notifier;
  jobs: ListJobs;
  operations: ListOperations;
  /** The list manager of this node's current role (leader: ingests; follower: reloads the leader's snapshots). */
  manager(): ListManager;
  /** Stops the current manager and starts one for the new role (its leftovers removed first when leading). */
  switchRole(leader: boolean): Promise<void>;
}

/**
 * The engine and the lists it serves: leadership, the list manager of this node's role (stored
 * snapshots loaded before this returns, fresh versions fetched in the background), list jobs.
 */
export async function startLists(ctx: WiringContext, { db, audit }: Stores): Promise<Lists> {
  const { config, log, now, kinds, node, metrics } = ctx;
  const engine = await Engine.create({ shards: config.ENGINE_SHARDS });
  const ens = new EnsResolver({
    rpcUrl: config.ETH_RPC_URL,
    universalResolver: config.ENS_UNIVERSAL_RESOLVER as `0x${string}` | undefined,
    ttlSeconds: config.ENS_CACHE_TTL_SECONDS,
    now,
  });
  const leadership = config.DATABASE_URL
    ? await acquireLeadership(config.DATABASE_URL, log.child({ component: 'leadership' }))
    : soleLeader();
  // Followers reload as soon as the leader commits (LISTEN/NOTIFY across nodes; a short poll of
  // the snapshot store besides).
  const notifier = config.DATABASE_URL
    ? pgNotifier(config.DATABASE_URL, log.child({ component: 'notify' }))
    : localNotifier();
  const announce = (slug: string) =>
    void notifier
      .notify(COMMITS_CHANNEL, slug)
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'commit not announced; followers poll'));
  let lists: ListManager;
  const catalog = new ListCatalog(LISTS, {
    generation: () => engine.generation(),
    served: () => engine.served(),
    definitions: () => lists.definitions(),
    history: (slug) => lists.history(slug),
  });
  const webhookSink = createWebhookSink({
    db,
    log: log.child({ component: 'webhooks' }),
    now,
    list: (slug) => catalog.definition(slug),
    kinds,
  });
  // Only reads the books (`page`): the limit of a book is the subjects endpoints' concern.
  const books = new SubjectStore(db, { maxPerCustomer: Number.MAX_SAFE_INTEGER });
  const bookSink = createBookSink({
    db,
    subjects: books,
    alerts: new AlertStore(db, { decisions: audit.alertDecisions, log: log.child({ component: 'alerts' }) }),
    log: log.child({ component: 'book-watch' }),
    list: (slug) => catalog.definition(slug),
    pageSize: config.BOOK_PAGE_SIZE,
    now,
  });
  const listManager = (follower: boolean) =>
    new ListManager({
      config,
      engine,
      sinks: [audit.changes, webhookSink, bookSink],
      follower,
      committed: follower ? undefined : announce,
      log: log.child({ component: 'lists', role: follower ? 'follower' : 'leader' }),
    });
  lists = listManager(!leadership.isLeader());
  notifier.listen(COMMITS_CHANNEL, () => {
    if (!leadership.isLeader())
      lists.reload().catch((err: unknown) => log.warn({ err }, 'reload after a commit failed'));
  });
  // Private lists stay out of the metrics, which anyone who reaches the node can read.
  metrics.listGauges(() =>
    Object.fromEntries(Object.entries(lists.status()).filter(([slug]) => !catalog.isPrivate(slug))),
  );
  const jobsLog = log.child({ component: 'list-jobs', node });
  if (leadership.isLeader()) await removeCommitLeftovers(config.DATA_DIR, jobsLog);
  await lists.start();
  const jobs = await startJobs(ctx, db, jobsLog);
  const operations = new ListOperations({
    jobs,
    manager: () => lists,
    isLeader: () => leadership.isLeader(),
    notifier,
    dataDir: config.DATA_DIR,
    log: jobsLog,
    limits: {
      listsPerCustomer: config.PRIVATE_LISTS_PER_CUSTOMER,
      rowsPerCustomer: config.PRIVATE_LIST_ROWS_PER_CUSTOMER,
    },
    // With an embedded database every job is queued by this process, which starts the leader (itself).
    pollMs: db.kind === 'pglite' ? null : undefined,
  });
  if (leadership.isLeader()) await operations.start();
  return {
    engine,
    ens,
    catalog,
    leadership,
    notifier,
    jobs,
    operations,
    manager: () => lists,
    async switchRole(leader) {
      await lists.stop();
      lists = listManager(!leader);
      if (leader) await removeCommitLeftovers(config.DATA_DIR, jobsLog);
      await lists.start();
    },
  };
}

/** List jobs, after marking the ones a previous run left running as abandoned and removing their files. */
async function startJobs({ config, now, node }: WiringContext, db: Stores['db'], log: Logger): Promise<ListJobs> {
  const jobs = new ListJobs(db, { node, log, now });
  await jobs.abandonRunning();
  await removeUploadLeftovers(config.DATA_DIR, jobs, log);
  jobs.start();
  return jobs;
}
