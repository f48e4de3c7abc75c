/**
 * `lists`: check, import, create, upload to and delete lists, and show what DATA_DIR holds.
 *
 * When a service runs on this DATA_DIR (it advertises itself in `DATA_DIR/service.json`, see
 * src/operator/service-file.ts) or `--server URL` names one, every command but `show` goes
 * through its admin API, so the ingesting node does the work under its leadership and serves the
 * new version at once: the CLI never writes snapshots beside a running service. Without a
 * service the command works on DATA_DIR itself (taking the ingestion lock first when
 * DATABASE_URL names a PostgreSQL server shared with other nodes); changes it commits are
 * delivered to ClickHouse and the webhooks when the service next starts.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import pino from 'pino';
import { ENTITY_TYPES, LIST_TYPES, type EntityType, type ListType } from '../../engine/model.js';
import { announce } from './support.js';
import { ListManager, type ProgressEvent, type RefreshOutcome } from '../../loaders/manager.js';
import { stagedBatches, stageUpload, UPLOAD_FORMATS, UploadRowError, type UploadFormat } from '../../loaders/upload.js';
import { loadConfig, type Config } from '../config.js';
import { runningService } from '../operator/service-file.js';
import { OPERATOR_SLUG, RESERVED_SLUGS } from '../api/schemas/lists.js';
import { acquireLeadership } from '../store/leader.js';

export const summary =
  'check, import, create, upload to and delete lists (through the running service when there is one)';

const USAGE = `usage: cli lists fetch [SLUG] [--json]
       cli lists import --source-dir DIR [SLUG] [--json]
       cli lists create SLUG --name NAME --type sanctions|crime|risk --entity-types TYPE[,TYPE...] [--not-default] [--json]
       cli lists upload SLUG FILE [--format csv|json|ndjson] [--json]
       cli lists delete SLUG [--json]
       cli lists show [--json]

  fetch    check every enabled list (or SLUG) at its source (official URL, SOURCE_URLS
           override, or SOURCE_DIR) and commit each new version
  import   the same, reading every file from DIR, laid out like ../shared/data
  create   create an operator list (public, filled by upload; SLUG: 3-48 of a-z 0-9 _)
  upload   replace an operator list's content with FILE: CSV (header entity_type,value,metadata),
           a JSON array or NDJSON of {entity_type, value, metadata}; the format follows the
           extension unless --format says it
  delete   delete an operator list (every value is delisted; the history stays)
  show     the stored state of each list: version, total, last update, last error
  --json   print JSON instead of a table
  --server URL   go through the admin API at URL (needs ADMIN_KEY)

Without --server the commands go through the service advertised in DATA_DIR/service.json, with
the local operator key it wrote there; with no service running they work on DATA_DIR directly.
Configuration comes from the environment (DATA_DIR, SOURCE_DIR, SOURCE_*, MIXER_*, ADMIN_KEY, ...).
Exit status 1 when a list failed (an unconfigured mixer list is not a failure).`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  server: { type: 'string' },
  'source-dir': { type: 'string' },
  name: { type: 'string' },
  type: { type: 'string' },
  'entity-types': { type: 'string' },
  'not-default': { type: 'boolean' },
  format: { type: 'string' },
} as const;

class UsageError extends Error {}

export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...params] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  try {
    const config = loadConfig();
    if (command === 'show') {
      if (params.length > 0) throw new UsageError('show takes no argument');
      return await show(config, values.json === true);
    }
    const op = operation(command, params, values);
    const target = await open(config, values.server);
    try {
      const outcomes = await target.run(op);
      print(outcomes, values.json === true);
      return outcomes.some((o) => o.result === 'failed') ? 1 : 0;
    } finally {
      await target.close();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error((err as Error).message);
    return 1;
  }
}

type Operation =
  | { kind: 'refresh'; slug?: string; sourceDir?: string }
  | { kind: 'create'; slug: string; name: string; type: ListType; entityTypes: EntityType[]; inDefaultSet: boolean }
  | { kind: 'upload'; slug: string; file: string; format: UploadFormat }
  | { kind: 'delete'; slug: string };

function operation(command: string, params: string[], values: Record<string, string | boolean | undefined>): Operation {
  const one = (what: string) => {
    if (params.length !== 1) throw new UsageError(`${command} takes ${what}`);
    return params[0];
  };
  switch (command) {
    case 'fetch':
      if (params.length > 1) throw new UsageError('fetch takes at most one SLUG');
      return { kind: 'refresh', slug: params[0] };
    case 'import': {
      const dir = values['source-dir'];
      if (typeof dir !== 'string') throw new UsageError('import needs --source-dir DIR');
      if (params.length > 1) throw new UsageError('import takes at most one SLUG');
      return { kind: 'refresh', slug: params[0], sourceDir: resolve(dir) };
    }
    case 'create': {
      const slug = one('one SLUG');
      const type = values.type;
      const types =
        typeof values['entity-types'] === 'string'
          ? values['entity-types']
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean)
          : [];
      if (typeof values.name !== 'string' || !values.name.trim()) throw new UsageError('create needs --name NAME');
      if (typeof type !== 'string' || !(LIST_TYPES as readonly string[]).includes(type))
        throw new UsageError(`--type must be one of ${LIST_TYPES.join(', ')}`);
      if (types.length === 0 || !types.every((t) => (ENTITY_TYPES as readonly string[]).includes(t)))
        throw new UsageError(`--entity-types must be a comma-separated list of ${ENTITY_TYPES.join(', ')}`);
      return {
        kind: 'create',
        slug,
        name: values.name.trim(),
        type: type as ListType,
        entityTypes: [...new Set(types)] as EntityType[],
        inDefaultSet: values['not-default'] !== true,
      };
    }
    case 'upload': {
      if (params.length !== 2) throw new UsageError('upload takes a SLUG and a FILE');
      const [slug, file] = params;
      const given = values.format;
      const byExtension: Record<string, UploadFormat> = {
        '.csv': 'csv',
        '.json': 'json',
        '.ndjson': 'ndjson',
        '.jsonl': 'ndjson',
      };
      const format = typeof given === 'string' ? given : byExtension[extname(file).toLowerCase()];
      if (!format || !(UPLOAD_FORMATS as readonly string[]).includes(format))
        throw new UsageError('--format must be csv, json or ndjson (or the file end in .csv, .json, .ndjson)');
      return { kind: 'upload', slug, file: resolve(file), format: format as UploadFormat };
    }
    case 'delete':
      return { kind: 'delete', slug: one('one SLUG') };
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

interface Target {
  run(op: Operation): Promise<RefreshOutcome[]>;
  close(): Promise<void>;
}

/** The running service (given, or advertised in DATA_DIR), else DATA_DIR itself. */
async function open(config: Config, server: string | boolean | undefined): Promise<Target> {
  if (typeof server === 'string') {
    if (!config.ADMIN_KEY) throw new Error('ADMIN_KEY is required to use the admin API at --server');
    return serviceTarget(server, config.ADMIN_KEY);
  }
  const running = runningService(config.DATA_DIR);
  if (running) {
    announce(`the service running on DATA_DIR ${resolve(config.DATA_DIR)} (${running.url})`);
    return serviceTarget(running.url, running.operator_key);
  }
  return directTarget(config);
}

