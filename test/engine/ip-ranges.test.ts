import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BlockList, isIP } from 'node:net';
import { IpRangeSet, parseIPv4, parseIPv6, parseRange, parseRangeList } from '../../engine/ip-ranges.js';
import { xorshift32 } from '../../harness/random.js';

function words(ip: string): number[] {
  const w = new Uint32Array(4);
  assert.equal(parseIPv6(ip, w), true, ip);
  return [...w];
}

describe('address parsing', () => {
  test('IPv4 text to u32, rejecting what node:net rejects', () => {
    assert.equal(parseIPv4('0.0.0.0'), 0);
    assert.equal(parseIPv4('8.8.8.8'), 0x08080808);
    assert.equal(parseIPv4('255.255.255.255'), 0xffffffff);
    for (const bad of [
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '01.2.3.4',
      '1..2.3',
      '',
      '1.2.3.4 ',
      'a.b.c.d',
      '1.2.3.-4',
    ]) {
      assert.equal(parseIPv4(bad), -1, bad);
      assert.equal(isIP(bad), 0, bad);
    }
  });

  test('IPv6 text to four big-endian words', () => {
    assert.deepEqual(words('::'), [0, 0, 0, 0]);
    assert.deepEqual(words('::1'), [0, 0, 0, 1]);
    assert.deepEqual(words('2001:db8::ff00:42:8329'), [0x20010db8, 0, 0x0000ff00, 0x00428329]);
    assert.deepEqual(words('2001:0db8:0000:0000:0000:ff00:0042:8329'), [0x20010db8, 0, 0x0000ff00, 0x00428329]);
    assert.deepEqual(words('::ffff:192.0.2.1'), [0, 0, 0xffff, 0xc0000201]);
    assert.deepEqual(words('1:2:3:4:5:6:7::'), [0x00010002, 0x00030004, 0x00050006, 0x00070000]);
    assert.deepEqual(words('fe80::1%eth0'), [0xfe800000, 0, 0, 1]);
    const w = new Uint32Array(4);
    for (const bad of [
      ':',
      ':::',
      '1:::2',
      '1::2::3',
      ':1::',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      'g::1',
      '1:2:3:4:5:6:7',
      '::1.2.3',
      '1.2.3.4',
      '1:',
      '::ffff:1.2.3.4:5',
    ]) {
      assert.equal(parseIPv6(bad, w), false, bad);
    }
  });

  test('agrees with node:net isIP on generated IPv6 spellings', () => {
    const next = xorshift32(7);
    for (let i = 0; i < 2000; i++) {
      const groups = Array.from({ length: 8 }, () => (next() & 1 ? next() & 0xffff : 0));
      const full = groups.map((g) => g.toString(16)).join(':');
      const compressed = full.replace(/(^|:)0(:0)+(:|$)/, '::');
      for (const text of [full, compressed]) {
        assert.equal(isIP(text), 6, text);
        const w = new Uint32Array(4);
        assert.equal(parseIPv6(text, w), true, text);
        assert.deepEqual(
          [...w],
          [
            (groups[0] << 16) | groups[1],
            (groups[2] << 16) | groups[3],
            (groups[4] << 16) | groups[5],
            (groups[6] << 16) | groups[7],
          ].map((x) => x >>> 0),
          text,
        );
      }
    }
  });

  test('CIDR bounds, host bits ignored', () => {
    assert.deepEqual(parseRange('10.1.2.3/8'), { family: 4, start: 0x0a000000n, end: 0x0affffffn });
    assert.deepEqual(parseRange('1.2.3.4'), { family: 4, start: 0x01020304n, end: 0x01020304n });
    assert.deepEqual(parseRange('0.0.0.0/0'), { family: 4, start: 0n, end: 0xffffffffn });
    assert.deepEqual(parseRange('2001:db8::/32'), {
      family: 6,
      start: 0x20010db8n << 96n,
      end: (0x20010db8n << 96n) | ((1n << 96n) - 1n),
    });
    assert.equal(parseRange('1.2.3.4/33'), null);
    assert.equal(parseRange('::/129'), null);
    assert.equal(parseRange('1.2.3.4/'), null);
    assert.equal(parseRange('fe80::1%eth0/64'), null);
  });

  test('list text: comments and blank lines skipped, bad lines reported', () => {
    const r = parseRangeList('# Last updated: today\n1.2.3.4\n\n  5.6.0.0/16  # office\nnot-an-ip\n2001:db8::/48\r\n');
    assert.equal(r.ranges.length, 3);
    assert.deepEqual(r.invalid, ['not-an-ip']);
  });
});

