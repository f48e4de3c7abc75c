import type { EntityRecord, Metadata } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { children, childText, Progress, readXmlRecords, requireFile, sourceError, type XmlNode } from './io.js';
import { PartyBuilder } from './party.js';

/**
 * The UN Security Council consolidated list XML (root `CONSOLIDATED_LIST` with `INDIVIDUALS/
 * INDIVIDUAL` and `ENTITIES/ENTITY`). A party's name is FIRST_NAME .. FOURTH_NAME joined by
 * spaces (entities only have FIRST_NAME); aliases are `*_ALIAS/ALIAS_NAME` (with QUALITY), plus
 * NAME_ORIGINAL_SCRIPT; `INDIVIDUAL_DOCUMENT` with a NUMBER gives a government ID. The party record
 * (id: REFERENCE_NUMBER, else DATAID) adds INDIVIDUAL_DATE_OF_BIRTH (EXACT with DATE or YEAR,
 * APPROXIMATELY, BETWEEN FROM_YEAR and TO_YEAR), NATIONALITY and the address countries; it follows
 * the party's other records. An alias of QUALITY `Low` is weak.
 */

const UN_LIST_PAGE = 'https://main.un.org/securitycouncil/en/content/un-sc-consolidated-list';

/** A date of birth element → `YYYY-MM-DD`, `YYYY` or `YYYY/YYYY`; null when it gives none. */
function unBirthDate(d: XmlNode): string | null {
  const from = childText(d, 'FROM_YEAR');
  const to = childText(d, 'TO_YEAR');
  if (from && to) return from === to ? from : `${from}/${to}`;
  const date = childText(d, 'DATE');
  const year = childText(d, 'YEAR') || from || to;
  if (date) return date.slice(0, 10);
  if (!year) return null;
  return childText(d, 'TYPE_OF_DATE') === 'APPROXIMATELY' ? `circa ${year}` : year;
}

function partyName(node: XmlNode): string {
  return ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
    .map((n) => childText(node, n))
    .filter(Boolean)
    .join(' ');
}

export function unXmlParser(list: string, key: string) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const path = requireFile(files, key, list);
    const progress = new Progress(ctx, [path]);
    for await (const node of readXmlRecords(path, progress, {
      records: new Set(['INDIVIDUAL', 'ENTITY']),
      roots: ['CONSOLIDATED_LIST'],
    })) {
      const subject = node.name === 'INDIVIDUAL' ? 'individual' : 'entity';
      const name = partyName(node);
      const reference = childText(node, 'REFERENCE_NUMBER');
      if (!name)
        throw sourceError(path, node.line, `${node.name} ${reference || childText(node, 'DATAID')} has no name`);
      const id = reference || childText(node, 'DATAID');
      const own = {
        subject_type: subject,
        reference_number: reference,
        un_list_type: childText(node, 'UN_LIST_TYPE'),
        listed_on: childText(node, 'LISTED_ON') || null,
      };
      const party: Metadata = { name, ...own, party_id: id };
      const builder = new PartyBuilder(id, name, subject === 'individual' ? 'person' : 'organization');
      const base = { list, source_url: UN_LIST_PAGE, listed_at: null, removed_at: null };
      const seen = new Set<string>([name]);
      yield { ...base, entity_type: 'name', value: name, metadata: { ...party, alias_type: 'primary' } };
      for (const alias of children(node, `${node.name}_ALIAS`)) {
        const value = childText(alias, 'ALIAS_NAME');
        if (!value || seen.has(value)) continue;
        seen.add(value);
        const quality = childText(alias, 'QUALITY');
        builder.alias(value, 'alias', /^low/i.test(quality));
        yield {
          ...base,
          entity_type: 'name',
          value,
          metadata: { ...party, alias_type: 'alias', ...(quality ? { alias_quality: quality } : {}) },
        };
      }
      const original = childText(node, 'NAME_ORIGINAL_SCRIPT');
      if (original && !seen.has(original)) {
        seen.add(original);
        builder.alias(original, 'original_script', false);
        yield { ...base, entity_type: 'name', value: original, metadata: { ...party, alias_type: 'original_script' } };
      }
      for (const d of children(node, `${node.name}_DATE_OF_BIRTH`)) builder.birthDate(unBirthDate(d));
      for (const n of children(node, 'NATIONALITY')) for (const v of children(n, 'VALUE')) builder.country(v.text);
      for (const a of children(node, `${node.name}_ADDRESS`)) builder.country(childText(a, 'COUNTRY'));
      const docs = new Set<string>();
      for (const doc of children(node, `${node.name}_DOCUMENT`)) {
        const value = childText(doc, 'NUMBER');
        const type = [childText(doc, 'TYPE_OF_DOCUMENT'), childText(doc, 'TYPE_OF_DOCUMENT2')]
          .filter(Boolean)
          .join(' / ');
        if (!value || docs.has(`${type}\u0000${value}`)) continue;
        docs.add(`${type}\u0000${value}`);
        const note = childText(doc, 'NOTE');
        const issuer = childText(doc, 'ISSUING_COUNTRY') || childText(doc, 'COUNTRY_OF_ISSUE') || null;
        builder.identifier(type || null, value, issuer);
        yield {
          ...base,
          entity_type: 'government_id',
          value,
          metadata: {
            ...party,
            document_type: type || null,
            country: issuer,
            ...(note ? { details: note } : {}),
          },
        };
      }
      yield builder.record(list, UN_LIST_PAGE, [own.un_list_type].filter(Boolean), own);
    }
  };
}
