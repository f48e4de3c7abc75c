import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Logger } from 'pino';
import type { InsertLines } from './writer.js';

/**
 * The (request id, time) pairs a table already holds between two times, as `storedKey` makes
 * them: a segment replayed after a crash inserts only the rows whose pair is not among them.
 */
export type StoredKeys = (table: string, fromMs: number, toMs: number) => Promise<Set<string>>;

/** The key of a row for `StoredKeys`: its request id as TabSeparated text, a tab, its time in ms. */
export const storedKey = (requestIdText: string, timeMs: number): string => `${requestIdText}\t${timeMs}`;

export interface AuditLogOptions {
  /** Where the segments live (DATA_DIR/audit-wal). */
  dir: string;
  /** `database.table` → the columns of its lines; each has `time` and `request_id`. */
  tables: ReadonlyMap<string, readonly [string, ...string[]]>;
  insert: InsertLines;
  stored: StoredKeys;
  /** A segment is sealed and inserted at the latest this long after its first rows (AUDIT_FLUSH_MS). */
  flushMs: number;
  /** A segment is sealed once it holds this many bytes. */
  segmentBytes?: number;
  log?: Logger;
}

const SEGMENT_BYTES = 8 << 20;
/** Frame header: payload length and CRC-32 of the payload, little-endian. */
const HEADER = 8;
const SEGMENT = /^(\d{12})\.wal$/;
const segmentName = (n: number) => `${String(n).padStart(12, '0')}.wal`;

interface Group {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function group(): Group {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A group nobody waits for (only pushes) must not surface as an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

interface Sealed {
  file: string;
  /** Found at start: its rows may be stored in part, so each table's are checked first. */
  checked: boolean;
  /** Tables whose insert succeeded in this process. */
  done: Set<string>;
}

/** A frame: `[u32 length][u32 crc32][u8 table name length][table name][lines]`. */
function frame(table: string, lines: string): Buffer {
  const name = Buffer.byteLength(table);
  const size = 1 + name + Buffer.byteLength(lines);
  const buf = Buffer.allocUnsafe(HEADER + size);
  buf.writeUInt32LE(size, 0);
  buf.writeUInt8(name, HEADER);
  buf.write(table, HEADER + 1, 'utf8');
  buf.write(lines, HEADER + 1 + name, 'utf8');
  buf.writeUInt32LE(crc32(buf.subarray(HEADER)), 4);
  return buf;
}

/**
 * The whole frames of a segment by table, in order; a torn or corrupt tail (a write the crash
 * cut short, whose rows were never acknowledged) ends the segment.
 */
function readFrames(bytes: Buffer): { tables: Map<string, Buffer[]>; ignored: number } {
  const tables = new Map<string, Buffer[]>();
  let at = 0;
  while (at + HEADER <= bytes.length) {
    const size = bytes.readUInt32LE(at);
    const end = at + HEADER + size;
    if (size < 1 || end > bytes.length) break;
    const payload = bytes.subarray(at + HEADER, end);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) break;
    const name = payload.readUInt8(0);
    if (1 + name > size) break;
    const table = payload.toString('utf8', 1, 1 + name);
    let list = tables.get(table);
    if (!list) tables.set(table, (list = []));
    list.push(payload.subarray(1 + name));
    at = end;
  }
  return { tables, ignored: bytes.length - at };
}

/**
 * A table's frames by the number of fields of their lines (every line of a frame has the same).
 * Columns are only ever added at the end of a table's lines (src/audit/formats.ts), so a segment
 * written by an earlier release, with fewer fields, is inserted into the columns it holds and the
 * newer ones take their defaults.
 */
function byFieldCount(chunks: Buffer[]): Map<number, Buffer[]> {
  const out = new Map<number, Buffer[]>();
  for (const c of chunks) {
    const end = c.indexOf(10);
    let fields = 1;
    for (let i = c.indexOf(9); i >= 0 && (end < 0 || i < end); i = c.indexOf(9, i + 1)) fields++;
    let list = out.get(fields);
    if (!list) out.set(fields, (list = []));
    list.push(c);
  }
  return out;
}

/** The epoch ms of a DateTime64 field as tsv.ts writes it (`seconds.mmm`, or ISO outside that range). */
function fieldMs(field: string): number {
  const dot = field.indexOf('.');
  if (/^\d+\.\d{3}$/.test(field)) return Number(field.slice(0, dot)) * 1000 + Number(field.slice(dot + 1));
  return Date.parse(`${field.replace(' ', 'T')}Z`);
}

/**
 * The durable point of AUDIT_STRICT: a write-ahead log of encoded audit rows in segment files.
 * - `append` adds a table's lines; `sync` resolves once everything appended before it is written
 *   and fsync'd. One fsync covers every append made while the previous one ran (group commit),
 *   so an answer waits for about one fsync, not for a ClickHouse insert.
 * - A segment is sealed once it holds `segmentBytes` or `flushMs` after its first rows; its rows
 *   are then inserted, table by table, and the file removed. A failed insert is retried
 *   `flushMs` later; the rows stay on disk meanwhile, not in memory.
 * - Segments found at start are what a crash left: every frame up to a torn tail is inserted,
 *   except the rows whose (request id, time) the table already holds (`StoredKeys`). A segment
 *   inserted in whole or in part before the crash, but not yet removed, counts nothing twice.
 */
export class AuditLog {
  private readonly segmentBytes: number;
  private pending = new Map<string, string[]>();
  private hasPending = false;
  private next = group();
  private syncing: Promise<void> | null = null;
  /** The group being written: what `sync` waits for once its appends were taken. */
  private writing: Group | null = null;
  private scheduled: NodeJS.Immediate | null = null;
  private segment: { n: number; handle: FileHandle; bytes: number; firstAt: number } | null = null;
  private nextSegment = 1;
  private ageTimer: NodeJS.Timeout | null = null;
  private readonly sealed: Sealed[] = [];
  private inserting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Segments sealed (or found at start) and inserted since start: what a flush waits for. */
  private sealedCount = 0;
  private insertedCount = 0;
  private closed = false;
  /** Rows inserted into ClickHouse since start, and rows of replayed segments found already stored. */
  inserted = 0;
  skipped = 0;

