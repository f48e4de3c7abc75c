import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { ENTITY_TYPES, type EntityRecord, type EntityType, type Metadata } from '../engine/model.js';
import { canonicalKey } from '../engine/normalize/index.js';
import type { CountryRef } from '../engine/normalize/country.js';
import { prepareValue, ValueProblem, type PreparedValue } from '../engine/normalize/validate.js';
import { lineBatches } from '../engine/snapshot.js';
import { SCREENED_KIND } from './clean.js';
import { entityKey, keyOf, type RecordBatch } from './diff.js';
import { createHash } from 'node:crypto';
import { NotUtf8Error, Utf8Lines } from './utf8-lines.js';

/**
 * Uploads of an operator or private list: rows of `entity_type, value, metadata` as CSV (a header
 * line naming the columns; metadata as JSON text, may be empty), a JSON array of objects, or
 * NDJSON (one object per line). The body streams through a parser and each row is checked as it
 * comes, with the normalizer of its entity type (the one the public lists' values pass), into a
 * staged file of records; the first bad row rejects the upload with its line number. Rows of one
 * identity (entity type and canonical key) are merged: the first is kept as it came and the later
 * ones are counted (`duplicates`), so a list holds a value once and screening it yields one match,
 * however often the upload repeated it. Only a complete, valid upload becomes a version (see
 * ListManager.uploadList), so the previous version stays whatever goes wrong.
 */

export const UPLOAD_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];

/** Longest value of a row, in characters (as the screening endpoints accept). */
const MAX_VALUE_LENGTH = 512;
/** Largest row (a JSON element, an NDJSON or CSV line) in characters: it bounds a row's metadata too. */
const MAX_ROW_CHARS = 64 * 1024;
/** Deepest nesting of a row's metadata. */
const MAX_METADATA_DEPTH = 16;

/** A row that cannot be taken: `line` (1-based) and the field at fault, if one is. */
export class UploadRowError extends Error {
  constructor(
    readonly line: number,
    readonly field: string | null,
    readonly reason: string,
    readonly input?: unknown,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

/** The upload has more rows than it may. */
export class UploadLimitError extends Error {}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Whether a JSON value nests objects or arrays more than `levels` deep (recursion bounded by it). */
function deeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (deeperThan(v, levels - 1)) return true;
    return false;
  }
  for (const k in value) if (deeperThan((value as Record<string, unknown>)[k], levels - 1)) return true;
  return false;
}

/**
 * The canonical key (`canonicalKey`) of a valid value from what the screening validator prepared
 * of it, for the types whose validator normalizes as the key does (the same normalizer), so that
 * the check normalizes each value once. The others (names, e-mail domains) are keyed apart.
 */
const KEY_FROM_PREPARED: Partial<Record<EntityType, (p: PreparedValue) => string>> = {
  crypto_address: (p) => p as string,
  website: (p) => p as string,
  government_id: (p) => p as string,
  email: (p) => (p as { key: string }).key,
  country: (p) => (p as CountryRef).code,
};

/** Checks one row and makes it a record of `list`; throws UploadRowError naming the line. */
class RowChecker {
  private readonly types: ReadonlySet<string>;

  constructor(
    private readonly list: string,
    entityTypes: readonly EntityType[],
  ) {
    this.types = new Set(entityTypes);
  }

