import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../../harness/service.js';
import { LISTS } from '../../loaders/registry.js';
import { ListCatalog } from '../../src/lists/catalog.js';
import { envelope } from '../../src/api/endpoints/screen.js';
import { screenResponseBody, screenResponseJson, writeScreenResponseLine } from '../../src/api/screen-json.js';
import type { Hit } from '../../engine/engine.js';

/**
 * The hand-written ScreenResponse serializers (text, and NDJSON lines as bytes) must give exactly
 * JSON.stringify's text: on every entity of every loaded real list (each match kind), with their
 * caches cold and warm, and on hostile strings.
 */
const lineBuffer = Buffer.alloc(1 << 20);
function assertSerialized(env: Parameters<typeof screenResponseJson>[0]): void {
  const expected = JSON.stringify(env);
  assert.equal(screenResponseJson(env), expected);
  const at = 7;
  const end = writeScreenResponseLine(env, lineBuffer, at);
  assert.equal(lineBuffer.toString('utf8', at, end), `${expected}\n`);
  const body = screenResponseBody(env);
  assert.equal(typeof body === 'string' ? body : body.toString('utf8'), expected);
}
let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
});

test('every listed entity: the same text as JSON.stringify, cold and cached', () => {
  const catalog = new ListCatalog(LISTS);
  const slugs = catalog.resolve(undefined);
  let checked = 0;
  for (const def of LISTS) {
    const { entities } = svc.service.engine.entities(def.slug, { limit: 1_000_000 });
    for (let i = 0; i < entities.length; i++) {
      const e = entities[i];
      const hits: Hit[] = [
        { entity: e, match: (['exact', 'subdomain', 'domain', 'region', 'fuzzy'] as const)[i % 5], similarity: 1 },
      ];
      if (i % 7 === 0 && i + 1 < entities.length) hits.push({ entity: entities[i + 1], match: 'exact', similarity: 1 });
      const env = envelope(e.value, slugs, hits, catalog);
      assertSerialized(env);
      assertSerialized(env);
      checked++;
    }
  }
  assert.ok(checked > 70_000, `only ${checked} entities checked`);
});

test('no match, custom list filters, null and absent source_url, hostile strings', () => {
  const hostile = 'a"b\\c\nd\te\u0000f\u001fg\u2028h\u2029i\ud800j😀k\u202el</script>';
  const cases = [
    { value: '0xdead', flagged: false, sanctioned: false, lists_checked: ['ofac_sdn', 'un_sc'], matches: [] },
    { value: hostile, flagged: false, sanctioned: false, lists_checked: [], matches: [] },
    {
      value: hostile,
      flagged: true,
      sanctioned: false,
      lists_checked: [hostile],
      matches: [
        {
          list: hostile,
          list_name: hostile,
          list_type: 'risk' as const,
          match: hostile,
          value: hostile,
          source_url: null,
          metadata: { [hostile]: [hostile, 1.5, null, true, { x: hostile }] },
        },
        { list: 'l', list_name: 'L', list_type: 'crime' as const, match: 'exact', value: 'v', metadata: {} },
        {
          list: 'l',
          list_name: 'L',
          list_type: 'sanctions' as const,
          match: 'exact',
          value: 'v',
          source_url: hostile,
          metadata: { n: 0 },
        },
      ],
    },
  ];
  for (const env of cases) {
    assertSerialized(env);
    assertSerialized(env);
    assert.deepEqual(JSON.parse(screenResponseJson(env)), JSON.parse(JSON.stringify(env)));
  }
});

test('matches sharing one metadata object: each keeps its own fields, in whatever order they come', () => {
  const metadata = { sdn_name: 'SHARED', programs: ['CYBER2'] };
  const match = (value: string, list: string, match: string, source_url?: string | null) => ({
    list,
    list_name: list.toUpperCase(),
    list_type: 'sanctions' as const,
    match,
    value,
    source_url,
    metadata,
  });
  const envs = [
    {
      value: 'a',
      flagged: true,
      sanctioned: true,
      lists_checked: ['l1'],
      matches: [match('a', 'l1', 'exact', 'https://x/1')],
    },
    {
      value: 'b',
      flagged: true,
      sanctioned: true,
      lists_checked: ['l1'],
      matches: [match('b', 'l1', 'exact', 'https://x/1'), match('a', 'l1', 'exact', 'https://x/1')],
    },
    {
      value: 'a',
      flagged: true,
      sanctioned: true,
      lists_checked: ['l1'],
      matches: [match('a', 'l2', 'exact', 'https://x/1'), match('a', 'l2', 'fuzzy', 'https://x/1')],
    },
    {
      value: 'a',
      flagged: true,
      sanctioned: true,
      lists_checked: ['l1'],
      matches: [match('a', 'l2', 'fuzzy', null), match('a', 'l2', 'fuzzy'), match('a', 'l2', 'fuzzy', 'https://x/2')],
    },
  ];
  for (let round = 0; round < 2; round++) for (const env of envs) assertSerialized(env);
});

