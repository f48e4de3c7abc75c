import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { canonicalKey, normalizeEmail } from '../../../engine/normalize/index.js';
import { sharedData } from '../../../harness/paths.js';

describe('normalizeEmail', () => {
  test('trimmed and lower-cased, the domain separate', () => {
    assert.deepEqual(normalizeEmail('  John.Doe+Tag@Example.COM  '), {
      key: 'john.doe+tag@example.com',
      domain: 'example.com',
    });
    assert.deepEqual(normalizeEmail('mailto:A@B.co'), { key: 'a@b.co', domain: 'b.co' });
    assert.deepEqual(normalizeEmail('Email:adelb@shabakah.net.sa'), {
      key: 'adelb@shabakah.net.sa',
      domain: 'shabakah.net.sa',
    });
    assert.deepEqual(normalizeEmail('x@mail.example.com.'), { key: 'x@mail.example.com', domain: 'mail.example.com' });
  });

  test('the domain in IDNA form; www is part of a mail domain', () => {
    assert.deepEqual(normalizeEmail('info@Bücher.de'), { key: 'info@xn--bcher-kva.de', domain: 'xn--bcher-kva.de' });
    assert.deepEqual(normalizeEmail('user@пример.рф'), {
      key: 'user@xn--e1afmkfd.xn--p1ai',
      domain: 'xn--e1afmkfd.xn--p1ai',
    });
    assert.deepEqual(normalizeEmail('a@www.example.com'), { key: 'a@www.example.com', domain: 'www.example.com' });
  });

  test('not e-mail addresses → null', () => {
    for (const v of [
      '',
      'plain',
      '@example.com',
      'user@',
      'a@b@c.com',
      'user@localhost',
      'us er@example.com',
      'user@[127.0.0.1]',
      'user@127.0.0.1',
      'user@exa mple.com',
      'user@-x.com',
      'user@*.example.com',
    ]) {
      assert.equal(normalizeEmail(v), null, v);
    }
    assert.equal(canonicalKey('email', 'nope'), null);
    assert.equal(canonicalKey('email', 'A@B.CO'), 'a@b.co');
  });

  test('every e-mail address on the OFAC SDN list normalizes, stably', () => {
    const lines = readFileSync(sharedData('web', 'ofac-sdn-websites-and-emails.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('@'));
    assert.equal(lines.length, 326);
    for (const l of lines) {
      const r = normalizeEmail(l);
      assert.ok(r, l);
      assert.deepEqual(normalizeEmail(r.key), r);
      assert.deepEqual(normalizeEmail(l.toUpperCase()), r);
      assert.ok(r.key.endsWith(`@${r.domain}`));
    }
  });
});