  constructor(private readonly opts: AuditLogOptions) {
    this.segmentBytes = opts.segmentBytes ?? SEGMENT_BYTES;
    for (const [table, columns] of opts.tables) {
      if (!columns.includes('time') || !columns.includes('request_id'))
        throw new Error(`${table}: a logged table needs the time and request_id columns`);
    }
    mkdirSync(opts.dir, { recursive: true });
    const found = readdirSync(opts.dir)
      .map((f) => SEGMENT.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of found) this.sealed.push({ file: join(opts.dir, segmentName(n)), checked: true, done: new Set() });
    this.sealedCount = found.length;
    if (found.length > 0) {
      this.nextSegment = found[found.length - 1] + 1;
      opts.log?.warn({ segments: found.length }, 'audit log segments left by a crash: inserting their rows');
      this.insertSealed();
    }
  }

  /** Segments not yet inserted, the current one included. */
  get segments(): number {
    return this.sealed.length + (this.segment ? 1 : 0);
  }

  /** Adds `lines` (whole newline-terminated rows of `table`); durable once a later `sync` resolves. */
  append(table: string, lines: string): void {
    if (this.closed) throw new Error('the audit log is closed');
    let list = this.pending.get(table);
    if (!list) this.pending.set(table, (list = []));
    list.push(lines);
    this.hasPending = true;
    this.scheduled ??= setImmediate(this.runSync);
  }

  /** Resolves once every append made before it is fsync'd; rejects when the write or fsync failed. */
  sync(): Promise<void> {
    if (this.hasPending) return this.next.promise;
    return this.writing ? this.writing.promise : Promise.resolve();
  }

  private readonly runSync = (): void => {
    this.scheduled = null;
    if (this.syncing || !this.hasPending) return;
    this.syncing = this.writeGroup().finally(() => {
      this.syncing = null;
      if (this.hasPending) this.scheduled ??= setImmediate(this.runSync);
    });
  };

  private async writeGroup(): Promise<void> {
    const tables = this.pending;
    const done = this.next;
    this.pending = new Map();
    this.hasPending = false;
    this.next = group();
    this.writing = done;
    try {
      const frames: Buffer[] = [];
      for (const [table, lines] of tables) frames.push(frame(table, lines.join('')));
      const segment = this.segment ?? (await this.openSegment());
      let bytes = 0;
      for (const f of frames) bytes += f.length;
      await segment.handle.writev(frames, segment.bytes);
      segment.bytes += bytes;
      await segment.handle.datasync();
      done.resolve();
    } catch (err) {
      this.opts.log?.error({ err }, 'audit log write failed');
      done.reject(err);
      return;
    } finally {
      this.writing = null;
    }
    if (this.segment && this.segment.bytes >= this.segmentBytes) await this.seal();
  }