  /** The row's record and its identity (see loaders/diff.ts `entityKey`). */
  check(line: number, row: unknown): { record: EntityRecord; key: string } {
    if (row === null || typeof row !== 'object' || Array.isArray(row))
      throw new UploadRowError(line, null, 'a row must be an object with entity_type, value and metadata', row);
    const fields = row as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (key !== 'entity_type' && key !== 'value' && key !== 'metadata')
        throw new UploadRowError(line, key, `unexpected field '${key}' (a row has entity_type, value and metadata)`);
    }
    const type = fields.entity_type;
    if (typeof type !== 'string' || !(ENTITY_TYPES as readonly string[]).includes(type)) {
      throw new UploadRowError(line, 'entity_type', `entity_type must be one of ${ENTITY_TYPES.join(', ')}`, type);
    }
    if (!this.types.has(type))
      throw new UploadRowError(line, 'entity_type', `this list holds ${[...this.types].join(', ')}, not ${type}`, type);
    const value = fields.value;
    if (typeof value !== 'string') throw new UploadRowError(line, 'value', 'value must be a string', value);
    const trimmed = value.trim();
    if (trimmed.length === 0) throw new UploadRowError(line, 'value', 'value is empty', value);
    if (trimmed.length > MAX_VALUE_LENGTH)
      throw new UploadRowError(line, 'value', `value is longer than ${MAX_VALUE_LENGTH} characters`);
    if (CONTROL.test(trimmed)) throw new UploadRowError(line, 'value', 'value contains a control character', value);
    // The validator screening applies to a query of this kind: a value it refuses could never be
    // matched. What it prepared is, for most types, the canonical key too (normalized once).
    const kind = SCREENED_KIND[type as EntityType];
    const prepared = kind === undefined ? null : prepareValue(kind, trimmed);
    const fromPrepared =
      prepared === null || prepared instanceof ValueProblem ? undefined : KEY_FROM_PREPARED[type as EntityType];
    const canonical = fromPrepared
      ? fromPrepared(prepared as PreparedValue) || null
      : canonicalKey(type as EntityType, trimmed);
    if (canonical === null) throw new UploadRowError(line, 'value', `not a valid ${type.replace(/_/g, ' ')}`, value);
    if (prepared instanceof ValueProblem) throw new UploadRowError(line, 'value', prepared.message, value);
    return {
      record: {
        list: this.list,
        entity_type: type as EntityType,
        value: trimmed,
        metadata: this.metadata(line, fields.metadata),
        source_url: null,
        listed_at: null,
        removed_at: null,
      },
      key: keyOf(type as EntityType, canonical),
    };
  }

  private metadata(line: number, raw: unknown): Metadata {
    let value = raw;
    if (raw === undefined || raw === null || raw === '') return {};
    if (typeof raw === 'string') {
      try {
        value = JSON.parse(raw);
      } catch {
        throw new UploadRowError(line, 'metadata', 'metadata is not valid JSON', raw);
      }
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new UploadRowError(line, 'metadata', 'metadata must be a JSON object');
    // Its size is bounded by the row's (MAX_ROW_CHARS); its depth is checked, so that writing it
    // out again (JSON.stringify recurses) cannot exhaust the stack.
    if (deeperThan(value, MAX_METADATA_DEPTH))
      throw new UploadRowError(line, 'metadata', `metadata is nested deeper than ${MAX_METADATA_DEPTH} levels`);
    return value as Metadata;
  }
}

type RowHandler = (line: number, row: unknown) => void;

/** Splits text into lines as it arrives; `line` is 1-based. */
class Lines {
  private rest = '';
  private line = 0;

  constructor(private readonly onLine: (line: number, text: string) => void) {}

  write(text: string): void {
    let start = 0;
    let data = text;
    if (this.rest) {
      data = this.rest + text;
      this.rest = '';
    }
    for (;;) {
      const nl = data.indexOf('\n', start);
      if (nl < 0) break;
      this.emit(data.slice(start, nl));
      start = nl + 1;
    }
    this.rest = data.slice(start);
    if (this.rest.length > MAX_ROW_CHARS)
      throw new UploadRowError(this.line + 1, null, `line is longer than ${MAX_ROW_CHARS} characters`);
  }

  end(): void {
    if (this.rest) this.emit(this.rest);
    this.rest = '';
  }

  private emit(text: string): void {
    this.line++;
    this.onLine(this.line, text.endsWith('\r') ? text.slice(0, -1) : text);
  }
}

/** NDJSON: one JSON object per line; blank lines are skipped. */
class NdjsonRows {
  private readonly lines: Lines;

