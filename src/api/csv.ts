import { stringify, type Options } from 'csv-stringify/sync';

/**
 * Every CSV the service writes goes through here (the list download, the audit export): RFC 4180
 * records ending in CRLF, a cell quoted when it holds a comma, quote, CR or LF; and a cell a
 * spreadsheet would evaluate as a formula (one starting with = + - @, a tab or a CR, or the
 * full-width = + - @) prefixed with `'` (csv-stringify's escape_formulas) and quoted.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const OPTIONS: Options = {
  escape_formulas: true,
  quoted_match: FORMULA_START,
  quote_record_delimiter: true,
  record_delimiter: 'windows',
};

/** Records written at a time: the body is streamed a chunk at a time. */
const CHUNK_RECORDS = 500;

/** The CSV of a header line and `rows`, as chunks of text to stream. */
export function* csvChunks(header: readonly string[], rows: Iterable<readonly string[]>): Iterable<string> {
  yield stringify([header as string[]], OPTIONS);
  let batch: (readonly string[])[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length === CHUNK_RECORDS) {
      yield stringify(batch as string[][], OPTIONS);
      batch = [];
    }
  }
  if (batch.length > 0) yield stringify(batch as string[][], OPTIONS);
}

/** The CSV of a header line and pages of rows read one after another (a keyset walk of a table). */
export async function* csvPageChunks(
  header: readonly string[],
  pages: AsyncIterable<readonly (readonly string[])[]>,
): AsyncIterable<string> {
  yield stringify([header as string[]], OPTIONS);
  for await (const page of pages) if (page.length > 0) yield stringify(page as string[][], OPTIONS);
}
