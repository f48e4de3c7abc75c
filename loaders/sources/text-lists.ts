import type { EntityRecord, EntityType, Metadata } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { Progress, readLines, requireFile, sourceError } from './io.js';

/**
 * Plain one-value-per-line lists. Blank lines and `#` comments are skipped; a value repeated in
 * the same file is published once. A line with whitespace inside is not a value of these lists
 * and rejects the file (a sign of a wrong or damaged download).
 */

export async function* lineValues(path: string, progress: Progress): AsyncGenerator<{ value: string; line: number }> {
  const seen = new Set<string>();
  for await (const { text, line } of readLines(path, progress)) {
    const value = text.trim();
    if (!value || value.startsWith('#')) continue;
    if (/\s/.test(value))
      throw sourceError(path, line, `unexpected text '${value.slice(0, 60)}' (one value per line expected)`);
    if (seen.has(value)) continue;
    seen.add(value);
    yield { value, line };
  }
}

function record(
  list: string,
  entity_type: EntityType,
  value: string,
  metadata: Metadata,
  source_url: string | null,
): EntityRecord {
  return { list, entity_type, value, metadata, source_url, listed_at: null, removed_at: null };
}

/**
 * Websites and e-mail addresses named in the SDN list, one per line: a line with `@` is an
 * e-mail address (a leading `Email:` or `mailto:` label is dropped), any other line a website
 * (host or URL, as published).
 */
export function websitesAndEmailsParser(list: string, key: string, sourceUrl: string) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const path = requireFile(files, key, list);
    const progress = new Progress(ctx, [path]);
    const seen = new Set<string>();
    for await (const { value } of lineValues(path, progress)) {
      const email = value.includes('@');
      const v = email ? value.replace(/^(?:e-?mail|mailto)\s*:\s*/i, '') : value;
      if (seen.has(v)) continue;
      seen.add(v);
      yield record(list, email ? 'email' : 'website', v, {}, sourceUrl);
    }
  };
}

/** A list of domains, one per line, all published as one entity type (e.g. `email_domain`). */
export function domainListParser(list: string, key: string, entityType: EntityType, sourceUrl: string) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const path = requireFile(files, key, list);
    const progress = new Progress(ctx, [path]);
    for await (const { value } of lineValues(path, progress)) {
      yield record(list, entityType, value, {}, sourceUrl);
    }
  };
}