  constructor(onRow: RowHandler) {
    this.lines = new Lines((line, text) => {
      if (text.trim() === '') return;
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch (err) {
        throw new UploadRowError(line, null, `not valid JSON (${(err as Error).message})`);
      }
      onRow(line, row);
    });
  }

  write(text: string): void {
    this.lines.write(text);
  }

  end(): void {
    this.lines.end();
  }
}

/**
 * CSV (RFC 4180): a header line naming the columns (`entity_type`, `value`, optionally
 * `metadata`, in any order), then one row per record; quoted fields may hold commas, doubled
 * quotes and line breaks. A row's line is the line it starts on.
 */
class CsvRows {
  private columns: string[] | null = null;
  private fields: string[] = [];
  private field = '';
  private quoted = false;
  /** Inside a quoted field, just after a quote: the next quote makes a literal one. */
  private quote = false;
  private line = 1;
  private rowLine = 1;
  private rowChars = 0;
  private fieldStarted = false;

  constructor(private readonly onRow: RowHandler) {}

  write(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (++this.rowChars > MAX_ROW_CHARS)
        throw new UploadRowError(this.rowLine, null, `row is longer than ${MAX_ROW_CHARS} characters`);
      if (this.quoted) {
        if (this.quote) {
          this.quote = false;
          if (c === 0x22) {
            this.field += '"';
            continue;
          }
          this.quoted = false;
        } else if (c === 0x22) {
          this.quote = true;
          continue;
        } else {
          if (c === 0x0a) this.line++;
          this.field += text[i];
          continue;
        }
      }
      if (c === 0x2c) {
        this.fields.push(this.field);
        this.field = '';
        this.fieldStarted = false;
      } else if (c === 0x0a) {
        this.endRow();
        this.line++;
        this.rowLine = this.line;
      } else if (c === 0x0d) {
        // CR of a CRLF line end (a lone CR outside quotes is dropped too).
      } else if (c === 0x22 && !this.fieldStarted) {
        this.quoted = true;
        this.fieldStarted = true;
      } else if (c === 0x22) {
        throw new UploadRowError(
          this.line,
          null,
          'a quote inside an unquoted field (quote the whole field and double inner quotes)',
        );
      } else {
        // Fast path: copy the run of ordinary characters at once.
        let j = i + 1;
        while (j < text.length) {
          const d = text.charCodeAt(j);
          if (d === 0x2c || d === 0x0a || d === 0x0d || d === 0x22) break;
          j++;
        }
        this.rowChars += j - i - 1;
        this.field += text.slice(i, j);
        this.fieldStarted = true;
        i = j - 1;
      }
    }
  }

  end(): void {
    if (this.quoted && !this.quote) throw new UploadRowError(this.rowLine, null, 'a quoted field is not closed');
    this.quoted = false;
    if (this.fieldStarted || this.fields.length > 0 || this.field !== '') this.endRow();
    if (this.columns === null)
      throw new UploadRowError(1, null, 'the CSV is empty: a header line entity_type,value,metadata is expected');
  }

  private endRow(): void {
    this.fields.push(this.field);
    const cells = this.fields;
    this.fields = [];
    this.field = '';
    this.fieldStarted = false;
    this.rowChars = 0;
    if (this.columns === null) {
      const names = cells.map((c) => c.trim().replace(/^\uFEFF/, ''));
      const wanted = ['entity_type', 'value', 'metadata'];
      const unknown = names.filter((n) => !wanted.includes(n));
      if (
        unknown.length > 0 ||
        !names.includes('entity_type') ||
        !names.includes('value') ||
        new Set(names).size !== names.length
      ) {
        throw new UploadRowError(
          this.rowLine,
          null,
          `the header must name the columns entity_type, value and optionally metadata (found: ${names.join(', ')})`,
        );
      }
      this.columns = names;
      return;
    }
    if (cells.length === 1 && cells[0] === '') return;
    if (cells.length !== this.columns.length)
      throw new UploadRowError(this.rowLine, null, `expected ${this.columns.length} fields, found ${cells.length}`);
    const row: Record<string, string> = {};
    this.columns.forEach((name, k) => (row[name] = cells[k]));
    this.onRow(this.rowLine, row);
  }
}

