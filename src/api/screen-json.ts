import type { z } from 'zod';
import type { ScreenResponse } from './schemas/screen.js';

type Answer = z.output<typeof ScreenResponse>;
/** Any metadata serializes alike: the schema's required keys are the envelope's business, not this module's. */
type Match = Omit<Answer['matches'][number], 'metadata'> & { metadata: object };
type Envelope = Omit<Answer, 'matches'> & { matches: Match[] };

/**
 * The JSON of a ScreenResponse, equal to `JSON.stringify` of it (test/api/screen-json.test.ts
 * holds it to that on every listed entity), as text for single answers and as bytes for batch
 * lines, several times cheaper than JSON.stringify. The lists screened and an entity's fields are
 * the same objects request after request (the catalog's resolved default lists, the engine's
 * metadata of a loaded generation), so their JSON is kept per object; both forms are made of the
 * same cached pieces. Metadata objects are never mutated once loaded.
 */
const listsJson = new WeakMap<readonly string[], string>();
const metadataJson = new WeakMap<object, string>();

/** Everything between the value and the first match, per lists array and flagged/sanctioned pair. */
interface Middle {
  text: string;
  bytes: Buffer;
}
const middles = new WeakMap<readonly string[], Middle[]>();

/**
 * The JSON of the last match seen with each metadata object. A match is one entity's fields
 * (same list, value, URL and metadata request after request), so its text is reused when every
 * field is the same as when it was written; entities that share a metadata object just
 * overwrite each other's entry.
 */
interface MatchJson {
  match: Match;
  text: string;
  bytes: Buffer;
}
const matchJson = new WeakMap<object, MatchJson>();

function cached<K extends object>(map: WeakMap<K, string>, key: K): string {
  let text = map.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    map.set(key, text);
  }
  return text;
}

const str = JSON.stringify as (s: string) => string;

function middle(env: Envelope): Middle {
  let byFlags = middles.get(env.lists_checked);
  if (!byFlags) {
    byFlags = [];
    middles.set(env.lists_checked, byFlags);
  }
  const i = (env.flagged ? 2 : 0) + (env.sanctioned ? 1 : 0);
  let m = byFlags[i];
  if (!m) {
    const text = `,"flagged":${env.flagged},"sanctioned":${env.sanctioned},"lists_checked":${cached(listsJson, env.lists_checked)},"matches":[`;
    m = byFlags[i] = { text, bytes: Buffer.from(text) };
  }
  return m;
}

function sameMatch(a: Match, b: Match): boolean {
  return (
    a.value === b.value &&
    a.list === b.list &&
    a.match === b.match &&
    a.source_url === b.source_url &&
    a.list_name === b.list_name &&
    a.list_type === b.list_type
  );
}

function matchPiece(m: Match): MatchJson {
  const seen = matchJson.get(m.metadata);
  if (seen && sameMatch(seen.match, m)) return seen;
  let text = `{"list":${str(m.list)},"list_name":${str(m.list_name)},"list_type":${str(m.list_type)},"match":${str(m.match)},"value":${str(m.value)}`;
  if (m.source_url !== undefined) text += `,"source_url":${m.source_url === null ? 'null' : str(m.source_url)}`;
  text += `,"metadata":${cached(metadataJson, m.metadata)}}`;
  const piece = { match: { ...m }, text, bytes: Buffer.from(text) };
  matchJson.set(m.metadata, piece);
  return piece;
}

export function screenResponseJson(env: Envelope): string {
  let out = `{"value":${str(env.value)}${middle(env).text}`;
  const matches = env.matches;
  for (let i = 0; i < matches.length; i++) {
    if (i > 0) out += ',';
    out += matchPiece(matches[i]).text;
  }
  return `${out}]}`;
}

const OPEN = Buffer.from('{"value":');
const CLOSE_LINE = Buffer.from(']}\n');
const matchBytes: Buffer[] = [];

/**
 * `s` as a JSON string at `at` when it is printable ASCII without quotes or backslashes, as
 * screened values almost always are (JSON.stringify and a Buffer write cost about three times
 * as much for a 40-character address); -1 for any other character, with the bytes from `at` on
 * written over.
 */
function putPlainString(s: string, out: Buffer, at: number): number {
  out[at++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return -1;
    out[at++] = c;
  }
  out[at++] = 0x22;
  return at;
}

/**
 * Writes the JSON of `env` and a newline into `out` at `at` (an NDJSON line) and returns where it
 * ends, or -1 when it does not fit (bytes before `at` are untouched; later ones may be written
 * over). Only the value is encoded; the other pieces are copied from their cached bytes.
 */
export function writeScreenResponseLine(env: Envelope, out: Buffer, at: number): number {
  const mid = middle(env).bytes;
  const matches = env.matches;
  // The matches' cached bytes, looked up once for the room and the copy (the line is written synchronously).
  const pieces = matchBytes;
  pieces.length = matches.length;
  let room = OPEN.length + mid.length + CLOSE_LINE.length;
  for (let i = 0; i < matches.length; i++) room += (pieces[i] = matchPiece(matches[i]).bytes).length + 1;
  const value = env.value;
  let end = at + room + value.length + 2 <= out.length ? putPlainString(value, out, at + OPEN.length) : -1;
  if (end < 0) {
    const json = str(value);
    if (at + room + 3 * json.length > out.length) return -1;
    end = at + OPEN.length + out.write(json, at + OPEN.length, 'utf8');
  }
  out.set(OPEN, at);
  at = end;
  out.set(mid, at);
  at += mid.length;
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) out[at++] = 0x2c;
    out.set(pieces[i], at);
    at += pieces[i].length;
  }
  out.set(CLOSE_LINE, at);
  return at + CLOSE_LINE.length;
}

/** Where single answers are written (see `screenResponseBody`); grown never, larger answers go as text. */
const BODY = Buffer.allocUnsafe(64 * 1024);

/**
 * The JSON of `env` as the bytes of one REST answer: a view of a buffer that the next call writes
 * over, so it must be handed to uWS (which copies it) before anything else serializes. The bytes
 * come from the cached pieces, as for batch lines; a string answer costs uWS a flattening, a UTF-8
 * length pass, an allocation and a copy of the whole body. An answer larger than the buffer goes
 * as text.
 */
export function screenResponseBody(env: Envelope): Buffer | string {
  const end = writeScreenResponseLine(env, BODY, 0);
  // Without the line's newline.
  return end < 0 ? screenResponseJson(env) : BODY.subarray(0, end - 1);
}
