import type { EntityRecord, Metadata } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { Progress, readCsv, requireFile, sourceError, type CsvRow } from './io.js';
import { PartyBuilder } from './party.js';

/**
 * The UK Sanctions List CSV published by the FCDO (which replaced OFSI's Consolidated List in
 * January 2026). Layout: a first line `Report Date: DD-Mon-YYYY`, a header row of 58 named
 * columns, then one row per name of a designated party (rows of one party share `Unique ID`
 * and are adjacent). Columns are found by header name, so an added column does not break us.
 * Multi-valued cells separate values with `|`. Used columns:
 * Unique ID, OFSI Group ID, UN Reference Number, Name 1..5, Name 6 (surname or entity name),
 * Name type (Primary Name | Alias | Primary Name Variation), Alias strength, Name non-latin
 * script, Regime Name, Designation Type (Individual | Entity | Ship), Website, Email address,
 * National Identifier number, Passport number, Business registration number (s); for the party
 * record (id: Unique ID, after the party's other records) also D.O.B (`DD/MM/YYYY`, `00` for an
 * unknown part), Nationality(/ies), Address Country, Country of birth and IMO number. An alias of
 * `Low quality` is weak.
 */

const UK_LIST_PAGE = 'https://www.gov.uk/government/publications/the-uk-sanctions-list';

const REQUIRED = ['Unique ID', 'Name 6', 'Name type'] as const;

interface Columns {
  index: Map<string, number>;
  count: number;
}

function cell(cols: Columns, row: CsvRow, name: string): string {
  const i = cols.index.get(name);
  return i === undefined ? '' : (row.fields[i] ?? '').trim();
}

function multi(value: string): string[] {
  return value
    .split('|')
    .map((v) => v.trim())
    .filter(Boolean);
}

function fullName(cols: Columns, row: CsvRow): string {
  return ['Name 1', 'Name 2', 'Name 3', 'Name 4', 'Name 5', 'Name 6']
    .map((n) => cell(cols, row, n))
    .filter(Boolean)
    .join(' ');
}

const DOCUMENT_COLUMNS: ReadonlyArray<[column: string, documentType: string]> = [
  ['Passport number', 'Passport'],
  ['National Identifier number', 'National identifier'],
  ['Business registration number (s)', 'Business registration number'],
];

export function ukCsvParser(list: string, key: string) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const path = requireFile(files, key, list);
    const progress = new Progress(ctx, [path]);
    let cols: Columns | null = null;
    let group: CsvRow[] = [];
    const seen = new Set<string>();

    function* flush(c: Columns): Generator<EntityRecord> {
      if (group.length === 0) return;
      const rows = group;
      group = [];
      const primary = rows.find((r) => /^primary name$/i.test(cell(c, r, 'Name type'))) ?? rows[0];
      const id = cell(c, primary, 'Unique ID');
      const own: Metadata = {
        uk_id: id,
        ofsi_group_id: cell(c, primary, 'OFSI Group ID') || null,
        un_reference_number: cell(c, primary, 'UN Reference Number') || null,
        regime: cell(c, primary, 'Regime Name') || null,
        designation_type: cell(c, primary, 'Designation Type') || null,
      };
      const name = fullName(c, primary);
      const party: Metadata = { name, ...own, party_id: id };
      const designation = cell(c, primary, 'Designation Type').toLowerCase();
      const builder = new PartyBuilder(
        id,
        name,
        designation === 'individual' ? 'person' : designation === 'ship' ? 'vessel' : 'organization',
      );
      const base = { list, source_url: UK_LIST_PAGE, listed_at: null, removed_at: null };
      const emit = (entity_type: EntityRecord['entity_type'], value: string, extra: Metadata): EntityRecord | null => {
        const k = `${id}\u0000${entity_type}\u0000${String(extra.document_type ?? '')}\u0000${value}`;
        if (!value || seen.has(k)) return null;
        seen.add(k);
        return { ...base, entity_type, value, metadata: { ...party, ...extra } };
      };
      const out: Array<EntityRecord | null> = [];
      for (const r of rows) {
        const nameType = cell(c, r, 'Name type');
        const strength = cell(c, r, 'Alias strength');
        builder.alias(fullName(c, r), nameType || 'alias', /^low/i.test(strength));
        builder.alias(cell(c, r, 'Name non-latin script'), 'non_latin_script', false);
        for (const v of multi(cell(c, r, 'D.O.B'))) builder.birthDate(v);
        for (const column of ['Nationality(/ies)', 'Address Country', 'Country of birth'])
          for (const v of multi(cell(c, r, column))) builder.country(v);
        for (const v of multi(cell(c, r, 'IMO number'))) builder.identifier('IMO number', v, null);
        out.push(
          emit('name', fullName(c, r), {
            alias_type: nameType || 'alias',
            ...(strength ? { alias_quality: strength } : {}),
          }),
        );
        out.push(emit('name', cell(c, r, 'Name non-latin script'), { alias_type: 'non_latin_script' }));
        for (const v of multi(cell(c, r, 'Website'))) out.push(emit('website', v, {}));
        for (const v of multi(cell(c, r, 'Email address'))) out.push(emit('email', v, {}));
        for (const [column, documentType] of DOCUMENT_COLUMNS) {
          for (const v of multi(cell(c, r, column))) {
            builder.identifier(documentType, v, null);
            out.push(emit('government_id', v, { document_type: documentType }));
          }
        }
      }
      for (const rec of out) if (rec) yield rec;
      yield builder.record(list, UK_LIST_PAGE, multi(cell(c, primary, 'Regime Name')), own);
    }

    for await (const row of readCsv(path, progress)) {
      if (!cols) {
        if (row.fields.length === 1 && /^Report Date:/i.test(row.fields[0].trim())) continue;
        const index = new Map(row.fields.map((h, i) => [h.trim(), i] as const));
        const missing = REQUIRED.filter((h) => !index.has(h));
        if (missing.length > 0)
          throw sourceError(path, row.line, `not a UK Sanctions List header (missing ${missing.join(', ')})`);
        cols = { index, count: row.fields.length };
        continue;
      }
      if (row.fields.length !== cols.count) {
        throw sourceError(
          path,
          row.line,
          `expected ${cols.count} columns, found ${row.fields.length} (truncated or malformed file)`,
        );
      }
      const id = cell(cols, row, 'Unique ID');
      if (!id) throw sourceError(path, row.line, 'row without Unique ID');
      if (group.length > 0 && cell(cols, group[0], 'Unique ID') !== id) yield* flush(cols);
      group.push(row);
    }
    if (!cols) throw sourceError(path, null, 'no header row (empty or truncated file)');
    yield* flush(cols);
  };
}
