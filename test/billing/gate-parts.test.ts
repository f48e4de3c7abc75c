import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { endpoint, type RequestMeta } from '../../src/core/endpoint.js';
import { HttpError } from '../../src/core/errors.js';
import { matchRows, quotaUsageRow } from '../../src/billing/charge-rows.js';
import { adminAuthenticator } from '../../src/billing/gate-admin.js';
import { bearer } from '../../src/billing/gate-credentials.js';
import { TOKEN_LENGTH } from '../../src/billing/token-format.js';

const meta = (authorization?: string): RequestMeta => ({
  requestId: 'req-1',
  transport: 'rest',
  method: 'GET',
  url: 'http://localhost/v1/test',
  headers: authorization === undefined ? {} : { authorization },
  clientIp: '127.0.0.1',
});

describe('bearer', () => {
  test('reads the token of the usual spelling and of the spellings the regex allows', () => {
    const token = 'x'.repeat(TOKEN_LENGTH);
    assert.equal(bearer(`Bearer ${token}`), token);
    assert.equal(bearer('bearer \tabc  '), 'abc');
  });
  test('tells a missing header from a malformed one', () => {
    assert.equal(bearer(undefined), undefined);
    assert.equal(bearer(''), undefined);
    assert.equal(bearer('Basic abc'), null);
    assert.equal(bearer('Bearer a b'), null);
  });
});

describe('adminAuthenticator', () => {
  const status = (f: () => unknown): number => {
    try {
      f();
    } catch (err) {
      return (err as HttpError).status;
    }
    return 0;
  };
  test('accepts any of the keys set, refuses others with 401', () => {
    const admin = adminAuthenticator(['k-admin', undefined, 'k-local'], undefined);
    assert.deepEqual(admin(meta('Bearer k-admin')), admin(meta('Bearer k-local')));
    assert.deepEqual((admin(meta('Bearer k-local')) as { caller: unknown }).caller, { kind: 'admin', via: 'key' });
    assert.equal(
      status(() => admin(meta('Bearer k-other'))),
      401,
    );
    assert.equal(
      status(() => admin(meta())),
      401,
    );
  });
  test('without any key the admin API is disabled (503)', () => {
    assert.equal(
      status(() => adminAuthenticator([undefined, ''], undefined)(meta('Bearer x'))),
      503,
    );
  });
});

describe('charge rows', () => {
  const ep = endpoint({
    id: 'screen.test',
    method: 'GET',
    path: '/v1/test',
    access: 'metered',
    summary: 'test',
    tags: ['test'],
    input: z.object({}),
    output: z.object({}),
    handler: () => ({}),
  });
  test('a quota usage row carries the request, the customer and the credits', () => {
    assert.deepEqual(quotaUsageRow(ep, meta(), 7, 1000, 200, 3), {
      time: 1000,
      customer_id: 7,
      payer: '',
      request_id: 'req-1',
      endpoint: 'screen.test',
      status: 200,
      credits: 3,
      method: 'quota',
      amount: '0',
      tx_hash: '',
      network: '',
    });
  });
  test('an audit row per match', () => {
    const match = {
      screened_value: 'a',
      matched_value: 'A',
      list: 'ofac',
      list_type: 'sanctions' as const,
      match: 'exact',
      list_version: 'v1',
      as_of: null,
      evidence: {},
    };
    assert.deepEqual(matchRows(ep, meta(), 5, 7, '0xp', [match]), [
      { time: 5, customer_id: 7, payer: '0xp', request_id: 'req-1', endpoint: 'screen.test', ...match },
    ]);
  });
});
