import type { EntityRecord } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { expectColumns, Progress, readCsv, requireFile, sourceError } from './io.js';
import { ofacFeatureRecords, ofacNameRecord, ofacParty, ofacPartyRecord, type OfacParty } from './ofac-emit.js';
import { parseRemarkItem, remarkItems, splitPrograms, type OfacFeature } from './ofac-features.js';

/**
 * OFAC's legacy CSV set (the SDN list and, with the same layout, the consolidated non-SDN list):
 * - main (sdn.csv / cons_prim.csv): ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign,
 *   Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks
 * - add: ent_num, add_num, address, city/state/zip, country, add_remarks
 * - alt: ent_num, alt_num, alt_type, alt_name, alt_remarks
 * - comments (optional): ent_num, text continuing that entry's remarks (the main file cuts long
 *   remarks mid-word; the continuation is appended as is)
 * `-0-` (with OFAC's trailing space) means empty. Features live in the remarks (birth dates and
 * nationalities too, which only the party records carry). Each party's record comes after all its
 * names, once the alias file has been read.
 */
export interface OfacCsvKeys {
  main: string;
  add: string;
  alt: string;
  comments: string;
}

const MAIN_COLUMNS = 12;
const ADD_COLUMNS = 6;
const ALT_COLUMNS = 5;
const COMMENT_COLUMNS = 2;

function field(value: string | undefined): string {
  const v = (value ?? '').trim();
  return v === '-0-' ? '' : v;
}

function entNum(path: string, line: number, value: string): string {
  const v = value.trim();
  if (!/^\d+$/.test(v)) throw sourceError(path, line, `ent_num '${v}' is not a number (malformed file)`);
  return v;
}

const ALT_TYPES: Record<string, string> = { aka: 'a.k.a.', fka: 'f.k.a.', nka: 'n.k.a.' };

export function ofacCsvParser(list: string, keys: OfacCsvKeys) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const main = requireFile(files, keys.main, list);
    const add = requireFile(files, keys.add, list);
    const alt = requireFile(files, keys.alt, list);
    const comments = files[keys.comments];
    const progress = new Progress(ctx, [main, add, alt, ...(comments ? [comments] : [])]);

    const continuation = new Map<string, string>();
    if (comments) {
      for await (const row of readCsv(comments, progress)) {
        expectColumns(comments, row, COMMENT_COLUMNS);
        const id = entNum(comments, row.line, row.fields[0]);
        continuation.set(id, (continuation.get(id) ?? '') + row.fields[1]);
      }
    }

    const countries = new Map<string, Set<string>>();
    for await (const row of readCsv(add, progress)) {
      expectColumns(add, row, ADD_COLUMNS);
      const id = entNum(add, row.line, row.fields[0]);
      const country = field(row.fields[4]);
      if (!country) continue;
      let set = countries.get(id);
      if (!set) countries.set(id, (set = new Set()));
      set.add(country);
    }

    const parties = new Map<string, OfacParty>();
    for await (const row of readCsv(main, progress)) {
      expectColumns(main, row, MAIN_COLUMNS);
      const id = entNum(main, row.line, row.fields[0]);
      const name = field(row.fields[1]);
      if (!name) throw sourceError(main, row.line, `entry ${id} has no name`);
      const party = ofacParty(id, name, field(row.fields[2]) || 'entity', splitPrograms(field(row.fields[3])), [
        ...(countries.get(id) ?? []),
      ]);
      parties.set(id, party);
      yield ofacNameRecord(list, party, name, 'primary', 'strong');
      const remarks = field(row.fields[11]) + (continuation.get(id) ?? '');
      const features: OfacFeature[] = [];
      for (const item of remarkItems(remarks)) {
        const f = parseRemarkItem(item);
        if (f) features.push(f);
      }
      yield* ofacFeatureRecords(list, party, features);
    }

    for await (const row of readCsv(alt, progress)) {
      expectColumns(alt, row, ALT_COLUMNS);
      const id = entNum(alt, row.line, row.fields[0]);
      const party = parties.get(id);
      if (!party) throw sourceError(alt, row.line, `alias of unknown entry ${id}`);
      const value = field(row.fields[3]);
      if (!value) continue;
      const type = field(row.fields[2]).toLowerCase();
      yield ofacNameRecord(list, party, value, ALT_TYPES[type] ?? type, 'strong');
    }
    for (const party of parties.values()) yield ofacPartyRecord(list, party);
  };
}