describe('IpRangeSet', () => {
  test('merges overlapping and adjacent ranges', () => {
    const s = IpRangeSet.fromList([
      '10.0.0.0/24',
      '10.0.1.0/24',
      '10.0.0.128/25',
      '10.0.3.0/24',
      '2001:db8::/33',
      '2001:db8:8000::/33',
      '2001:db9::1',
    ]);
    assert.deepEqual(s.size, { v4: 2, v6: 2 });
    assert.equal(s.contains('10.0.1.255'), true);
    assert.equal(s.contains('10.0.2.0'), false);
    assert.equal(s.contains('10.0.3.0'), true);
    assert.equal(s.contains('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'), true);
    assert.equal(s.contains('2001:db9::'), false);
    assert.equal(s.contains('2001:db9::1'), true);
    assert.equal(s.contains('2001:db9::2'), false);
    assert.equal(s.contains('not an ip'), false);
  });

  test('edges of the address space', () => {
    const s = IpRangeSet.fromList([
      '0.0.0.0/32',
      '255.255.255.255/32',
      '::/128',
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128',
    ]);
    assert.equal(s.contains('0.0.0.0'), true);
    assert.equal(s.contains('0.0.0.1'), false);
    assert.equal(s.contains('255.255.255.254'), false);
    assert.equal(s.contains('255.255.255.255'), true);
    assert.equal(s.contains('::'), true);
    assert.equal(s.contains('::1'), false);
    assert.equal(s.contains('ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe'), false);
    assert.equal(s.contains('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), true);
    assert.equal(IpRangeSet.empty().contains('1.2.3.4'), false);
    assert.equal(IpRangeSet.empty().hasFamily(4), false);
    assert.equal(s.hasFamily(6), true);
  });

  test('fromList rejects an invalid entry', () => {
    assert.throws(() => IpRangeSet.fromList(['1.2.3.4', '1.2.3.256']), /not an IP address or CIDR range: 1\.2\.3\.256/);
  });

  test('agrees with node:net BlockList on random ranges and probes', () => {
    const next = xorshift32(42);
    const cidrs: string[] = [];
    const block = new BlockList();
    for (let i = 0; i < 300; i++) {
      const v = next();
      const bits = 8 + (next() % 25);
      const ip = [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
      cidrs.push(`${ip}/${bits}`);
      const base = parseRange(`${ip}/${bits}`)!;
      const n = Number(base.start);
      block.addSubnet([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), bits, 'ipv4');
      const g = Array.from({ length: 8 }, () => next() & 0xffff);
      const bits6 = 16 + (next() % 100);
      const r6 = parseRange(`${g.map((x) => x.toString(16)).join(':')}/${bits6}`)!;
      const start6 = Array.from({ length: 8 }, (_, k) =>
        Number((r6.start >> BigInt(112 - 16 * k)) & 0xffffn).toString(16),
      ).join(':');
      cidrs.push(`${start6}/${bits6}`);
      block.addSubnet(start6, bits6, 'ipv6');
    }
    const set = IpRangeSet.fromList(cidrs);
    let hits = 0;
    for (let i = 0; i < 20000; i++) {
      const v = next();
      const ip = [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
      const expected = block.check(ip, 'ipv4');
      if (expected) hits++;
      assert.equal(set.contains(ip), expected, ip);
    }
    // Probes inside each IPv6 range and just past its end.
    for (const c of cidrs.filter((x) => x.includes(':'))) {
      const r = parseRange(c)!;
      for (const p of [r.start, r.end, r.end + 1n]) {
        if (p > (1n << 128n) - 1n) continue;
        const text = Array.from({ length: 8 }, (_, k) =>
          Number((p >> BigInt(112 - 16 * k)) & 0xffffn).toString(16),
        ).join(':');
        assert.equal(set.contains(text), block.check(text, 'ipv6'), text);
      }
    }
    assert.ok(hits > 100, `only ${hits} random IPv4 probes fell in a range`);
  });
});
