import type { Config } from '../config.js';
import { advertise, localUrl } from '../operator/service-file.js';
import type { Logger } from 'pino';
import type { Lists } from './lists.js';
import type { Webhooks } from './webhooks.js';

/** The ingesting node tells local operator tools where it is (src/operator/service-file.ts). */
export interface Advertisement {
  /** The port bound: from now on a leading node is advertised. */
  listening(port: number): void;
  /** Advertises a leading node once it listens, withdraws a follower's advertisement. */
  update(leader: boolean): Promise<void>;
}

export function createAdvertisement(config: Config, operatorKey: string): Advertisement {
  let port: number | null = null;
  let unadvertise: (() => Promise<void>) | null = null;
  return {
    listening(bound) {
      port = bound;
    },
    async update(leader) {
      if (leader && port !== null && !unadvertise)
        unadvertise = await advertise(config.DATA_DIR, { url: localUrl(config.HOST, port), operator_key: operatorKey });
      if (!leader && unadvertise) {
        await unadvertise();
        unadvertise = null;
      }
    },
  };
}

/**
 * Follows leadership changes one at a time: list jobs and the list manager restart in the new
 * role, the ENS monitor runs on the leader only, and the advertisement follows.
 */
export function followLeadership(
  lists: Lists,
  webhooks: Webhooks,
  advertisement: Advertisement,
  log: Logger,
): { settled(): Promise<void> } {
  let roleChange: Promise<void> = Promise.resolve();
  lists.leadership.onChange((leader) => {
    roleChange = roleChange
      .then(async () => {
        await lists.operations.stop();
        await lists.switchRole(leader);
        if (leader) {
          webhooks.ensMonitor.start();
          await lists.operations.start();
        } else await webhooks.ensMonitor.stop();
        await advertisement.update(leader);
      })
      .catch((err: unknown) => log.error({ err }, 'role change failed'));
  });
  return { settled: () => roleChange };
}
