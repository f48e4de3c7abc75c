import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { recentMemo } from '../../../engine/normalize/recent-memo.js';
import { asciiHost, domainAncestors, normalizeEmail } from '../../../engine/normalize/index.js';

describe('recentMemo', () => {
  test('answers from memory for keys seen within the last `size` new keys, null results included', () => {
    const calls: string[] = [];
    const memo = recentMemo((k: string) => {
      calls.push(k);
      return k.startsWith('x') ? null : k.toUpperCase();
    }, 2);
    assert.equal(memo('a'), 'A');
    assert.equal(memo('xa'), null);
    assert.equal(memo('a'), 'A');
    assert.equal(memo('xa'), null);
    assert.deepEqual(calls, ['a', 'xa']);
    // 'b' starts a new generation; 'a' and 'xa' are still found in the older one.
    assert.equal(memo('b'), 'B');
    assert.equal(memo('a'), 'A');
    assert.deepEqual(calls, ['a', 'xa', 'b']);
    // Two more new keys push the generation holding only 'xa' out: it is computed again.
    assert.equal(memo('c'), 'C');
    assert.equal(memo('d'), 'D');
    assert.equal(memo('e'), 'E');
    assert.equal(memo('xa'), null);
    assert.deepEqual(calls, ['a', 'xa', 'b', 'c', 'd', 'e', 'xa']);
  });

  test('keys longer than maxKeyLength are computed every time', () => {
    let n = 0;
    const memo = recentMemo((k: string) => (n++, k.length), 16, 8);
    const long = 'y'.repeat(9);
    assert.equal(memo(long), 9);
    assert.equal(memo(long), 9);
    assert.equal(memo('short'), 5);
    assert.equal(memo('short'), 5);
    assert.equal(n, 3);
  });
});

describe('memoized host normalization', () => {
  test('a repeated host gives the same answer as the first time, for valid, IDN and invalid hosts', () => {
    for (const host of [
      'Example.COM',
      'bücher.example',
      'xn--bcher-kva.example',
      '-bad-.example',
      'localhost',
      '192.168.0.1',
      '[::1]',
      'a%2eb.example.com',
    ]) {
      const first = asciiHost(host);
      for (let i = 0; i < 3; i++) assert.equal(asciiHost(host), first, host);
    }
    assert.equal(asciiHost('bücher.example'), 'xn--bcher-kva.example');
    assert.equal(asciiHost('-bad-.example'), null);
    assert.equal(asciiHost('a%2eb.example.com'), 'a.b.example.com');
  });

  test('parent domains are shared between callers and cannot be changed by one of them', () => {
    const a = domainAncestors('a.b.example.co.uk');
    assert.deepEqual(a, ['b.example.co.uk', 'example.co.uk']);
    assert.equal(domainAncestors('a.b.example.co.uk'), a);
    assert.throws(() => (a as string[]).push('evil.example'), TypeError);
    assert.throws(() => (domainAncestors('example.com') as string[]).push('x.example'), TypeError);
    assert.deepEqual(domainAncestors('a.b.example.co.uk'), ['b.example.co.uk', 'example.co.uk']);
    assert.deepEqual(domainAncestors('example.com'), []);
  });

  test('e-mail addresses of one domain keep their own local parts', () => {
    assert.deepEqual(normalizeEmail('Alice@Mail.Example.COM'), {
      key: 'alice@mail.example.com',
      domain: 'mail.example.com',
    });
    assert.deepEqual(normalizeEmail('bob@mail.example.com'), {
      key: 'bob@mail.example.com',
      domain: 'mail.example.com',
    });
    assert.equal(normalizeEmail('carol@-bad-.example'), null);
    assert.equal(normalizeEmail('carol@-bad-.example'), null);
  });
});
