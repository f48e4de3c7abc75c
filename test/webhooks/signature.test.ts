import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { newSigningSecret, signWebhook, verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { classifyAddress } from '../../src/webhooks/ssrf.js';

describe('webhook signatures', () => {
  const secret = 'whsec_test_secret_value';
  const body = Buffer.from('{"id":"evt_1","type":"test"}');
  const t = 1_750_000_000;
  const now = () => t * 1000 + 10_000;

  test('the header is t=<unix>,v1=HMAC-SHA256(secret, "<t>." + raw body) in hex', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body.toString()}`).digest('hex');
    assert.equal(signWebhook(body, secret, t), `t=${t},v1=${expected}`);
  });

  test('verification: raw bytes, secret, tolerance, malformed headers', () => {
    const header = signWebhook(body, secret, t);
    assert.equal(verifyWebhookSignature(body, header, secret, { now }), true);
    assert.equal(verifyWebhookSignature(body.toString(), header, secret, { now }), true);
    assert.equal(verifyWebhookSignature('{"type":"test","id":"evt_1"}', header, secret, { now }), false);
    assert.equal(verifyWebhookSignature(body, header, 'whsec_other', { now }), false);
    assert.equal(verifyWebhookSignature(body, header, secret, { now: () => (t + 301) * 1000 }), false);
    assert.equal(
      verifyWebhookSignature(body, header, secret, { now: () => (t + 301) * 1000, toleranceSeconds: 600 }),
      true,
    );
    assert.equal(
      verifyWebhookSignature(body, `t=${t},v1=${'0'.repeat(64)},${header.split(',')[1]}`, secret, { now }),
      true,
    );
    for (const bad of [
      undefined,
      '',
      `v1=${'a'.repeat(64)}`,
      `t=${t}`,
      `t=${t},v1=xyz`,
      `t=abc,${header.split(',')[1]}`,
    ]) {
      assert.equal(verifyWebhookSignature(body, bad, secret, { now }), false, String(bad));
    }
  });

  test('secrets are whsec_ and 43 base64url characters, never repeated', () => {
    const a = newSigningSecret();
    assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, newSigningSecret());
  });
});

describe('address classes of the SSRF guard', () => {
  const cases: [string, string][] = [
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.100.100.200', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2:0:0:0:0:0:254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['169.254.10.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
  ];
  for (const [ip, cls] of cases) test(`${ip} is ${cls}`, () => assert.equal(classifyAddress(ip), cls));
});
