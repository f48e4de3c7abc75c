import type { EntityRecord, Metadata } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { child, children, Progress, readXmlRecords, requireFile, sourceError } from './io.js';
import { PartyBuilder } from './party.js';

/**
 * The EU Financial Sanctions Files, XML format 1.1 (root `export`, namespace
 * `http://eu.europa.ec/fpi/fsd/export`). The XML is chosen over the CSV export because it keeps
 * one element per sanctioned party (`sanctionEntity`), where the CSV repeats the party on one
 * row per name/address/document. Used here:
 * - `sanctionEntity@logicalId`, `@euReferenceNumber`, `@unitedNationId`
 * - `regulation@programme` and its `publicationUrl` (the legal act, our source_url)
 * - `subjectType@code` (`person` or `enterprise`)
 * - `nameAlias@wholeName` (the first is the primary name; `@strong`, `@nameLanguage`)
 * - `identification@number`, `@identificationTypeDescription`/`@identificationTypeCode`,
 *   `@countryDescription`, `@countryIso2Code`
 * - for the party record (id: `logicalId`): `birthdate@birthdate` (or `@year`, `@circa`),
 *   `citizenship@countryIso2Code` and `address@countryIso2Code`; a name of `@strong="false"` is weak.
 */

export function euXmlParser(list: string, key: string) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const path = requireFile(files, key, list);
    const progress = new Progress(ctx, [path]);
    for await (const node of readXmlRecords(path, progress, {
      records: new Set(['sanctionEntity']),
      roots: ['export'],
    })) {
      const names = children(node, 'nameAlias')
        .map((n) => ({ value: (n.attrs.wholeName ?? '').trim(), node: n }))
        .filter((n) => n.value.length > 0);
      if (names.length === 0)
        throw sourceError(path, node.line, `sanctionEntity ${node.attrs.logicalId ?? '?'} has no name`);
      const regulations = children(node, 'regulation');
      const programs = [...new Set(regulations.map((r) => (r.attrs.programme ?? '').trim()).filter(Boolean))];
      const publication = regulations.map((r) => child(r, 'publicationUrl')?.text.trim() ?? '').find(Boolean) ?? null;
      const subject = child(node, 'subjectType')?.attrs.code ?? null;
      const own: Metadata = {
        subject_type: subject,
        eu_reference_number: node.attrs.euReferenceNumber || null,
        logical_id: node.attrs.logicalId ?? null,
        ...(node.attrs.unitedNationId ? { un_reference_number: node.attrs.unitedNationId } : {}),
      };
      const partyId = node.attrs.logicalId || node.attrs.euReferenceNumber || names[0].value;
      const party: Metadata = { name: names[0].value, programs, ...own, party_id: partyId };
      const builder = new PartyBuilder(partyId, names[0].value, subject === 'person' ? 'person' : 'organization');
      for (const b of children(node, 'birthdate')) {
        const date = b.attrs.birthdate || b.attrs.year || '';
        builder.birthDate(date && b.attrs.circa === 'true' ? `circa ${date.slice(0, 4)}` : date);
      }
      for (const c of [...children(node, 'citizenship'), ...children(node, 'address')])
        builder.country(c.attrs.countryIso2Code || c.attrs.countryDescription);
      const base = { list, source_url: publication, listed_at: null, removed_at: null };
      let first = true;
      const emitted = new Set<string>();
      for (const n of names) {
        if (emitted.has(n.value)) continue;
        emitted.add(n.value);
        const metadata: Metadata = { ...party, alias_type: first ? 'primary' : 'alias' };
        if (n.node.attrs.strong) metadata.alias_quality = n.node.attrs.strong === 'true' ? 'strong' : 'weak';
        if (n.node.attrs.nameLanguage) metadata.language = n.node.attrs.nameLanguage;
        first = false;
        builder.alias(n.value, metadata.alias_type as string, n.node.attrs.strong === 'false');
        yield { ...base, entity_type: 'name', value: n.value, metadata };
      }
      const docs = new Set<string>();
      for (const id of children(node, 'identification')) {
        const value = (id.attrs.number ?? '').trim();
        const type = id.attrs.identificationTypeDescription || id.attrs.identificationTypeCode || null;
        if (!value || docs.has(`${type}\u0000${value}`)) continue;
        docs.add(`${type}\u0000${value}`);
        builder.identifier(type, value, id.attrs.countryIso2Code || id.attrs.countryDescription || null);
        yield {
          ...base,
          entity_type: 'government_id',
          value,
          metadata: {
            ...party,
            document_type: type,
            country: id.attrs.countryDescription || null,
            country_code: id.attrs.countryIso2Code || null,
          },
        };
      }
      yield builder.record(list, publication, programs, own);
    }
  };
}
