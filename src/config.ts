import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The service's whole configuration: environment variables, optionally preceded by a JSON config
 * file (`CONFIG_FILE`, same keys; the environment wins). Every variable is documented in the
 * README's table; an invalid value fails fast with a message naming the variable.
 */

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));
const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
const url = z.url();
const hexKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key');
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
const cidrList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .refine((items) => items.every(isCidrOrIp), 'must be a comma-separated list of IP addresses or CIDR ranges');
const minutesList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map(Number),
  )
  .refine(
    (m) => m.length > 0 && m.every((x) => Number.isInteger(x) && x >= 0 && x <= 59),
    'must be comma-separated minutes 0-59',
  )
  .transform((m) => [...new Set(m)].sort((a, b) => a - b));

function isCidrOrIp(s: string): boolean {
  const [ip, bits, extra] = s.split('/');
  if (extra !== undefined || !ip) return false;
  const family = isIP(ip);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d+$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

const schema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  /** This node's name among the nodes of one control-plane database; see src/store/node-identity.ts. */
  NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ : -')
    .optional(),
  SOURCE_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ADMIN_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  PUBLIC_BASE_URL: url.optional(),

  ENGINE_SHARDS: int(1, 64).optional(),

  CLICKHOUSE_URL: url.optional(),
  CLICKHOUSE_USER: z.string().optional(),
  CLICKHOUSE_PASSWORD: z.string().optional(),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('screening'),
  CLICKHOUSE_CLUSTER: z.string().optional(),
  AUDIT_STRICT: bool.default(false),
  AUDIT_FLUSH_MS: int(10, 60_000).default(1000),
  AUDIT_BATCH_ROWS: int(1, 1_000_000).default(50_000),

  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  QUOTA_LEASE_SIZE: int(1, 100_000).default(50),
  TOKEN_CACHE_SECONDS: int(1, 60).default(5),
  DEFAULT_MONTHLY_QUOTA: int(0, 1_000_000_000).default(1000),
  /** The most subjects one customer's book holds (docs/monitoring.md "Subjects"). */
  SUBJECTS_PER_CUSTOMER: int(1, 100_000_000).default(1_000_000),

  ETH_RPC_URL: url.optional(),
  ENS_UNIVERSAL_RESOLVER: address.optional(),
  ENS_CACHE_TTL_SECONDS: int(0, 86_400).default(300),

  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
  TRUSTED_PROXIES: cidrList.default([]),
  SEARCH_REGEX_ENABLED: bool.default(true),
  SEARCH_BURST: int(1, 100_000).default(30),
  SEARCH_RATE_PER_SECOND: int(1, 100_000).default(5),
  SEARCH_REGEX_BUDGET_MS: int(1, 10_000).default(250),
  UPGRADE_URL: url.optional(),
  WEBHOOK_ALLOW_LOOPBACK: bool.default(false),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  // Longer than the 10 s acknowledgement deadline: a live attempt is never retried beside itself.
  WEBHOOK_LEASE_MS: int(10_001, 3_600_000).default(40_000),

  X402_PAY_TO: address.optional(),
  X402_NETWORK: z
    .string()
    .regex(/^eip155:\d+$/, 'must be a CAIP-2 id eip155:<chain_id>')
    .default('eip155:8453'),
  X402_ASSET: address.default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  X402_ASSET_NAME: z.string().min(1).default('USD Coin'),
  X402_ASSET_VERSION: z.string().min(1).default('2'),
  X402_PRICE: int(1, 1_000_000_000).default(10_000),
  X402_RPC_URL: url.optional(),
  X402_SETTLER_PRIVATE_KEY: hexKey.optional(),
  X402_FACILITATOR_URL: url.optional(),

  PRIMARY_CHECK_MINUTES_UTC: minutesList.default([5, 35]),
  SOURCE_FETCH_TIMEOUT_MS: int(100, 600_000).default(60_000),
  SOURCE_FETCH_RETRIES: int(0, 10).default(3),
  SOURCE_MAX_BYTES: int(1024, 2_000_000_000).default(500_000_000),
  SOURCE_URLS: z
    .string()
    .transform((s, ctx) => {
      try {
        return z.record(z.string(), z.url()).parse(JSON.parse(s));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of "slug.file" → URL' });
        return z.NEVER;
      }
    })
    .default({}),
  LIST_REFRESH_ENABLED: bool.default(true),
  LIST_HISTORY_DAYS: int(1, 36_500).default(730),
  LIST_HISTORY_MAX_PERIODS: int(0, 100_000_000).default(1_000_000),
  LIST_UPLOAD_MAX_BYTES: int(1024, 8_000_000_000).default(512 * 1024 * 1024),
  PRIVATE_LISTS_PER_CUSTOMER: int(0, 10_000).default(10),
  PRIVATE_LIST_ROWS_PER_CUSTOMER: int(0, 100_000_000).default(100_000),
  /** Rows of one subjects import (docs/monitoring.md "Imports"): more is a 413. */
  SUBJECT_IMPORT_MAX_ROWS: int(1, 100_000_000).default(1_000_000),

  MIXER_RPC_URL: url.optional(),
  MIXER_POOLS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((a) => a.every((x) => /^0x[0-9a-fA-F]{40}$/.test(x)), 'must be comma-separated 0x addresses')
    .default([]),
  MIXER_START_BLOCK: int(0, Number.MAX_SAFE_INTEGER).default(0),

  PEP_PROVIDER: z.enum(['local', 'yente']).default('local'),
  PEP_LOCAL_FILE: z.string().optional(),
  PEP_YENTE_URL: url.optional(),
  PEP_YENTE_API_KEY: z.string().optional(),
  PEP_DATASET: z
    .string()
    .regex(/^[a-z0-9_]+$/)
    .default('peps'),
  PEP_TIMEOUT_MS: int(100, 60_000).default(5000),

  GEO_MMDB_PATH: z.string().optional(),
});

