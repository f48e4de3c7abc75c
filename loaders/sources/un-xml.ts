import type { EntityRecord, Metadata } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { children, childText, Progress, readXmlRecords, requireFile, sourceError, type XmlNode } from './io.js';

/**
 * The UN Security Council consolidated list XML (root `CONSOLIDATED_LIST` with `INDIVIDUALS/
 * INDIVIDUAL` and `ENTITIES/ENTITY`). A party's name is FIRST_NAME .. FOURTH_NAME joined by
 * spaces (entities only have FIRST_NAME); aliases are `*_ALIAS/ALIAS_NAME` (with QUALITY), plus
 * NAME_ORIGINAL_SCRIPT; `INDIVIDUAL_DOCUMENT` with a NUMBER gives a government ID.
 */

const UN_LIST_PAGE = 'https://main.un.org/securitycouncil/en/content/un-sc-consolidated-list';

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
    for await (const node of readXmlRecords(path, progress, { records: new Set(['INDIVIDUAL', 'ENTITY']), roots: ['CONSOLIDATED_LIST'] })) {
      const subject = node.name === 'INDIVIDUAL' ? 'individual' : 'entity';
      const name = partyName(node);
      const reference = childText(node, 'REFERENCE_NUMBER');
      if (!name) throw sourceError(path, node.line, `${node.name} ${reference || childText(node, 'DATAID')} has no name`);
      const party: Metadata = {
        name,
        subject_type: subject,
        reference_number: reference,
        un_list_type: childText(node, 'UN_LIST_TYPE'),
        listed_on: childText(node, 'LISTED_ON') || null,
      };
      const base = { list, source_url: UN_LIST_PAGE, listed_at: null, removed_at: null };
      const seen = new Set<string>([name]);
      yield { ...base, entity_type: 'name', value: name, metadata: { ...party, alias_type: 'primary' } };
      for (const alias of children(node, `${node.name}_ALIAS`)) {
        const value = childText(alias, 'ALIAS_NAME');
        if (!value || seen.has(value)) continue;
        seen.add(value);
        const quality = childText(alias, 'QUALITY');
        yield { ...base, entity_type: 'name', value, metadata: { ...party, alias_type: 'alias', ...(quality ? { alias_quality: quality } : {}) } };
      }
      const original = childText(node, 'NAME_ORIGINAL_SCRIPT');
      if (original && !seen.has(original)) {
        seen.add(original);
        yield { ...base, entity_type: 'name', value: original, metadata: { ...party, alias_type: 'original_script' } };
      }
      const docs = new Set<string>();
      for (const doc of children(node, `${node.name}_DOCUMENT`)) {
        const value = childText(doc, 'NUMBER');
        const type = [childText(doc, 'TYPE_OF_DOCUMENT'), childText(doc, 'TYPE_OF_DOCUMENT2')].filter(Boolean).join(' / ');
        if (!value || docs.has(`${type}\u0000${value}`)) continue;
        docs.add(`${type}\u0000${value}`);
        const note = childText(doc, 'NOTE');
        yield {
          ...base,
          entity_type: 'government_id',
          value,
          metadata: {
            ...party,
            document_type: type || null,
            country: childText(doc, 'ISSUING_COUNTRY') || childText(doc, 'COUNTRY_OF_ISSUE') || null,
            ...(note ? { details: note } : {}),
          },
        };
      }
    }
  };
}
