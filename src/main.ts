import { loadConfig, ConfigError } from './config.js';
import { createService } from './service.js';

/**
 * Starts the service. SIGTERM/SIGINT: stop accepting, finish in-flight requests, flush the audit
 * trail and usage, close stores, exit 0.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const service = await createService(config);
  const port = await service.listen();
  service.log.info({ port, host: config.HOST }, 'listening');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.log.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        service.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