/**
 * A JSON array of row objects, scanned element by element (each element parsed on its own once
 * it is complete), so the array never sits in memory whole.
 */
class JsonArrayRows {
  private state: 'start' | 'between' | 'element' | 'done' = 'start';
  /** Between elements: what may come next. */
  private expect: 'first' | 'comma' | 'element' = 'first';
  /** The element read so far (it may span chunks). */
  private buf = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private line = 1;
  private elementLine = 1;

  constructor(private readonly onRow: RowHandler) {}

  write(text: string): void {
    let i = 0;
    while (i < text.length) {
      if (this.state === 'element') {
        i = this.scan(text, i);
        continue;
      }
      const ch = text[i];
      if (ch === '\n') this.line++;
      if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t' || ch === '\uFEFF') {
        i++;
        continue;
      }
      if (this.state === 'start') {
        if (ch !== '[') throw new UploadRowError(this.line, null, 'a JSON upload must be an array of row objects');
        this.state = 'between';
        this.expect = 'first';
      } else if (this.state === 'done') {
        throw new UploadRowError(this.line, null, 'unexpected text after the closing bracket of the array');
      } else if (ch === ']') {
        if (this.expect === 'element') throw new UploadRowError(this.line, null, 'a comma is followed by no row');
        this.state = 'done';
      } else if (ch === ',') {
        if (this.expect !== 'comma') throw new UploadRowError(this.line, null, 'unexpected comma');
        this.expect = 'element';
      } else {
        if (this.expect === 'comma') throw new UploadRowError(this.line, null, 'rows must be separated by commas');
        this.state = 'element';
        this.buf = '';
        this.depth = 0;
        this.inString = false;
        this.escaped = false;
        this.elementLine = this.line;
        continue;
      }
      i++;
    }
  }

  /**
   * Reads element characters from `from`; returns the index of the first one not consumed. An
   * element ends with the bracket or quote that closes it, or (a bare number or word) before a
   * comma, bracket or white space.
   */
  private scan(text: string, from: number): number {
    let i = from;
    let complete = false;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (this.inString) {
        if (ch === '\n') this.line++;
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') {
          this.inString = false;
          if (this.depth === 0) {
            i++;
            complete = true;
            break;
          }
        }
        continue;
      }
      if (
        this.depth === 0 &&
        (ch === ',' || ch === ']' || ch === '}' || ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t')
      ) {
        complete = true;
        break;
      }
      if (ch === '\n') this.line++;
      if (ch === '"') this.inString = true;
      else if (ch === '{' || ch === '[') this.depth++;
      else if (ch === '}' || ch === ']') {
        if (--this.depth === 0) {
          i++;
          complete = true;
          break;
        }
      }
    }
    if (this.buf.length + (i - from) > MAX_ROW_CHARS)
      throw new UploadRowError(this.elementLine, null, `row is longer than ${MAX_ROW_CHARS} characters`);
    this.buf += text.slice(from, i);
    if (complete) this.finishElement();
    return i;
  }

  private finishElement(): void {
    const text = this.buf;
    this.buf = '';
    this.state = 'between';
    this.expect = 'comma';
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (err) {
      throw new UploadRowError(this.elementLine, null, `not valid JSON (${(err as Error).message})`);
    }
    this.onRow(this.elementLine, row);
  }

  end(): void {
    // A bare value at the very end of the input (no closing bracket follows).
    if (this.state === 'element') this.finishElement();
    if (this.state === 'start')
      throw new UploadRowError(this.line, null, 'the upload is empty: a JSON array of rows is expected');
    if (this.state !== 'done') throw new UploadRowError(this.line, null, 'the JSON array is not closed');
  }
}

interface RowParser {
  write(text: string): void;
  end(): void;
}

