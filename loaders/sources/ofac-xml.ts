import type { EntityRecord } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { child, children, childText, Progress, readXmlRecords, requireFile, sourceError } from './io.js';
import { ofacFeatureRecords, ofacNameRecord, ofacParty, ofacPartyRecord } from './ofac-emit.js';
import { classifyIdEntry, type OfacFeature } from './ofac-features.js';

/**
 * OFAC's SDN.XML (root `sdnList`, namespace `http://tempuri.org/sdnList.xsd` or, from the
 * Sanctions List Service, `https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML`).
 * Each `sdnEntry` has uid, lastName/firstName, sdnType, programList/program, akaList/aka
 * (type, category strong|weak, lastName/firstName), idList/id (idType, idNumber, idCountry — digital
 * currency addresses, e-mails, websites and documents alike), addressList/address/country, and for
 * the party record dateOfBirthList/dateOfBirthItem/dateOfBirth and nationalityList/nationality and
 * citizenshipList/citizenship (country).
 * `publshInformation/Record_Count` (OFAC's spelling) is checked against the entries read.
 */

function personName(node: Parameters<typeof childText>[0]): string {
  const last = childText(node, 'lastName');
  const first = childText(node, 'firstName');
  return last && first ? `${last}, ${first}` : last || first;
}

export function ofacXmlParser(list: string, key: string) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const path = requireFile(files, key, list);
    const progress = new Progress(ctx, [path]);
    let declared: number | null = null;
    let entries = 0;
    for await (const node of readXmlRecords(path, progress, {
      records: new Set(['sdnEntry', 'publshInformation']),
      roots: ['sdnList'],
    })) {
      if (node.name === 'publshInformation') {
        const count = childText(node, 'Record_Count');
        if (count) declared = Number(count);
        continue;
      }
      entries++;
      const uid = childText(node, 'uid');
      const name = personName(node);
      if (!uid || !name) throw sourceError(path, node.line, 'sdnEntry without uid or name');
      const countries = new Set<string>();
      for (const a of children(child(node, 'addressList') ?? node, 'address')) {
        const c = childText(a, 'country');
        if (c) countries.add(c);
      }
      const programs = children(child(node, 'programList') ?? node, 'program')
        .map((p) => p.text.trim())
        .filter(Boolean);
      const party = ofacParty(uid, name, (childText(node, 'sdnType') || 'entity').toLowerCase(), programs, [
        ...countries,
      ]);
      for (const d of children(child(node, 'dateOfBirthList') ?? node, 'dateOfBirthItem'))
        party.party.birthDate(childText(d, 'dateOfBirth'));
      for (const [listName, itemName] of [
        ['nationalityList', 'nationality'],
        ['citizenshipList', 'citizenship'],
      ] as const) {
        for (const n of children(child(node, listName) ?? node, itemName)) party.party.country(childText(n, 'country'));
      }
      yield ofacNameRecord(list, party, name, 'primary', 'strong');
      for (const aka of children(child(node, 'akaList') ?? node, 'aka')) {
        const value = personName(aka);
        if (!value) continue;
        yield ofacNameRecord(
          list,
          party,
          value,
          childText(aka, 'type') || 'a.k.a.',
          childText(aka, 'category') || null,
        );
      }
      const features: OfacFeature[] = [];
      for (const id of children(child(node, 'idList') ?? node, 'id')) {
        const f = classifyIdEntry(childText(id, 'idType'), childText(id, 'idNumber'), childText(id, 'idCountry'));
        if (f) features.push(f);
      }
      yield* ofacFeatureRecords(list, party, features);
      yield ofacPartyRecord(list, party);
    }
    if (declared !== null && declared !== entries) {
      throw sourceError(
        path,
        null,
        `Record_Count says ${declared} entries, file has ${entries} (truncated or malformed file)`,
      );
    }
  };
}
