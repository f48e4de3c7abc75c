import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SCREEN_KINDS, type KindName } from '../../../engine/kinds.js';
import { valueProblem } from '../../../engine/normalize/validate.js';
import { cleanRecords } from '../../../loaders/clean.js';
import type { EntityRecord, EntityType } from '../../../engine/model.js';
import { startTestService, type TestService } from '../../../harness/service.js';

/**
 * The validators of screened values (engine/normalize/validate.ts): the shapes the README lists
 * are accepted, others refused, and every value on every list loaded from ../shared/data passes
 * its own kind's validator (lists' oddities are repaired at load, loaders/clean.ts).
 */
let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
});

const valid = (kind: KindName, values: string[]) => {
  for (const v of values) assert.equal(valueProblem(SCREEN_KINDS[kind], v), null, `${kind} ${v}`);
};
const invalid = (kind: KindName, values: string[]) => {
  for (const v of values) assert.notEqual(valueProblem(SCREEN_KINDS[kind], v), null, `${kind} ${v}`);
};

test('crypto: EVM, the chains the lists carry, a generic shape for other chains, ENS names', () => {
  valid('crypto', [
    '0x01e2919679362dFBC9ee1644Ba9C6da6D6245BB1',
    '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
    'bc1qa5wkgaew2dkv56kfvj49j0av5nml45x9ek9hz6',
    'BC1QA5WKGAEW2DKV56KFVJ49J0AV5NML45X9EK9HZ6',
    'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    'TXmVpin5vq5gdZsciyyjdZgKRUju4st1wM',
    'rEb8TK3gBgk5auZkwc6sHnwrGVJH8DuaLh',
    '4JUdGzvrMFDWrUUwY3toJATSeNwjn54LkCnKBPRzDuhzi5vSepHfUckJNxRL2gjkNrSqtCoRUrEDAgRwsQvVCjZbRy5YmBgsC4JmHdxLgi',
    'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x',
    'cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02',
    'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ',
    'vitalik.eth',
    'nick.eth',
  ]);
  invalid('crypto', [
    'hello',
    '0x1234',
    '0x01e2919679362dFBC9ee1644Ba9C6da6D6245BB1zz',
    'bad..name.eth',
    'a b.eth',
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
    'a'.repeat(129),
  ]);
});

test('e-mail: a practical syntax check, IDN domains and their A-labels allowed', () => {
  valid('email', [
    'someone@example.org',
    'INFO@AQSATV.PS',
    'user+tag@sub.example.co.uk',
    'ü@例え.jp',
    'x@xn--r8jz45g.jp',
  ]);
  invalid('email', [
    'not-an-email',
    'a@localhost',
    '@example.org',
    'a@b@c.org',
    'a b@example.org',
    'a@[127.0.0.1]',
    'a@1.2.3.4',
    `${'x'.repeat(65)}@example.org`,
  ]);
});

test('country: ISO codes, names, aliases and the designated regions; unknown or ambiguous refused', () => {
  valid('country', [
    'IR',
    'IRN',
    '364',
    'Iran',
    'Islamic Republic of Iran',
    'Crimea',
    'UA-43',
    'DPRK',
    "Côte d'Ivoire",
  ]);
  invalid('country', ['XX', 'Iarn', 'Korea', 'Atlantis', 'ZZZ', '999', 'USSR']);
});

test('website and government ID', () => {
  valid('website', ['example.com', 'https://www.Sub.example.com./path?q=1', 'http://1.2.3.4/', 'пример.рф']);
  invalid('website', ['Telegram', 'not a site', 'mailto:a@b.com', 'com12786312634']);
  valid('id', ['AB850901', 'ab-850 901', 'F 572010']);
  invalid('id', ['---', ' ', 'X'.repeat(65)]);
});

test('load-time repairs: a tagged address, a mailto website, an identifier in a sentence; values that cannot be repaired are left out', () => {
  const rec = (entity_type: EntityType, value: string): EntityRecord => ({
    list: 'l',
    entity_type,
    value,
    metadata: {},
    source_url: null,
    listed_at: null,
    removed_at: null,
  });
  const { records, dropped } = cleanRecords([
    rec('crypto_address', '1PSHt9agWavn4mf44d8rH6HPfaVpkdV75A (btc)'),
    rec('website', 'mailto:nsdmilea@gmail.com'),
    rec('government_id', 'Central African Republic armed forces (FACA) Military identification\nnumber 911-10-77'),
    rec('website', 'Telegram'),
    rec('email', 'PRIYEMNAYA@YGDU'),
    rec('name', 'Any Name'),
  ]);
  assert.deepEqual(
    records.map((r) => [r.entity_type, r.value]),
    [
      ['crypto_address', '1PSHt9agWavn4mf44d8rH6HPfaVpkdV75A'],
      ['email', 'nsdmilea@gmail.com'],
      ['government_id', '911-10-77'],
      ['name', 'Any Name'],
    ],
  );
  assert.deepEqual(
    dropped.map((r) => r.value),
    ['Telegram', 'PRIYEMNAYA@YGDU'],
  );
});

test("every value on every list loaded from ../shared/data passes its own kind's validator", () => {
  const KIND: Partial<Record<EntityType, KindName>> = {
    crypto_address: 'crypto',
    email: 'email',
    email_domain: 'website',
    website: 'website',
    government_id: 'id',
    country: 'country',
  };
  const failures: string[] = [];
  let checked = 0;
  const loaded = Object.entries(svc.service.lists().status()).filter(([, s]) => s.loaded);
  assert.ok(loaded.length >= 9, loaded.map(([slug]) => slug).join());
  for (const [slug] of loaded) {
    for (const e of svc.service.engine.entities(slug, { limit: 10_000_000 }).entities) {
      const kind = KIND[e.entity_type];
      if (!kind) continue;
      checked++;
      const problem = valueProblem(SCREEN_KINDS[kind], e.value);
      if (problem) failures.push(`${slug} ${e.entity_type} ${JSON.stringify(e.value)}: ${problem}`);
    }
  }
  assert.ok(checked > 40_000, `${checked} values`);
  assert.deepEqual(failures, []);
});
