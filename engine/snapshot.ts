import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { once } from 'node:events';
import { ENTITY_TYPES, type EntityRecord, type ListSnapshotInfo } from './model.js';

/**
 * On-disk snapshot of one list version: a header line then one JSON record per line (NDJSON).
 * Line-oriented JSON streams in and out without building giant arrays, survives partial reads
 * detectably (the header carries the record count) and parses at ~1M records/s with V8's JSON.
 * Files are written to a temporary name and renamed, so a crash never leaves a half snapshot.
 * A record of a closed listing period (see loaders/diff.ts) has `removed_at`, and `superseded`
 * when its key was listed again later.
 */
const SNAPSHOT_FORMAT = 'screening-snapshot';
const SNAPSHOT_VERSION = 1;

interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  info: ListSnapshotInfo;
  count: number;
}

class SnapshotError extends Error {}

/** Room left in the header for the record count, which is written when the last record is. */
const COUNT_WIDTH = 16;
/** Characters of lines gathered before one write to the file. */
const FLUSH_CHARS = 1 << 20;

/**
 * Lines appended to a temporary file, one write per ~1 MB of lines rather than one per line,
 * renamed into place on close (a crash never leaves a half file under the name). `write` is
 * synchronous, so a caller writing millions of lines pays no promise per line: it awaits `ready()`
 * now and then (once per batch of input), which waits only while the file stream is over its
 * buffer (backpressure).
 */
export class LineFile {
  readonly tmp: string;
  private readonly out: WriteStream;
  private failed: Error | null = null;
  private pending: string[] = [];
  private pendingChars = 0;
  lines = 0;

  constructor(readonly path: string) {
    this.tmp = `${path}.tmp-${process.pid}`;
    this.out = createWriteStream(this.tmp);
    this.out.on('error', (err) => (this.failed = err));
  }

  write(line: string): void {
    if (this.failed) throw this.failed;
    this.lines++;
    this.pending.push(line);
    this.pendingChars += line.length + 1;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  /** Resolves once the file takes more lines without growing its buffer further (at once when it does now). */
  async ready(): Promise<void> {
    if (this.failed) throw this.failed;
    if (this.out.writableNeedDrain) await once(this.out, 'drain');
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    this.pendingChars = 0;
    this.out.write(text);
  }

  /** Writes what is left, runs `finish` on the complete temporary file, then renames it into place. */
  async close(finish?: (tmp: string) => Promise<void>): Promise<void> {
    this.flush();
    this.out.end();
    await once(this.out, 'finish');
    if (this.failed) throw this.failed;
    await finish?.(this.tmp);
    await rename(this.tmp, this.path);
  }

  /** Gives up: the temporary file is removed and nothing is renamed. */
  async abort(): Promise<void> {
    // Closed before it is removed: a stream destroyed while its file is still being opened
    // creates the file after all, which then outlived the removal.
    const closed = this.out.closed ? null : once(this.out, 'close');
    this.out.destroy();
    await closed;
    await rm(this.tmp, { force: true });
  }
}

/**
 * Writes a snapshot record by record, so a version of any size streams to disk. The header goes
 * first with blank room for the count (JSON allows the spaces), which `close` fills in once the
 * last record is written, before the file is renamed into place.
 */
export class SnapshotWriter {
  private readonly file: LineFile;
  private readonly countAt: number;

  private constructor(path: string, info: ListSnapshotInfo) {
    this.file = new LineFile(path);
    const head = JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, info });
    const opening = `${head.slice(0, -1)},"count":`;
    this.countAt = Buffer.byteLength(opening);
    this.file.write(`${opening}${' '.repeat(COUNT_WIDTH)}}`);
  }

  static async open(path: string, info: ListSnapshotInfo): Promise<SnapshotWriter> {
    await mkdir(dirname(path), { recursive: true });
    return new SnapshotWriter(path, info);
  }

  get count(): number {
    return this.file.lines - 1;
  }

  write(r: EntityRecord): void {
    this.file.write(JSON.stringify(r));
  }

  /** See LineFile.ready. */
  ready(): Promise<void> {
    return this.file.ready();
  }

  /** Fills in the count and renames the file into place. */
  async close(): Promise<{ count: number }> {
    const count = this.count;
    await this.file.close(async (tmp) => {
      const fd = await open(tmp, 'r+');
      try {
        await fd.write(String(count), this.countAt, 'utf8');
      } finally {
        await fd.close();
      }
    });
    return { count };
  }

  abort(): Promise<void> {
    return this.file.abort();
  }
}

/** Characters read from a file at a time. */
const READ_CHUNK = 1 << 20;

/**
 * The lines of a text file in batches (one per chunk read), without their line ends. Callers
 * handle a batch in a synchronous loop: a promise per batch, not per line.
 */
export async function* lineBatches(path: string): AsyncIterable<string[]> {
  let rest = '';
  for await (const chunk of createReadStream(path, {
    encoding: 'utf8',
    highWaterMark: READ_CHUNK,
  }) as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    if (lines.length > 0) yield lines;
  }
  if (rest !== '') yield [rest];
}

/**
 * Reads the header, then streams the records in batches; throws SnapshotError on any
 * inconsistency. With `only`, just the records whose index (from 0) it accepts: the others are
 * counted but not parsed.
 */
export async function readSnapshot(
  path: string,
  only?: (index: number) => boolean,
): Promise<{ info: ListSnapshotInfo; count: number; batches: AsyncIterable<EntityRecord[]> }> {
  const lines = lineBatches(path)[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new SnapshotError(`${path}: empty snapshot`);
  const firstLines = first.value;
  let header: SnapshotHeader;
  try {
    header = JSON.parse(firstLines[0]) as SnapshotHeader;
  } catch {
    throw new SnapshotError(`${path}:1: not a snapshot header`);
  }
  if (header.format !== SNAPSHOT_FORMAT) throw new SnapshotError(`${path}:1: not a ${SNAPSHOT_FORMAT} file`);
  if (header.version !== SNAPSHOT_VERSION)
    throw new SnapshotError(`${path}:1: unsupported snapshot version ${header.version}`);
  const types = new Set<string>(ENTITY_TYPES);
  let n = 0;
  const parse = (text: string[], from: number): EntityRecord[] => {
    const out: EntityRecord[] = [];
    for (let i = from; i < text.length; i++) {
      const line = text[i];
      if (line === '' || line === '\r') continue;
      n++;
      if (only && !only(n - 1)) continue;
      let r: EntityRecord;
      try {
        r = JSON.parse(line) as EntityRecord;
      } catch {
        throw new SnapshotError(`${path}:${n + 1}: malformed record`);
      }
      if (!types.has(r.entity_type) || typeof r.value !== 'string')
        throw new SnapshotError(`${path}:${n + 1}: invalid record`);
      out.push(r);
    }
    return out;
  };
  async function* batches(): AsyncIterable<EntityRecord[]> {
    const head = parse(firstLines, 1);
    if (head.length > 0) yield head;
    for (;;) {
      const next = await lines.next();
      if (next.done) break;
      const batch = parse(next.value, 0);
      if (batch.length > 0) yield batch;
    }
    if (n !== header.count) throw new SnapshotError(`${path}: truncated snapshot (${n} of ${header.count} records)`);
  }
  return { info: header.info, count: header.count, batches: batches() };
}
