/**
 * `mcp`: the model-tool server over stdio for a local agent. It builds the whole service (lists,
 * stores, gate, payments) without listening on any port and serves the same tools as
 * `{base_url}/mcp`. stdout carries only JSON-RPC; logs go to stderr.
 */
import { resolve as resolvePath } from 'node:path';
import pino from 'pino';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadConfig, publicBaseUrl } from '../config.js';
import { createService } from '../service.js';
import { createLogger } from '../server/log.js';
import { createMcpServer } from '../mcp/server.js';
import { bearerHeader } from '../mcp/call.js';
import { toolSpecs } from '../mcp/tools.js';

export const summary = 'serve the model-tool (MCP) endpoint over stdio for a local agent';

const USAGE = `usage: cli mcp

Serves MCP over stdin/stdout until stdin closes (or SIGINT/SIGTERM). Configuration comes from
the environment like the service's (DATA_DIR, SOURCE_DIR, DATABASE_URL, CLICKHOUSE_URL, X402_*,
...). DATA_DIR's embedded databases admit one process: beside a running service use another
DATA_DIR, or DATABASE_URL and CLICKHOUSE_URL servers.

  SCREENING_API_TOKEN   API token used for metered tools when a call's _meta has no "authorization"
  PUBLIC_BASE_URL       origin named as the x402 resource (default http://localhost:PORT)

Payments: _meta["x402/payment"] of a tools/call (payment payload object or its base64 form).`;

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.error(USAGE);
    return 0;
  }
  if (args.length > 0) {
    console.error(USAGE);
    return 2;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  // stdout is the protocol channel: every log line goes to stderr.
  const log = createLogger(config.LOG_LEVEL, pino.destination(2)).child({ transport: 'mcp-stdio' });
  const service = await createService(config, { log });
  const factory = createMcpServer({
    endpoints: service.endpoints,
    kinds: service.kinds,
    pipeline: service.pipeline,
    log,
  });
  const server = factory({
    baseUrl: publicBaseUrl(config),
    clientIp: null,
    headers: {},
    defaultAuthorization: bearerHeader(process.env.SCREENING_API_TOKEN),
    nextRequestId: () => crypto.randomUUID(),
  });
  await server.connect(new StdioServerTransport());
  log.info(
    {
      tools: toolSpecs(service.kinds).length,
      data_dir: resolvePath(config.DATA_DIR),
      database: config.DATABASE_URL ? 'DATABASE_URL' : 'embedded',
    },
    'mcp stdio server ready',
  );

  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    server.onclose = resolve;
  });
  await server.close();
  await service.close();
  return 0;
}
