import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import { SubjectRow, type SubjectRowT } from './model.js';

/**
 * The rows of a subjects import (docs/monitoring.md "Imports"), read line by line from a byte
 * stream: NDJSON (one SubjectRow object a line) or CSV with a header. One line is one row (a CSV
 * field may be quoted, but not span lines), so a row's line number is the line of the body a
 * customer's editor shows. A bad row is reported with its line and the reason a PUT of it would be
 * refused for, and reading goes on; only a body that cannot be read at all (a CSV header without
 * `external_id` or `names`, an unknown column) stops it.
 */

export type ImportFormat = 'csv' | 'ndjson';

/** Longest line, in bytes: 20 names and 50 identifiers and values fit several times over. */
const MAX_LINE_BYTES = 64 * 1024;

export type ParsedRow = { line: number; row: SubjectRowT } | { line: number; reason: string };

/** The body cannot be read as an import (its CSV header). */
export class ImportFormatError extends Error {}

const CSV_COLUMNS = [
  'external_id',
  'type',
  'names',
  'birth_date',
  'countries',
  'identifiers',
  'crypto',
  'email',
  'website',
] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];

const NEWLINE = 0x0a;
const CR = 0x0d;
const BOM = '\ufeff';

/** A line of the body: its 1-based number and its bytes (without the line break), or why it is unreadable. */
type Line = { line: number; bytes: Buffer } | { line: number; reason: string };

/** Splits a byte stream into lines without holding more than one line (bounded) and one chunk. */
async function* lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<Line> {
  let carry: Buffer[] = [];
  let carried = 0;
  let overlong = false;
  let n = 0;
  const emit = (tail: Buffer): Line => {
    n++;
    if (overlong) return { line: n, reason: `the line is longer than ${MAX_LINE_BYTES} bytes` };
    let bytes = carry.length === 0 ? tail : Buffer.concat([...carry, tail]);
    if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    return { line: n, bytes };
  };
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let i = buf.indexOf(NEWLINE); i >= 0; i = buf.indexOf(NEWLINE, start)) {
      yield emit(buf.subarray(start, i));
      carry = [];
      carried = 0;
      overlong = false;
      start = i + 1;
    }
    if (start < buf.length && !overlong) {
      // The tail is copied: a stream may reuse the chunk's memory for the next one.
      carry.push(Buffer.from(buf.subarray(start)));
      carried += buf.length - start;
      if (carried > MAX_LINE_BYTES) {
        overlong = true;
        carry = [];
        carried = 0;
      }
    }
  }
  if (carried > 0 || overlong) yield emit(Buffer.alloc(0));
}

/** Whether a line holds anything but blanks (blank lines are skipped, not refused). */
function blank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09) return false;
  return true;
}

/** A zod error as one readable line: `names.0: Too small: ...; birth_date: ...`. */
function readableIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

function checked(line: number, input: unknown): ParsedRow {
  const parsed = SubjectRow.safeParse(input);
  return parsed.success ? { line, row: parsed.data } : { line, reason: readableIssues(parsed.error) };
}

/** Fields of one CSV line (RFC 4180 quoting within the line); null when a quote is left open. */
function csvFields(text: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return null;
        value += text.slice(i, q);
        if (text[q + 1] === '"') {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      out.push(value);
      if (i >= text.length) return out;
      if (text[i] !== ',') return null;
      i++;
    } else {
      const c = text.indexOf(',', i);
      if (c < 0) {
        out.push(text.slice(i));
        return out;
      }
      out.push(text.slice(i, c));
      i = c + 1;
    }
  }
}

const several = (s: string) =>
  s
    .split('|')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/** `passport:X123|Y456` → [{type: 'passport', value: 'X123'}, {type: null, value: 'Y456'}]. */
function identifiersOf(s: string): { type: string | null; value: string }[] {
  return several(s).map((x) => {
    const colon = x.indexOf(':');
    return colon < 0 ? { type: null, value: x } : { type: x.slice(0, colon).trim(), value: x.slice(colon + 1).trim() };
  });
}