const CONTENT_TYPES: Record<UploadFormat, string> = {
  csv: 'text/csv',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
};

type JobView = {
  id: number;
  status: string;
  results: {
    list: string;
    result: RefreshOutcome['result'];
    version: string | null;
    listed: number;
    delisted: number;
    relisted: number;
    total: number | null;
    duplicates: number | null;
    error: string | null;
  }[];
};

function serviceTarget(base: string, key: string): Target {
  const root = `${base.replace(/\/+$/, '')}/api/v1/admin/lists`;
  const auth = { authorization: `Bearer ${key}` };
  const answer = async (res: Response, what: string): Promise<RefreshOutcome[]> => {
    let body = (await res.json().catch(() => null)) as JobView | { detail: unknown } | null;
    if (res.status === 202) {
      // Still running after the longest wait: poll the job.
      const id = (body as JobView).id;
      do {
        await new Promise((r) => setTimeout(r, 500));
        const poll = await fetch(`${root}/jobs/${id}`, { headers: auth });
        body = (await poll.json()) as JobView;
      } while (body.status !== 'done' && body.status !== 'failed');
      if (body.status === 'failed') throw new Error(`${what}: ${JSON.stringify(body)}`);
    } else if (res.status !== 200) {
      const detail = (body as { detail?: unknown } | null)?.detail;
      throw new Error(`${what}: ${res.status} ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    }
    return (body as JobView).results.map((r) => ({
      slug: r.list,
      result: r.result,
      version: r.version,
      changes: r.listed + r.delisted + r.relisted,
      listed: r.listed,
      delisted: r.delisted,
      relisted: r.relisted,
      total: r.total ?? undefined,
      duplicates: r.duplicates ?? undefined,
      error: r.error ?? undefined,
    }));
  };
  const json = (method: string, path: string, body?: unknown) =>
    fetch(`${root}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    async run(op) {
      switch (op.kind) {
        case 'refresh': {
          const path = op.slug === undefined ? '/refresh?wait=300' : `/${encodeURIComponent(op.slug)}/refresh?wait=300`;
          return answer(await json('POST', path, op.sourceDir ? { source_dir: op.sourceDir } : {}), 'refresh');
        }
        case 'create':
          return answer(
            await json('POST', '?wait=300', {
              slug: op.slug,
              display_name: op.name,
              list_type: op.type,
              entity_types: op.entityTypes,
              in_default_set: op.inDefaultSet,
            }),
            'create',
          );
        case 'upload': {
          const res = await fetch(`${root}/${encodeURIComponent(op.slug)}/upload?wait=300`, {
            method: 'POST',
            headers: { ...auth, 'content-type': CONTENT_TYPES[op.format] },
            body: Readable.toWeb(createReadStream(op.file)) as ReadableStream,
            duplex: 'half',
          } as RequestInit);
          return answer(res, 'upload');
        }
        case 'delete':
          return answer(await json('DELETE', `/${encodeURIComponent(op.slug)}?wait=300`), 'delete');
      }
    },
    close: async () => undefined,
  };
}

function logger() {
  return pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
}

async function directTarget(config: Config): Promise<Target> {
  announce(
    `DATA_DIR ${resolve(config.DATA_DIR)}, sources from ${config.SOURCE_DIR ? `SOURCE_DIR ${resolve(config.SOURCE_DIR)}` : 'their official URLs'}`,
  );
  const log = logger();
  // Other nodes may ingest on a shared PostgreSQL: take their lock, or leave the work to them.
  const leadership = config.DATABASE_URL ? await acquireLeadership(config.DATABASE_URL, log) : null;
  if (leadership && !leadership.isLeader()) {
    await leadership.close();
    throw new Error(
      'a service node ingests the lists (it holds the ingestion lock): run this command on its host, or pass --server URL',
    );
  }
  const bars = process.stdout.isTTY ? new Bars() : null;
  const manager = new ListManager({ config, engine: null, log, progress: bars ? (e) => bars.update(e) : undefined });
  await manager.open();
  return {
    async run(op) {
      try {
        switch (op.kind) {
          case 'refresh':
            return await manager.refresh(op.slug, { sourceDir: op.sourceDir });
          case 'create':
            if (!OPERATOR_SLUG.test(op.slug) || RESERVED_SLUGS.has(op.slug))
              throw new Error(`not an operator list slug: ${op.slug} (3-48 of a-z, 0-9 and _, starting with a letter)`);
            return [
              await manager.createList({
                slug: op.slug,
                display_name: op.name,
                list_type: op.type,
                kind: 'operator_list',
                cadence: 'manual',
                enabled: true,
                in_default_set: op.inDefaultSet,
                entity_types: op.entityTypes,
              }),
            ];
          case 'upload':
            return [await upload(config, manager, op)];
          case 'delete':
            return [await manager.deleteList(op.slug)];
        }
      } finally {
        bars?.stop();
      }
    },
    async close() {
      await manager.stop();
      await leadership?.close();
    },
  };
}

async function upload(
  config: Config,
  manager: ListManager,
  op: Extract<Operation, { kind: 'upload' }>,
): Promise<RefreshOutcome> {
  const def = manager
    .definitions()
    .find((d) => d.slug === op.slug && d.source.type === 'upload' && !d.deleted_at && d.owner === undefined);
  if (!def) throw new Error(`no operator list ${op.slug}`);
  const dir = join(config.DATA_DIR, 'uploads');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `cli-${process.pid}.ndjson`);
  try {
    const staged = await stageUpload(createReadStream(op.file), {
      format: op.format,
      list: op.slug,
      entityTypes: def.entity_types ?? [],
      path,
      maxRows: Number.MAX_SAFE_INTEGER,
    }).catch((err: unknown) => {
      throw err instanceof UploadRowError ? new Error(`${op.file}:${err.line}: ${err.reason}`) : err;
    });
    return {
      ...(await manager.uploadList(op.slug, { records: stagedBatches(path), version: staged.version })),
      duplicates: staged.duplicates,
    };
  } finally {
    await rm(path, { force: true });
  }
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

function print(outcomes: RefreshOutcome[], json: boolean): void {
  if (json) {
    console.log(JSON.stringify(outcomes));
    return;
  }
  printTable(
    ['list', 'result', 'version', 'listed', 'delisted', 'relisted', 'total', 'error'],
    outcomes.map((o) => [
      o.slug,
      o.result,
      o.version ?? '-',
      String(o.listed ?? 0),
      String(o.delisted ?? 0),
      String(o.relisted ?? 0),
      o.total === undefined ? '-' : String(o.total),
      o.error ?? '',
    ]),
  );
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
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
