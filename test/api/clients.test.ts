import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { generateClientTypes } from '../../scripts/gen-client.js';
import type { paths } from '../generated/openapi.js';

/** A client generated from the OpenAPI document (openapi-typescript + openapi-fetch) against the live server. */
let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
});

test('the committed generated types match the served document (regenerate: node --import tsx scripts/gen-client.ts)', async () => {
  const fresh = await generateClientTypes(`${svc.url}/api/v1/openapi.json`);
  assert.equal(readFileSync(new URL('../generated/openapi.d.ts', import.meta.url), 'utf8'), fresh);
});

test('openapi-fetch client: screening with a token, public endpoints, typed errors', async () => {
  const { token } = await createCustomerToken(svc.url, 100);
  const client = createClient<paths>({ baseUrl: svc.url, headers: { authorization: `Bearer ${token}` } });
  const screened = await client.GET('/api/v1/screen/crypto/{address}', {
    params: { path: { address: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h' }, query: { lists: 'ofac_crypto' } },
  });
  assert.equal(screened.response.status, 200);
  assert.equal(screened.data?.sanctioned, true);
  assert.deepEqual(screened.data?.lists_checked, ['ofac_crypto']);
  const stats = await client.GET('/api/v1/stats');
  assert.equal(stats.data?.countries, 8);
  const search = await client.GET('/api/v1/search', { params: { query: { q: 'AB850901', limit: 1 } } });
  assert.equal(search.data?.[0]?.value, 'AB850901');
  const invalid = await client.GET('/api/v1/search', { params: { query: { q: 'ab' } } });
  assert.equal(invalid.response.status, 422);
  assert.deepEqual(invalid.error, {
    detail: [
      {
        type: 'string_too_short',
        loc: ['query', 'q'],
        msg: 'String should have at least 3 characters',
        input: 'ab',
        ctx: { min_length: 3 },
      },
    ],
  });
});