/** The SubjectRow input a CSV line stands for: empty cells are left out (their defaults apply). */
function csvObject(columns: readonly CsvColumn[], fields: string[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const values: Record<string, string[]> = {};
  columns.forEach((col, k) => {
    const v = (fields[k] ?? '').trim();
    if (v === '' && col !== 'external_id' && col !== 'names') return;
    switch (col) {
      case 'external_id':
      case 'type':
      case 'birth_date':
        o[col] = v;
        break;
      case 'names':
      case 'countries':
        o[col] = several(v);
        break;
      case 'identifiers':
        o[col] = identifiersOf(v);
        break;
      case 'crypto':
      case 'email':
      case 'website':
        values[col] = several(v);
        break;
    }
  });
  if (Object.keys(values).length > 0) o.values = values;
  return o;
}

function headerOf(text: string): CsvColumn[] {
  const fields = csvFields(text.startsWith(BOM) ? text.slice(1) : text);
  if (!fields) throw new ImportFormatError('line 1: the CSV header has an unclosed quote');
  const columns = fields.map((f) => f.trim().toLowerCase());
  for (const c of columns)
    if (!(CSV_COLUMNS as readonly string[]).includes(c))
      throw new ImportFormatError(`line 1: unknown CSV column "${c}" (the columns are ${CSV_COLUMNS.join(', ')})`);
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c)) throw new ImportFormatError(`line 1: the CSV column ${c} appears twice`);
    seen.add(c);
  }
  for (const need of ['external_id', 'names'])
    if (!seen.has(need)) throw new ImportFormatError(`line 1: the CSV header has no ${need} column`);
  return columns as CsvColumn[];
}

/**
 * The rows of an import body, each checked with SubjectRow; throws ImportFormatError when the
 * body is not an import at all (a CSV without a usable header).
 */
export async function* importRows(body: AsyncIterable<Uint8Array>, format: ImportFormat): AsyncGenerator<ParsedRow> {
  let columns: CsvColumn[] | null = null;
  for await (const l of lines(body)) {
    if ('reason' in l) {
      if (format === 'csv' && columns === null) throw new ImportFormatError(`line ${l.line}: ${l.reason}`);
      yield l;
      continue;
    }
    if (blank(l.bytes)) continue;
    if (!isUtf8(l.bytes)) {
      if (format === 'csv' && columns === null) throw new ImportFormatError(`line ${l.line}: not UTF-8 text`);
      yield { line: l.line, reason: 'not UTF-8 text' };
      continue;
    }
    let text = l.bytes.toString('utf8');
    if (l.line === 1 && text.startsWith(BOM)) text = text.slice(1);
    if (format === 'ndjson') {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        yield { line: l.line, reason: `not JSON: ${(err as Error).message}` };
        continue;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        yield { line: l.line, reason: 'expected a JSON object' };
        continue;
      }
      yield checked(l.line, value);
      continue;
    }
    if (columns === null) {
      columns = headerOf(text);
      continue;
    }
    const fields = csvFields(text);
    if (!fields) yield { line: l.line, reason: 'a quoted CSV field is not closed on its line' };
    else if (fields.length > columns.length)
      yield { line: l.line, reason: `${fields.length} fields for ${columns.length} columns` };
    else yield checked(l.line, csvObject(columns, fields));
  }
  if (format === 'csv' && columns === null) throw new ImportFormatError('the CSV is empty: a header line is expected');
}

/**
 * Counts the rows of a body as it passes (non-blank lines; for CSV, minus the header): what an
 * import may charge at most, known once the body is received.
 */
export class RowCounter {
  private lines = 0;
  /** The current line has a byte other than blanks and a carriage return. */
  private filled = false;

  add(chunk: Uint8Array): void {
    for (const b of chunk) {
      if (b === NEWLINE) {
        if (this.filled) this.lines++;
        this.filled = false;
      } else if (!this.filled && b !== 0x20 && b !== 0x09 && b !== CR) this.filled = true;
    }
  }

  rows(format: ImportFormat): number {
    const n = this.lines + (this.filled ? 1 : 0);
    return format === 'csv' ? Math.max(0, n - 1) : n;
  }
}
