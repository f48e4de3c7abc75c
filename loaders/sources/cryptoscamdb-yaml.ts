import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { EntityRecord } from '../../engine/model.js';
import type { FetchedFiles, ParseContext } from '../types.js';
import { Progress, readLines, requireFile, sourceError } from './io.js';
import { networkOf } from './crypto-assets.js';

/**
 * CryptoScamDB's `urls.yaml`: one top-level YAML sequence whose items are
 * `{name, url, category, subcategory, description, reporter, addresses: {SYMBOL: [address...]}}`.
 *
 * The file is read as a stream and cut at its top-level `- ` items, which are parsed in batches,
 * so memory stays bounded and a YAML error is reported at its line of the whole file.
 *
 * - `name` is the reported domain → `website`, unless it names a page on someone else's host
 *   (`telegra.ph/...`, `docs.google.com/forms/...`): flagging the whole host would be wrong, so
 *   those items publish only their addresses.
 * - addresses under every asset key → `crypto_address` with `symbol`; the `UNKNOWN` key is
 *   skipped (it mostly holds transaction hashes).
 * Repeated domains and addresses are published once (the first item's metadata wins).
 */

const CRYPTOSCAMDB_REPO = 'https://github.com/CryptoScamDB/blacklist';

const BATCH = 256;

interface Chunk {
  text: string;
  firstLine: number;
}

function isHostOnly(name: string): boolean {
  const slash = name.indexOf('/');
  return slash < 0 || slash === name.length - 1;
}

export function cryptoScamDbParser(list: string, key: string) {
  return async function* parse(files: FetchedFiles, ctx: ParseContext): AsyncGenerator<EntityRecord> {
    const path = requireFile(files, key, list);
    const progress = new Progress(ctx, [path]);
    const sites = new Set<string>();
    const addresses = new Set<string>();
    let items = 0;

    function* emit(chunk: Chunk): Generator<EntityRecord> {
      let parsed: unknown;
      try {
        parsed = parseYaml(chunk.text);
      } catch (err) {
        if (err instanceof YAMLParseError) {
          const line = err.linePos ? chunk.firstLine + err.linePos[0].line - 1 : chunk.firstLine;
          throw sourceError(path, line, `malformed YAML: ${err.message.split('\n')[0]}`);
        }
        throw err;
      }
      if (!Array.isArray(parsed)) throw sourceError(path, chunk.firstLine, 'expected a YAML sequence of sites');
      for (const item of parsed as unknown[]) {
        if (typeof item !== 'object' || item === null || typeof (item as { name?: unknown }).name !== 'string') {
          throw sourceError(path, chunk.firstLine, 'site item without a name');
        }
        items++;
        const site = item as { name: string; category?: unknown; subcategory?: unknown; addresses?: unknown };
        const name = site.name.trim();
        const meta = {
          name,
          category: typeof site.category === 'string' ? site.category : null,
          subcategory: typeof site.subcategory === 'string' ? site.subcategory : null,
        };
        const base = { list, source_url: CRYPTOSCAMDB_REPO, listed_at: null, removed_at: null };
        if (name && isHostOnly(name) && !sites.has(name)) {
          sites.add(name);
          yield { ...base, entity_type: 'website', value: name, metadata: meta };
        }
        if (typeof site.addresses !== 'object' || site.addresses === null) continue;
        for (const [symbol, raw] of Object.entries(site.addresses as Record<string, unknown>)) {
          if (symbol.toUpperCase() === 'UNKNOWN') continue;
          const list_ = Array.isArray(raw) ? raw : [raw];
          for (const a of list_) {
            if (typeof a !== 'string' || !a.trim()) continue;
            const value = a.trim();
            if (addresses.has(value)) continue;
            addresses.add(value);
            yield {
              ...base,
              entity_type: 'crypto_address',
              value,
              metadata: { symbol: symbol.toUpperCase(), network: networkOf(symbol, value), ...meta },
            };
          }
        }
      }
    }

    let buf: string[] = [];
    let firstLine = 1;
    let inBatch = 0;
    let started = false;
    for await (const { text, line } of readLines(path, progress)) {
      if (!started) {
        if (text.trim() === '' || text.startsWith('#') || text === '---') continue;
        started = true;
      }
      const topLevel = text.length > 0 && text[0] !== ' ' && text[0] !== '#';
      if (topLevel && !text.startsWith('- ') && text !== '-') {
        throw sourceError(path, line, `unexpected top-level text '${text.slice(0, 40)}' (expected '- ' items)`);
      }
      if (topLevel) {
        if (inBatch === BATCH) {
          yield* emit({ text: buf.join('\n'), firstLine });
          buf = [];
          inBatch = 0;
        }
        if (inBatch === 0) firstLine = line;
        inBatch++;
      }
      if (inBatch === 0) throw sourceError(path, line, 'indented text before the first item');
      buf.push(text);
    }
    if (inBatch > 0) yield* emit({ text: buf.join('\n'), firstLine });
    if (items === 0) throw sourceError(path, null, 'no sites (empty or truncated file)');
  };
}
