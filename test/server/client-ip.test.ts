import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientIpResolver, normalizeIp } from '../../src/server/client-ip.js';

test('normalizeIp folds IPv4-mapped IPv6 (compressed or not) and compresses IPv6', () => {
  assert.equal(normalizeIp('::ffff:127.0.0.1'), '127.0.0.1');
  assert.equal(normalizeIp('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
  assert.equal(normalizeIp('2001:0db8:0000:0000:0000:0000:0000:0001'), '2001:db8::1');
  assert.equal(normalizeIp('0000:0000:0000:0000:0000:0000:0000:0001'), '::1');
  assert.equal(normalizeIp('8.8.8.8'), '8.8.8.8');
});

test('X-Forwarded-For is ignored from an untrusted peer', () => {
  const r = new ClientIpResolver([]);
  assert.equal(r.resolve('203.0.113.9', '1.2.3.4', undefined), '203.0.113.9');
});

test('from a trusted proxy the right-most untrusted hop is the client', () => {
  const r = new ClientIpResolver(['10.0.0.0/8', '127.0.0.1']);
  assert.equal(r.resolve('127.0.0.1', '1.2.3.4', undefined), '1.2.3.4');
  assert.equal(r.resolve('10.1.2.3', '6.6.6.6, 1.2.3.4, 10.0.0.7', undefined), '1.2.3.4');
  assert.equal(r.resolve('10.1.2.3', undefined, 'for="[2001:db8::5]:443";proto=https'), '2001:db8::5');
  assert.equal(r.resolve('10.1.2.3', 'garbage', undefined), '10.1.2.3');
  assert.equal(r.resolve('10.1.2.3', '198.51.100.4:5555', undefined), '198.51.100.4');
});
