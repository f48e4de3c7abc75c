import type { z } from 'zod';
import type { ScreenResponse } from './schemas/screen.js';

type Envelope = z.output<typeof ScreenResponse>;

/**
 * The JSON text of a ScreenResponse, equal to `JSON.stringify` of it (test/api/screen-json.test.ts
 * holds it to that on every listed entity) and several times cheaper for batch lines and single
 * answers: the lists screened and an entity's metadata are the same objects request after request
 * (the catalog's resolved default lists, the engine's metadata of a loaded generation), so their
 * JSON is kept per object. Metadata objects are never mutated once loaded.
 */
const listsJson = new WeakMap<readonly string[], string>();
const metadataJson = new WeakMap<object, string>();

type Match = Envelope['matches'][number];
/**
 * The JSON of the last match seen with each metadata object. A match is one entity's fields
 * (same list, value, URL and metadata request after request), so its text is reused when every
 * field is the same as when it was written; entities that share a metadata object just
 * overwrite each other's entry.
 */
const matchJson = new WeakMap<object, { match: Match; json: string }>();

function cached<K extends object>(map: WeakMap<K, string>, key: K): string {
  let text = map.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    map.set(key, text);
  }
  return text;
}

const str = JSON.stringify as (s: string) => string;

function sameMatch(a: Match, b: Match): boolean {
  return a.value === b.value && a.list === b.list && a.match === b.match && a.source_url === b.source_url && a.list_name === b.list_name && a.list_type === b.list_type;
}

function matchText(m: Match): string {
  const seen = matchJson.get(m.metadata);
  if (seen && sameMatch(seen.match, m)) return seen.json;
  let json = `{"list":${str(m.list)},"list_name":${str(m.list_name)},"list_type":${str(m.list_type)},"match":${str(m.match)},"value":${str(m.value)}`;
  if (m.source_url !== undefined) json += `,"source_url":${m.source_url === null ? 'null' : str(m.source_url)}`;
  json += `,"metadata":${cached(metadataJson, m.metadata)}}`;
  matchJson.set(m.metadata, { match: { ...m }, json });
  return json;
}

export function screenResponseJson(env: Envelope): string {
  let out = `{"value":${str(env.value)},"flagged":${env.flagged},"sanctioned":${env.sanctioned},"lists_checked":${cached(listsJson, env.lists_checked)},"matches":[`;
  const matches = env.matches;
  for (let i = 0; i < matches.length; i++) {
    if (i > 0) out += ',';
    out += matchText(matches[i]);
  }
  return `${out}]}`;
}
