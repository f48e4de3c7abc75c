import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openAdminClient, type AdminClient } from '../billing/admin-client.js';

/**
 * Shared plumbing of the operator CLI commands: option parsing, opening what a command works on,
 * `--json` or human output, usage errors as exit code 2 and other errors as 1.
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
  const { values, positionals } = parseArgs({
    args,
    options: { ...COMMON_OPTIONS, ...options },
    allowPositionals: true,
    strict: true,
  });
  return { sub: positionals[0], positionals: positionals.slice(1), values: values as Parsed['values'] };
}

export function intArg(value: string | boolean | undefined, name: string): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`${name} must be a non-negative integer`);
  return Number(value);
}

export class UsageError extends Error {}

export interface CommandOutput {
  json: unknown;
  text: string;
}

/** What a command opened, said on stderr (stdout is the command's output, `--json` included). */
export function announce(what: string): void {
  console.error(`cli: using ${what}`);
}

/**
 * How an embedded database about to be opened is announced: one that does not exist yet is
 * created empty, which is worth saying (a server run with another DATA_DIR, CONFIG_FILE or
 * DATABASE_URL keeps its data elsewhere). Call it before opening.
 */
export function newDatabaseNote(cfg: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>): string {
  if (cfg.DATABASE_URL || existsSync(resolve(cfg.DATA_DIR, 'pglite'))) return '';
  return ` (created now, empty: no server has run with DATA_DIR=${cfg.DATA_DIR}; give the CLI the server's DATA_DIR, CONFIG_FILE or DATABASE_URL, or --server URL)`;
}

/**
 * Runs one sub-command: prints help for `--help` or no sub-command, opens the resource and says
 * what it is, prints the output as JSON or text, and always closes the resource.
 */
export async function runCommand<R>(
  parsed: Parsed,
  usage: string,
  help: string,
  open: () => Promise<{ resource: R; close(): Promise<void>; using: string }>,
  fn: (resource: R) => Promise<CommandOutput>,
): Promise<number> {
  if (parsed.values.help || !parsed.sub) {
    console.log(usage + help);
    return parsed.values.help ? 0 : 2;
  }
  let close: (() => Promise<void>) | null = null;
  try {
    const opened = await open();
    close = () => opened.close();
    announce(opened.using);
    const out = await fn(opened.resource);
    console.log(parsed.values.json ? JSON.stringify(out.json, null, 2) : out.text);
    return 0;
  } catch (err) {
    console.error(
      err instanceof UsageError
        ? `${err.message}\n\n${usage}`
        : err instanceof ConfigError
          ? err.message
          : (err as Error).message,
    );
    return err instanceof UsageError ? 2 : 1;
  } finally {
    await close?.();
  }
}

/** `customers`, `tokens`, `plans`: the admin client (database, or a running server's admin API). */
export function withClient(
  parsed: Parsed,
  usage: string,
  fn: (client: AdminClient) => Promise<CommandOutput>,
): Promise<number> {
  return runCommand(
    parsed,
    usage,
    COMMON_HELP,
    async () => {
      const cfg = loadConfig();
      const server = parsed.values.server as string | undefined;
      const note = server ? '' : newDatabaseNote(cfg);
      const client = await openAdminClient(cfg, { server });
      return { resource: client, close: () => client.close(), using: client.via + note };
    },
    fn,
  );
}

/** Fixed-width columns for the human-readable listings. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '-' : String(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}
