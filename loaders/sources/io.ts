import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse as parseCsv, CsvError } from 'csv-parse';
import { SaxesParser } from 'saxes';
import type { FetchedFiles, ParseContext } from '../types.js';

/**
 * Shared streaming readers for the source parsers. Every reader throws an Error whose message
 * starts with the file's name and the line where the input went wrong, so a bad download is
 * rejected as a whole (the caller discards what was already yielded).
 */

/** A file name fit for error messages (the local path of a fetched file may be a temp name). */
function fileLabel(path: string): string {
  return basename(path);
}

export function sourceError(path: string, line: number | null, message: string): Error {
  return new Error(line === null ? `${fileLabel(path)}: ${message}` : `${fileLabel(path)}: line ${line}: ${message}`);
}

export function requireFile(files: FetchedFiles, key: string, list: string): string {
  const path = files[key];
  if (!path) throw new Error(`${list}: source file '${key}' is missing`);
  return path;
}

/** Reports bytes read across all the files of one list through `ctx.progress`. */
export class Progress {
  private done = 0;
  private readonly total: number;

  constructor(
    private readonly ctx: ParseContext,
    paths: string[],
  ) {
    this.total = paths.reduce((sum, p) => sum + statSync(p).size, 0);
  }

  add(bytes: number): void {
    this.done += bytes;
    this.ctx.progress?.(this.done, this.total);
  }
}

/** Counts bytes flowing through, for progress, without touching them. */
function counter(progress: Progress): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      progress.add(chunk.length);
      cb(null, chunk);
    },
  });
}

/**
 * Drops the DOS end-of-file byte (0x1A) that OFAC appends to its CSV files. Only trailing
 * 0x1A bytes are dropped; one inside the data is passed on and fails the parse as it should.
 */
function stripTrailingEof(): Transform {
  let held = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      let end = chunk.length;
      while (end > 0 && chunk[end - 1] === 0x1a) end--;
      const parts: Buffer[] = [];
      if (held > 0 && end > 0) parts.push(Buffer.alloc(held, 0x1a));
      if (end > 0) held = 0;
      parts.push(chunk.subarray(0, end));
      held += chunk.length - end;
      cb(null, Buffer.concat(parts));
    },
  });
}

export interface CsvRow {
  fields: string[];
  /** 1-based line of the file where the record ends. */
  line: number;
}

/**
 * Streams the records of a CSV file. Column counts are checked by the caller (files such as the
 * UK list start with a one-field preamble line), so the message can name the expected layout.
 */
export async function* readCsv(path: string, progress: Progress): AsyncGenerator<CsvRow> {
  const parser = parseCsv({ bom: true, relax_column_count: true, info: true, skip_empty_lines: true });
  const done = pipeline(createReadStream(path), counter(progress), stripTrailingEof(), parser);
  let failure: unknown = null;
  done.catch((err: unknown) => {
    failure = err;
  });
  try {
    for await (const r of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { fields: r.record, line: r.info.lines };
    }
    await done;
  } catch (err) {
    throw wrapCsvError(path, failure ?? err);
  }
}

function wrapCsvError(path: string, err: unknown): Error {
  if (err instanceof CsvError) {
    const lines = (err as CsvError & { lines?: number }).lines;
    return sourceError(path, typeof lines === 'number' ? lines : null, `malformed CSV: ${err.message}`);
  }
  if (err instanceof Error && err.message.startsWith(fileLabel(path))) return err;
  return sourceError(path, null, err instanceof Error ? err.message : String(err));
}

/** Throws unless a CSV record has exactly `expected` fields. */
export function expectColumns(path: string, row: CsvRow, expected: number): void {
  if (row.fields.length !== expected) {
    throw sourceError(
      path,
      row.line,
      `expected ${expected} columns, found ${row.fields.length} (truncated or malformed file)`,
    );
  }
}

export interface LineRow {
  text: string;
  line: number;
}

/** Streams the lines of a text file (LF or CRLF), without their line terminators. */
export async function* readLines(path: string, progress: Progress): AsyncGenerator<LineRow> {
  const stream = createReadStream(path);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let rest = '';
  let line = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      progress.add(chunk.length);
      rest += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        line++;
        yield { text: rest.slice(0, nl).replace(/\r$/, ''), line };
        rest = rest.slice(nl + 1);
      }
    }
    rest += decoder.decode();
  } catch (err) {
    if (err instanceof TypeError) throw sourceError(path, line + 1, 'invalid UTF-8');
    throw err;
  } finally {
    stream.destroy();
  }
  if (rest.length > 0) yield { text: rest.replace(/\r$/, ''), line: line + 1 };
}

/** A small element tree of one record of an XML file. Names are local (prefix removed). */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
  line: number;
}

export interface XmlRecordsOptions {
  /** Local names of the record elements to build and yield (they must not nest). */
  records: ReadonlySet<string>;
  /** Accepted local names of the root element; anything else is the wrong file. */
  roots: readonly string[];
}

function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/**
 * Streams an XML file and yields the record elements as small trees, one at a time, so memory
 * stays bounded by one record. Not well-formed XML, a truncated or empty file (unclosed tags, no
 * root) and an unexpected root element all throw with the file name and line.
 */
export async function* readXmlRecords(
  path: string,
  progress: Progress,
  opts: XmlRecordsOptions,
): AsyncGenerator<XmlNode> {
  const parser = new SaxesParser({ fileName: fileLabel(path), position: true });
  const ready: XmlNode[] = [];
  const stack: XmlNode[] = [];
  let depth = 0;
  parser.on('opentag', (tag) => {
    depth++;
    const name = localName(tag.name);
    if (depth === 1) {
      if (!opts.roots.includes(name)) {
        parser.fail(`unexpected root element <${name}>, expected <${opts.roots.join('> or <')}>`);
      }
      return;
    }
    if (stack.length === 0 && !opts.records.has(name)) return;
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(tag.attributes)) attrs[localName(k)] = String(v);
    const node: XmlNode = { name, attrs, children: [], text: '', line: parser.line };
    if (stack.length > 0) stack[stack.length - 1].children.push(node);
    stack.push(node);
  });
  const onText = (t: string) => {
    if (stack.length > 0) stack[stack.length - 1].text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    depth--;
    if (stack.length === 0) return;
    const node = stack.pop()!;
    if (stack.length === 0) ready.push(node);
  });

  const stream = createReadStream(path);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      progress.add(chunk.length);
      parser.write(decoder.decode(chunk, { stream: true }));
      if (ready.length > 0) yield* ready.splice(0);
    }
    parser.write(decoder.decode());
    parser.close();
  } catch (err) {
    throw wrapXmlError(path, err, parser.line);
  } finally {
    stream.destroy();
  }
  yield* ready.splice(0);
}

function wrapXmlError(path: string, err: unknown, line: number): Error {
  if (err instanceof TypeError) return sourceError(path, line, 'invalid UTF-8');
  const message = err instanceof Error ? err.message : String(err);
  const m = /^[^:]*:(\d+):(\d+): (.*)$/s.exec(message);
  if (m) return sourceError(path, Number(m[1]), `XML not well-formed (column ${m[2]}): ${m[3]}`);
  return sourceError(path, line, message);
}

/** First child element of that local name, or undefined. */
export function child(node: XmlNode, name: string): XmlNode | undefined {
  return node.children.find((c) => c.name === name);
}

export function children(node: XmlNode, name: string): XmlNode[] {
  return node.children.filter((c) => c.name === name);
}

/** Trimmed text of the first child of that name ('' when absent). */
export function childText(node: XmlNode, name: string): string {
  return child(node, name)?.text.trim() ?? '';
}