export type Config = z.output<typeof schema>;
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

/** Builds the configuration from an environment (default `process.env`). Throws ConfigError. */
export function loadConfig(env: Env = process.env): Config {
  const merged: Env = { ...readConfigFile(env.CONFIG_FILE), ...withoutEmpty(env) };
  const known = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, merged[k]]));
  const result = schema.safeParse(known);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const cfg = result.data;
  if (cfg.PEP_PROVIDER === 'yente' && !cfg.PEP_YENTE_URL) {
    throw new ConfigError('invalid configuration:\n  PEP_YENTE_URL: required when PEP_PROVIDER=yente');
  }
  if (cfg.X402_SETTLER_PRIVATE_KEY && !cfg.X402_RPC_URL) {
    throw new ConfigError('invalid configuration:\n  X402_RPC_URL: required with X402_SETTLER_PRIVATE_KEY');
  }
  return cfg;
}

function withoutEmpty(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

function readConfigFile(path: string | undefined): Env {
  if (!path) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  CONFIG_FILE: cannot read ${path}: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError('invalid configuration:\n  CONFIG_FILE: must hold a JSON object');
  }
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
}

/** The service's public origin: PUBLIC_BASE_URL, else http://localhost:PORT. */
export function publicBaseUrl(cfg: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (cfg.PUBLIC_BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
}

/** Target of the 402's `upgrade_plan` option: UPGRADE_URL, else the dashboard's billing page. */
export function upgradeUrl(cfg: Pick<Config, 'UPGRADE_URL' | 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return cfg.UPGRADE_URL ?? `${publicBaseUrl(cfg)}/dashboard/billing`;
}

/** CAIP-2 chain id of the x402 network, and v1's plain network name. */
export function x402Networks(cfg: Config): { caip2: string; chainId: number; v1Name: string } {
  const chainId = Number(cfg.X402_NETWORK.slice('eip155:'.length));
  const names: Record<number, string> = {
    8453: 'base',
    84532: 'base-sepolia',
    1: 'ethereum',
    11155111: 'sepolia',
    137: 'polygon',
    80002: 'polygon-amoy',
    43114: 'avalanche',
    43113: 'avalanche-fuji',
    10: 'optimism',
    42161: 'arbitrum',
  };
  return { caip2: cfg.X402_NETWORK, chainId, v1Name: names[chainId] ?? cfg.X402_NETWORK };
}
