import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { serviceUnavailable } from '../core/errors.js';
import { LocalPepIndex, localPepProvider } from './local.js';
import type { PepProvider } from './types.js';
import { yentePepProvider } from './yente.js';

export { type PepProvider } from './types.js';
export { LocalPepIndex } from './local.js';

/** Where the local provider reads its data without `PEP_LOCAL_FILE`: OpenSanctions' US Congress PEPs in SOURCE_DIR. */
const DEFAULT_SOURCE_DIR_FILE = join('pep', 'us_congress_senzing.jsonl');

export function localPepFile(config: Config): string | null {
  if (config.PEP_LOCAL_FILE) return config.PEP_LOCAL_FILE;
  if (config.SOURCE_DIR) return join(config.SOURCE_DIR, DEFAULT_SOURCE_DIR_FILE);
  return null;
}

/**
 * The PEP provider of `PEP_PROVIDER`: `yente` (live proxy to `PEP_YENTE_URL`) or `local` (an
 * index over `PEP_LOCAL_FILE`, default `SOURCE_DIR/pep/us_congress_senzing.jsonl`). A local
 * provider without a data file starts anyway and answers 503, so the rest of the service runs.
 */
export async function createPepProvider(deps: { config: Config; log: Logger }): Promise<PepProvider> {
  const { config, log } = deps;
  if (config.PEP_PROVIDER === 'yente') {
    return yentePepProvider({
      url: config.PEP_YENTE_URL!,
      dataset: config.PEP_DATASET,
      apiKey: config.PEP_YENTE_API_KEY,
      timeoutMs: config.PEP_TIMEOUT_MS,
      log,
    });
  }
  const file = localPepFile(config);
  if (!file || !existsSync(file)) {
    const why = file
      ? `PEP data file ${file} not found`
      : 'no PEP data file (set PEP_LOCAL_FILE or SOURCE_DIR, or PEP_PROVIDER=yente)';
    log.warn(why);
    return {
      kind: 'local',
      screen: async () => {
        throw serviceUnavailable('PEP screening is not available: no PEP data loaded');
      },
    };
  }
  const started = Date.now();
  const index = await LocalPepIndex.fromFile(file, log);
  log.info({ file, persons: index.size, ms: Date.now() - started }, 'PEP index loaded');
  return localPepProvider(index, config.PEP_DATASET);
}