test('values written as they are or escaped: each character at the edge of the plain ASCII range, at the start and at the end', () => {
  const edges = [
    '\u0000',
    '\u001f',
    ' ',
    '~',
    '\u007f',
    '\u0080',
    '"',
    '\\',
    '/',
    'é',
    '\u2028',
    '\ud800',
    '\udc00',
    '😀',
  ];
  for (const ch of edges) {
    for (const value of [
      ch,
      `${ch}0x8589427373d6d84e98730d7795d8f6f8731fda16`,
      `0x8589427373d6d84e98730d7795d8f6f8731fda16${ch}`,
    ]) {
      assertSerialized({ value, flagged: false, sanctioned: false, lists_checked: ['ofac_sdn'], matches: [] });
    }
  }
});

test('a line that does not fit leaves the bytes before its place as they were', () => {
  const env = { value: 'ü'.repeat(40), flagged: false, sanctioned: false, lists_checked: ['ofac_sdn'], matches: [] };
  const small = Buffer.alloc(64, 0x61);
  assert.equal(writeScreenResponseLine(env, small, 10), -1);
  assert.equal(small.toString('latin1'), 'a'.repeat(64));
  const exact = Buffer.alloc(Buffer.byteLength(JSON.stringify(env)) + 1 + 3 * 40);
  assert.equal(exact.toString('utf8', 0, writeScreenResponseLine(env, exact, 0)), `${JSON.stringify(env)}\n`);
  // Room for the value as plain ASCII, not for its escaped form: the plain write starts, fails at
  // the last character, and the line is refused without touching what came before it.
  const late = { ...env, value: `${'a'.repeat(39)}\u0001` };
  const plainSize = Buffer.byteLength(JSON.stringify(late)) + 1 - 5;
  const tight = Buffer.alloc(20 + plainSize, 0x62);
  assert.equal(writeScreenResponseLine(late, tight, 20), -1);
  assert.equal(tight.toString('latin1', 0, 20), 'b'.repeat(20));
  const roomy = Buffer.alloc(20 + Buffer.byteLength(JSON.stringify(late)) + 1 + 3 * 45, 0x62);
  const end = writeScreenResponseLine(late, roomy, 20);
  assert.equal(roomy.toString('utf8', 20, end), `${JSON.stringify(late)}\n`);
  assert.equal(roomy.toString('latin1', 0, 20), 'b'.repeat(20));
});

test('a REST body larger than the answer buffer goes as text; the buffer is written over by the next answer', () => {
  const big = {
    value: 'v',
    flagged: true,
    sanctioned: false,
    lists_checked: ['l'],
    matches: [
      {
        list: 'l',
        list_name: 'L',
        list_type: 'risk' as const,
        match: 'exact',
        value: 'v',
        metadata: { note: 'é'.repeat(40_000) },
      },
    ],
  };
  const text = screenResponseBody(big);
  assert.equal(typeof text, 'string');
  assert.equal(text, JSON.stringify(big));
  const first = screenResponseBody({
    value: 'first',
    flagged: false,
    sanctioned: false,
    lists_checked: ['l'],
    matches: [],
  });
  assert.ok(Buffer.isBuffer(first));
  const copy = Buffer.from(first);
  screenResponseBody({ value: 'second', flagged: false, sanctioned: false, lists_checked: ['l'], matches: [] });
  assert.equal(
    copy.toString(),
    '{"value":"first","flagged":false,"sanctioned":false,"lists_checked":["l"],"matches":[]}',
  );
  assert.equal(first.toString().slice(0, 17), '{"value":"second"');
});