function rowParser(format: UploadFormat, onRow: RowHandler): RowParser {
  switch (format) {
    case 'csv':
      return new CsvRows(onRow);
    case 'json':
      return new JsonArrayRows(onRow);
    case 'ndjson':
      return new NdjsonRows(onRow);
  }
}

export interface StagedUpload {
  /**
   * The staged file: one row per line, in upload order, as the JSON array `[key, record]`: the
   * row's identity, worked out by the check, goes with it so that the diff need not normalize the
   * value again.
   */
  path: string;
  /** Rows staged: one per identity. */
  rows: number;
  /** Rows dropped because an earlier row had the same identity (see the module comment). */
  duplicates: number;
  /** Content version of the upload (the same checksum a list's versions carry). */
  version: string;
}

export interface StageOptions {
  format: UploadFormat;
  list: string;
  entityTypes: readonly EntityType[];
  path: string;
  /** Rows the upload may hold at most, duplicates not counted (UploadLimitError beyond). */
  maxRows: number;
}

/**
 * Parses and checks an upload as its bytes arrive, writing each record to the staged file with
 * backpressure. Rejects with UploadRowError at the first bad row (or bytes that are not UTF-8)
 * and UploadLimitError beyond `maxRows`; the staged file is removed then.
 */
export async function stageUpload(body: AsyncIterable<Uint8Array>, opts: StageOptions): Promise<StagedUpload> {
  const checker = new RowChecker(opts.list, opts.entityTypes);
  const hash = createHash('sha256');
  const out = createWriteStream(opts.path);
  // The file is opened asynchronously: removing it before the stream has closed could let a late
  // open create it again.
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  let failed: Error | null = null;
  out.on('error', (err) => (failed = err));
  let rows = 0;
  let duplicates = 0;
  // Every identity staged so far: the keys the diff holds in memory anyway for a new version.
  const seen = new Set<string>();
  let lines: string[] = [];
  const parser = rowParser(opts.format, (line, row) => {
    const { record, key } = checker.check(line, row);
    if (seen.has(key)) {
      duplicates++;
      return;
    }
    seen.add(key);
    if (++rows > opts.maxRows) throw new UploadLimitError(`the upload holds more than ${opts.maxRows} rows`);
    lines.push(JSON.stringify([key, record]));
  });
  const decoder = new Utf8Lines();
  const flush = async () => {
    if (lines.length === 0) return;
    const text = lines.join('\n') + '\n';
    lines = [];
    // The version is a checksum of the staged lines, taken a chunk at a time.
    hash.update(text);
    if (!out.write(text)) await once(out, 'drain');
    if (failed) throw failed;
  };
  try {
    for await (const chunk of body) {
      parser.write(decoder.decode(chunk));
      await flush();
    }
    parser.write(decoder.end());
    parser.end();
    await flush();
    out.end();
    await once(out, 'finish');
    if (failed) throw failed;
  } catch (err) {
    out.destroy();
    await closed;
    await rm(opts.path, { force: true });
    throw err instanceof NotUtf8Error ? new UploadRowError(err.line, null, 'the upload is not UTF-8 text') : err;
  }
  return { path: opts.path, rows, duplicates, version: hash.digest('hex').slice(0, 16) };
}

/**
 * The rows of a staged upload in batches, in upload order, with their identities. A file staged
 * by an earlier release (one record per line, no key) is still read: an upload queued before an
 * upgrade is applied after it, its keys worked out here.
 */
export async function* stagedBatches(path: string): AsyncIterable<RecordBatch> {
  for await (const lines of lineBatches(path)) {
    const records: EntityRecord[] = [];
    const keys: string[] = [];
    for (const line of lines) {
      if (!line) continue;
      const row = JSON.parse(line) as [string, EntityRecord] | EntityRecord;
      const [key, record] = Array.isArray(row) ? row : [entityKey(row), row];
      records.push(record);
      keys.push(key);
    }
    yield { records, keys };
  }
}
