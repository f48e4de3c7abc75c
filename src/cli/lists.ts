/**
 * `lists`: ingest list sources into DATA_DIR and show what is committed there. Ingestion writes
 * the same snapshots, history and pending change files the service writes; a running service
 * picks them up at its next check of the list (a follower at its next poll), and delivers the
 * pending changes to its sinks.
 */
import cliProgress from 'cli-progress';
import pino from 'pino';
import { resolve } from 'node:path';
import { loadConfig, type Config } from '../config.js';
import { announce } from './support.js';
import { ListManager, type ProgressEvent, type RefreshOutcome } from '../../loaders/manager.js';

export const summary = 'fetch or import list sources into DATA_DIR, and show the stored lists';

const USAGE = `usage: cli lists fetch [SLUG] [--json]
       cli lists import --source-dir DIR [SLUG] [--json]
       cli lists show [--json]

  fetch    check every enabled list (or SLUG) at its source (official URL, SOURCE_URLS
           override, or SOURCE_DIR) and commit each new version to DATA_DIR
  import   the same, reading every file from DIR, laid out like ../shared/data
  show     the stored state of each enabled list: version, total, last update, last error
  --json   print JSON instead of a table

Configuration comes from the environment (DATA_DIR, SOURCE_DIR, SOURCE_*, MIXER_*, ...).
Exit status 1 when a list failed (an unconfigured mixer list is not a failure).`;

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h') || args.length === 0) {
    console.log(USAGE);
    return args.length === 0 ? 2 : 0;
  }
  const json = args.includes('--json');
  const rest = args.filter((a) => a !== '--json');
  const [command, ...params] = rest;
  switch (command) {
    case 'fetch':
      if (params.length > 1 || params[0]?.startsWith('-')) return usage();
      return ingest(loadConfig(), params[0], json);
    case 'import': {
      const at = params.indexOf('--source-dir');
      const dir = at >= 0 ? params[at + 1] : undefined;
      if (!dir) return usage();
      const others = params.filter((_, i) => i !== at && i !== at + 1);
      if (others.length > 1 || others[0]?.startsWith('-')) return usage();
      return ingest(loadConfig({ ...process.env, SOURCE_DIR: dir }), others[0], json);
    }
    case 'show':
      if (params.length > 0) return usage();
      return show(loadConfig(), json);
    default:
      return usage();
  }
}

function usage(): number {
  console.error(USAGE);
  return 2;
}

function logger() {
  return pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
}

async function ingest(config: Config, slug: string | undefined, json: boolean): Promise<number> {
  announce(`DATA_DIR ${resolve(config.DATA_DIR)}, sources from ${config.SOURCE_DIR ? `SOURCE_DIR ${resolve(config.SOURCE_DIR)}` : 'their official URLs'}`);
  const bars = !json && process.stdout.isTTY ? new Bars() : null;
  const manager = new ListManager({ config, engine: null, log: logger(), progress: bars ? (e) => bars.update(e) : undefined });
  let outcomes: RefreshOutcome[];
  try {
    outcomes = await manager.refresh(slug);
  } finally {
    bars?.stop();
  }
  if (json) console.log(JSON.stringify(outcomes));
  else
    printTable(
      ['list', 'result', 'version', 'changes', 'error'],
      outcomes.map((o) => [o.slug, o.result, o.version ?? '-', String(o.changes), o.error ?? '']),
    );
  return outcomes.some((o) => o.result === 'failed') ? 1 : 0;
}

async function show(config: Config, json: boolean): Promise<number> {
  announce(`DATA_DIR ${resolve(config.DATA_DIR)}`);
  const manager = new ListManager({ config, engine: null, log: logger() });
  await manager.open();
  const status = manager.status();
  if (json) console.log(JSON.stringify(status));
  else
    printTable(
      ['list', 'loaded', 'version', 'total', 'last_updated', 'last_checked', 'last_error'],
      Object.entries(status).map(([s, v]) => [
        s,
        v.loaded ? 'yes' : 'no',
        v.version ?? '-',
        String(v.total),
        v.last_updated ?? '-',
        v.last_checked ?? '-',
        v.last_error ?? '',
      ]),
    );
  return 0;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  console.log([line(header), ...rows.map(line)].join('\n'));
}

/** One progress bar at a time: a list's download, then its parse, then the next list. */
class Bars {
  private bar: cliProgress.SingleBar | null = null;
  private current = '';

  update(e: ProgressEvent): void {
    const id = e.file ? `${e.slug} ${e.phase} ${e.file}` : `${e.slug} ${e.phase}`;
    if (id !== this.current) {
      this.stop();
      this.current = id;
      this.bar = new cliProgress.SingleBar(
        { format: `${id.padEnd(32)} |{bar}| {percentage}% {value}/{total}`, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(e.total ?? e.done, 0);
    }
    // Without a known total (no Content-Length, streaming parsers) the bar follows the count.
    this.bar!.setTotal(e.total ?? Math.max(e.done, 1));
    this.bar!.update(e.done);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
    this.current = '';
  }
}
