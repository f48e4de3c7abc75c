import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { canonicalKey, domainAncestors, normalizeWebsite } from '../../../engine/normalize/index.js';
import { sharedData } from '../../../harness/paths.js';

describe('normalizeWebsite', () => {
  test('full URLs of any scheme give the host', () => {
    assert.equal(normalizeWebsite('https://user:pw@WWW.Example.COM:8443/path?q=1#frag'), 'example.com');
    assert.equal(normalizeWebsite('ftp://files.example.org/pub'), 'files.example.org');
    assert.equal(normalizeWebsite('wss://stream.example.net/socket'), 'stream.example.net');
    assert.equal(normalizeWebsite('hxxp://Evil.Example.com/login'), 'evil.example.com');
  });

  test('bare domains, with path, port, trailing dot or wildcard', () => {
    assert.equal(normalizeWebsite('  Example.COM.  '), 'example.com');
    assert.equal(normalizeWebsite('www.example.co.uk/en/index.html'), 'example.co.uk');
    assert.equal(normalizeWebsite('example.com:8080'), 'example.com');
    assert.equal(normalizeWebsite('*.example.com'), 'example.com');
    assert.equal(normalizeWebsite('CKB-RUBIN.RU/GLAVNAJA'), 'ckb-rubin.ru');
  });

  test('only a leading www label is dropped', () => {
    assert.equal(normalizeWebsite('www.www.example.com'), 'www.example.com');
    assert.equal(normalizeWebsite('www2.example.com'), 'www2.example.com');
    assert.equal(normalizeWebsite('www.com'), 'www.com');
  });

  test('internationalized names become punycode, in any Unicode form', () => {
    assert.equal(normalizeWebsite('https://www.Bücher.de/'), 'xn--bcher-kva.de');
    assert.equal(normalizeWebsite('bu\u0308cher.de'), 'xn--bcher-kva.de');
    assert.equal(normalizeWebsite('xn--bcher-kva.de'), 'xn--bcher-kva.de');
    assert.equal(normalizeWebsite('пример.рф'), 'xn--e1afmkfd.xn--p1ai');
    assert.equal(normalizeWebsite('例え。テスト'), 'xn--r8jz45g.xn--zckzah');
    assert.equal(normalizeWebsite('custom://bücher.de/x'), 'xn--bcher-kva.de');
  });

  test('IP literals are hosts', () => {
    assert.equal(normalizeWebsite('http://192.168.0.1:8080/admin'), '192.168.0.1');
    assert.equal(normalizeWebsite('http://[2001:DB8::1]/'), '[2001:db8::1]');
    assert.equal(normalizeWebsite('http://0x7f.1/'), '127.0.0.1');
  });

  test('no host → null', () => {
    for (const v of [
      '',
      '   ',
      'localhost',
      'hello',
      'mailto:someone@example.com',
      'ex ample.com',
      'http://',
      '-bad-.com',
      'a..b.com',
      'example.123',
      '999.1.1.1',
    ]) {
      assert.equal(normalizeWebsite(v), null, v);
    }
  });

  test('canonicalKey for websites and e-mail domains', () => {
    assert.equal(canonicalKey('website', 'HTTPS://WWW.EXAMPLE.COM/'), 'example.com');
    assert.equal(canonicalKey('email_domain', '@Mailinator.com'), 'mailinator.com');
    assert.equal(canonicalKey('website', 'nothing'), null);
  });
});

describe('domainAncestors', () => {
  test('parents nearest first, stopping before the public suffix', () => {
    assert.deepEqual(domainAncestors('a.b.example.co.uk'), ['b.example.co.uk', 'example.co.uk']);
    assert.deepEqual(domainAncestors('login.secure.example.com'), ['secure.example.com', 'example.com']);
    assert.deepEqual(domainAncestors('shop.example.com.au'), ['example.com.au']);
    assert.deepEqual(domainAncestors('example.com'), []);
    assert.deepEqual(domainAncestors('example.co.uk'), []);
    assert.deepEqual(domainAncestors('kes.co.ir'), []);
    assert.deepEqual(domainAncestors('en.vtb-bank.kz'), ['vtb-bank.kz']);
  });

  test('shared hosting suffixes and IP literals are never ancestors', () => {
    assert.deepEqual(domainAncestors('wallet-login.github.io'), []);
    assert.deepEqual(domainAncestors('x.wallet-login.github.io'), ['wallet-login.github.io']);
    assert.deepEqual(domainAncestors('phish.blogspot.com'), []);
    assert.deepEqual(domainAncestors('127.0.0.1'), []);
    assert.deepEqual(domainAncestors('[2001:db8::1]'), []);
  });
});

describe('websites on real lists', () => {
  test('every OFAC SDN website normalizes to a stable host', () => {
    const lines = readFileSync(sharedData('web', 'ofac-sdn-websites-and-emails.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
    const sites = lines.filter((l) => !l.includes('@'));
    assert.equal(sites.length, 1221);
    for (const s of sites) {
      const host = normalizeWebsite(s);
      assert.ok(host, s);
      assert.equal(normalizeWebsite(host), host);
      assert.equal(normalizeWebsite(`https://${host}/`), host);
      assert.equal(normalizeWebsite(s.toUpperCase()), host);
    }
  });

  test('every disposable e-mail domain is its own key', () => {
    const domains = readFileSync(sharedData('email', 'disposable-domains.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
    assert.equal(domains.length, 8335);
    for (const d of domains) assert.equal(canonicalKey('email_domain', d), d);
  });

  test('CryptoScamDB URLs: all have a host but a mailto: link and a doubled scheme', () => {
    const rows = parse(readFileSync(sharedData('web', 'cryptoscamdb-urls.yaml'), 'utf8')) as {
      url: string;
      name: string;
    }[];
    const failed = rows.filter((r) => normalizeWebsite(r.url) === null).map((r) => r.url);
    assert.equal(rows.length, 9889);
    assert.deepEqual(failed, [
      'mailto:nsdmilea@gmail.com',
      'https://https://docs.google.com/forms/d/e/1FAIpQLSdYUpUlj1mjvg9KkU-CMHYILLjWFIOFRtuqBiqp1fbzoTsxNA/formResponse',
    ]);
    assert.equal(normalizeWebsite('http://xn--myetherwallt-leb.com'), 'xn--myetherwallt-leb.com');
  });
});
