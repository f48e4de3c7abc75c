import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openAdminClient, type AdminClient } from './admin-client.js';

/**
 * Shared plumbing of the `customers`, `tokens` and `plans` CLI commands: option parsing, the
 * admin client (database or running server), `--json` or human output, errors as exit code 1.
 */
export type Options = ParseArgsConfig['options'];

export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  server: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const COMMON_HELP = `
Common options:
  --json          print JSON on stdout
  --server URL    go through the admin API of the server at URL (needs ADMIN_KEY)
Without --server the command works on DATABASE_URL, or on the embedded database in DATA_DIR; when
a running server holds that database, the command goes through its admin API on 127.0.0.1:PORT.`;

export interface Parsed {
  sub: string | undefined;
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

export function parse(args: string[], options: Options): Parsed {
  const { values, positionals } = parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
  return { sub: positionals[0], positionals: positionals.slice(1), values: values as Parsed['values'] };
}

export function intArg(value: string | boolean | undefined, name: string): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`${name} must be a non-negative integer`);
  return Number(value);
}

export class UsageError extends Error {}

export async function withClient(
  parsed: Parsed,
  usage: string,
  fn: (client: AdminClient) => Promise<{ json: unknown; text: string }>,
): Promise<number> {
  if (parsed.values.help || !parsed.sub) {
    console.log(usage + COMMON_HELP);
    return parsed.values.help ? 0 : 2;
  }
  let client: AdminClient | null = null;
  try {
    client = await openAdminClient(loadConfig(), { server: parsed.values.server as string | undefined });
    const out = await fn(client);
    console.log(parsed.values.json ? JSON.stringify(out.json, null, 2) : out.text);
    return 0;
  } catch (err) {
    console.error(err instanceof UsageError ? `${err.message}\n\n${usage}` : err instanceof ConfigError ? err.message : (err as Error).message);
    return err instanceof UsageError ? 2 : 1;
  } finally {
    await client?.close();
  }
}

/** Fixed-width columns for the human-readable listings. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '-' : String(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}
