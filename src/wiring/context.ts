import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ScreeningKinds } from '../core/kinds.js';
import type { Metrics } from '../server/metrics.js';

/** What every wiring step of src/service.ts reads: made first, before any store is opened. */
export interface WiringContext {
  config: Config;
  log: Logger;
  now: () => number;
  kinds: ScreeningKinds;
  /** This node's identity (src/store/node-identity.ts). */
  node: string;
  metrics: Metrics;
}
