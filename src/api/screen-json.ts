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

function cached<K extends object>(map: WeakMap<K, string>, key: K): string {
  let text = map.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    map.set(key, text);
  }
  return text;
}

const str = JSON.stringify as (s: string) => string;

export function screenResponseJson(env: Envelope): string {
  let out = `{"value":${str(env.value)},"flagged":${env.flagged},"sanctioned":${env.sanctioned},"lists_checked":${cached(listsJson, env.lists_checked)},"matches":[`;
  const matches = env.matches;
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i];
    if (i > 0) out += ',';
    out += `{"list":${str(m.list)},"list_name":${str(m.list_name)},"list_type":${str(m.list_type)},"match":${str(m.match)},"value":${str(m.value)}`;
    if (m.source_url !== undefined) out += `,"source_url":${m.source_url === null ? 'null' : str(m.source_url)}`;
    out += `,"metadata":${cached(metadataJson, m.metadata)}}`;
  }
  return `${out}]}`;
}
