import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { httpClient } from '../mcp/support.js';

/**
 * `metadata.explanation_text` in the answers of the running service (real lists), on the single
 * routes, batch lines and MCP tools alike.
 */
let svc: TestService;
let auth: Record<string, string>;
let mcp: Client | undefined;

const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
const SDN = 'OFAC Specially Designated Nationals (SDN) List';
const KIM = `All three name parts of 'KIM, Jong Un' (primary name of ${SDN} party 20157) agree; no birth date given; score 0.90, threshold 0.70.`;
const XBT_TEXT =
  'The Bitcoin address is listed on OFAC Sanctioned Digital Currency Addresses as Xiaobing YAN (program SDNTK).';

type Answer = { matches: { list: string; metadata: { explanation_text?: string } }[] };
const texts = (a: Answer) => a.matches.map((m) => [m.list, m.metadata.explanation_text]);

before(async () => {
  svc = await startTestService();
  auth = { authorization: `Bearer ${(await createCustomerToken(svc.url, 100, 'explain')).token}` };
});
after(async () => {
  await mcp?.close();
  await svc?.close();
});

test('/screen/name: the match says which name parts agree, the evidence, the score and the threshold', async () => {
  const res = await fetch(`${svc.url}/api/v1/screen/name?name=${encodeURIComponent('Kim Jong Un')}&lists=ofac_sdn`, {
    headers: auth,
  });
  assert.equal(res.status, 200);
  assert.deepEqual(texts((await res.json()) as Answer), [['ofac_sdn', KIM]]);
});

test('batch lines: an exact kind and a name item each carry their sentence', async () => {
  const res = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      items: [
        { type: 'crypto', value: XBT },
        { type: 'name', value: 'Kim Jong Un' },
        { type: 'email', value: 'someone@a.mailinator.com' },
      ],
      lists: 'ofac_crypto,ofac_sdn,disposable_email',
    }),
  });
  assert.equal(res.status, 200);
  const lines = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Answer);
  assert.deepEqual(texts(lines[0]), [
    ['ofac_sdn', `The Bitcoin address is listed on ${SDN} as YAN, Xiaobing (program SDNTK).`],
    ['ofac_crypto', XBT_TEXT],
  ]);
  assert.deepEqual(texts(lines[1]), [['ofac_sdn', KIM]]);
  assert.deepEqual(texts(lines[2]), [
    [
      'disposable_email',
      'The e-mail address matched Disposable E-mail Domains by its domain: listed domain mailinator.com, a parent of a.mailinator.com.',
    ],
  ]);
});

test('MCP: the screen_name tool answers the same sentence', async () => {
  mcp = await httpClient(svc.url, auth);
  const result = (await mcp.callTool({
    name: 'screen_name',
    arguments: { name: 'Kim Jong Un', lists: 'ofac_sdn' },
  })) as CallToolResult;
  assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
  assert.deepEqual(texts(result.structuredContent as Answer), [['ofac_sdn', KIM]]);
});
