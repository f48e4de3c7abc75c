import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawResponse } from '../../src/core/endpoint.js';
import { wholeBody } from '../../src/server/answer.js';

const serialize = (body: unknown) => `serialized:${JSON.stringify(body)}`;

test('wholeBody: a JSON body goes through the serializer only on a 200', () => {
  assert.deepEqual(wholeBody({ status: 200, headers: {}, body: { a: 1 } }, serialize), {
    contentType: 'application/json',
    body: 'serialized:{"a":1}',
  });
  assert.deepEqual(wholeBody({ status: 422, headers: {}, body: { detail: 'x' } }, serialize), {
    contentType: 'application/json',
    body: '{"detail":"x"}',
  });
  assert.deepEqual(wholeBody({ status: 200, headers: {}, body: [1, 2] }), {
    contentType: 'application/json',
    body: '[1,2]',
  });
});

test('wholeBody: a raw string or Buffer is sent as is with its type; an iterable is streamed (null)', () => {
  const buffer = Buffer.from('a,b\n');
  assert.deepEqual(wholeBody({ status: 200, headers: {}, raw: new RawResponse('text/csv', 'a,b\n') }, serialize), {
    contentType: 'text/csv',
    body: 'a,b\n',
  });
  const whole = wholeBody({ status: 200, headers: {}, raw: new RawResponse('application/octet-stream', buffer) });
  assert.equal(whole?.body, buffer);
  assert.equal(whole?.contentType, 'application/octet-stream');
  assert.equal(wholeBody({ status: 200, headers: {}, raw: new RawResponse('application/x-ndjson', ['{}\n']) }), null);
});

test('wholeBody: a body the serializer cannot write throws, before anything is sent', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => wholeBody({ status: 500, headers: {}, body: cyclic }), TypeError);
});