  private async openSegment(): Promise<NonNullable<AuditLog['segment']>> {
    const n = this.nextSegment++;
    const handle = await open(join(this.opts.dir, segmentName(n)), 'wx');
    // The new file's directory entry is made durable once, so its fsync'd rows cannot vanish with it.
    const dir = openSync(this.opts.dir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.segment = { n, handle, bytes: 0, firstAt: Date.now() };
    this.ageTimer = setTimeout(() => {
      this.ageTimer = null;
      void this.sealWhenIdle();
    }, this.opts.flushMs);
    this.ageTimer.unref();
    return this.segment;
  }

  private async sealWhenIdle(): Promise<void> {
    while (this.syncing) await this.syncing;
    await this.seal();
  }

  /** Closes the current segment and queues its rows for insertion. */
  private async seal(): Promise<void> {
    const segment = this.segment;
    if (!segment) return;
    this.segment = null;
    if (this.ageTimer) clearTimeout(this.ageTimer);
    this.ageTimer = null;
    await segment.handle.close();
    this.sealed.push({ file: join(this.opts.dir, segmentName(segment.n)), checked: false, done: new Set() });
    this.sealedCount++;
    this.insertSealed();
  }

  private insertSealed(): void {
    if (this.inserting || this.retryTimer || this.sealed.length === 0) return;
    this.inserting = this.insertQueue().finally(() => {
      this.inserting = null;
    });
  }

  private async insertQueue(): Promise<void> {
    while (this.sealed.length > 0) {
      const s = this.sealed[0];
      try {
        await this.insertSegment(s);
      } catch (err) {
        // Whether a failed insert stored its rows is unknown: the retry checks them first.
        s.checked = true;
        this.opts.log?.error({ err, file: s.file }, 'audit log segment not inserted; retrying');
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.insertSealed();
        }, this.opts.flushMs);
        this.retryTimer.unref();
        return;
      }
      this.sealed.shift();
      this.insertedCount++;
      // A file left behind is checked again at the next start, so a failed removal loses nothing.
      await unlink(s.file).catch((err: unknown) =>
        this.opts.log?.error({ err, file: s.file }, 'inserted audit log segment not removed'),
      );
    }
  }

  private async insertSegment(s: Sealed): Promise<void> {
    const { tables, ignored } = readFrames(await readFile(s.file));
    if (ignored > 0) this.opts.log?.warn({ file: s.file, bytes: ignored }, 'torn tail of an audit log segment ignored');
    for (const [table, chunks] of tables) {
      if (s.done.has(table)) continue;
      const columns = this.opts.tables.get(table);
      if (!columns) throw new Error(`audit log segment ${s.file} holds rows of an unknown table ${table}`);
      let rows = 0;
      for (const [fields, held] of byFieldCount(chunks)) {
        if (fields > columns.length)
          throw new Error(
            `audit log segment ${s.file} holds ${table} rows of ${fields} columns; it has ${columns.length}`,
          );
        const prefix = columns.slice(0, fields) as [string, ...string[]];
        const lines = s.checked ? await this.unstored(table, prefix, held) : held;
        let n = 0;
        for (const c of lines) for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) n++;
        if (n > 0) await this.opts.insert(table, prefix, lines);
        rows += n;
      }
      s.done.add(table);
      this.inserted += rows;
    }
  }

  /** The lines of `chunks` whose (request id, time) `table` does not hold yet. */
  private async unstored(table: string, columns: readonly string[], chunks: Buffer[]): Promise<Buffer[]> {
    const timeAt = columns.indexOf('time');
    const idAt = columns.indexOf('request_id');
    const rows: { line: string; key: string; ms: number }[] = [];
    for (const c of chunks) {
      const text = c.toString('utf8');
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const fields = line.split('\t');
        const ms = fieldMs(fields[timeAt]);
        rows.push({ line, key: storedKey(fields[idAt], ms), ms });
      }
    }
    if (rows.length === 0) return [];
    let from = Infinity;
    let to = -Infinity;
    for (const r of rows) {
      if (r.ms < from) from = r.ms;
      if (r.ms > to) to = r.ms;
    }
    const stored = await this.opts.stored(table, from, to);
    const keep = rows.filter((r) => !stored.has(r.key));
    this.skipped += rows.length - keep.length;
    return keep.length === 0 ? [] : [Buffer.from(`${keep.map((r) => r.line).join('\n')}\n`)];
  }

  /**
   * Makes every row appended before the call durable and inserted: syncs, seals the current
   * segment and waits until it and the ones before it are inserted. Rows appended meanwhile are
   * not waited for, so a flush ends under constant traffic. Rejects when an insert fails (the
   * segments stay for the retry, or the next start).
   */
  async flush(): Promise<void> {
    await this.sync();
    await this.sealWhenIdle();
    const target = this.sealedCount;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    while (this.insertedCount < target) {
      this.insertSealed();
      await this.inserting;
      if (this.retryTimer) throw new Error('audit log segments could not be inserted; kept for the next start');
    }
  }

  /** Inserts what is left and refuses further rows; segments that fail to insert stay for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.flush();
    } finally {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
  }
}
