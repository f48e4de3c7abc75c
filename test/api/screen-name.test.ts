import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { OpenApiChecker } from '../support/openapi.js';
import { httpClient } from '../mcp/support.js';

/**
 * `/screen/name` on the real lists (OFAC SDN, OFAC consolidated, UN; EU and UK have no files in
 * ../shared/data): parties as matches with their metadata and explanation, the evidence rules,
 * validation, and the same answer over REST, tRPC, MCP and batch, each metered and audited.
 * Every REST answer is also checked against the served OpenAPI document.
 */
let svc: TestService;
let api: OpenApiChecker;
let auth: Record<string, string>;

before(async () => {
  svc = await startTestService();
  api = await OpenApiChecker.load(svc.url);
  auth = { authorization: `Bearer ${(await createCustomerToken(svc.url, 10_000)).token}` };
});
after(async () => {
  await svc?.close();
});

interface Match {
  list: string;
  match: string;
  value: string;
  source_url: string | null;
  metadata: Record<string, unknown> & {
    id: string;
    score: number;
    explanation: Record<string, { effect: string; change: number }> & { name_score: number };
  };
}
interface Answer {
  value: string;
  flagged: boolean;
  sanctioned: boolean;
  lists_checked: string[];
  matches: Match[];
}

const screen = async (query: string, headers = auth): Promise<{ status: number; body: Answer }> => {
  const res = await api.fetchJson(`${svc.url}/api/v1/screen/name?${query}`, { headers });
  return { status: res.status, body: res.body as Answer };
};

/** The sanctions lists of the default set that have names here. */
const NAME_LISTS = ['ofac_sdn', 'ofac_consolidated', 'un_sc', 'ofac_crypto'];

test('a listed person: one match per party, the party as metadata, best first', async () => {
  const { status, body } = await screen('name=Saddam%20Hussein%20al-Tikriti');
  assert.equal(status, 200);
  assert.equal(body.value, 'Saddam Hussein al-Tikriti');
  assert.deepEqual(body.lists_checked, NAME_LISTS);
  assert.equal(body.flagged, true);
  assert.equal(body.sanctioned, true);
  const ids = body.matches.map((m) => m.metadata.id);
  assert.deepEqual(ids.slice(0, 2).sort(), ['ofac_sdn:7843', 'un_sc:IQi.001']);
  assert.equal(new Set(ids).size, ids.length);
  const un = body.matches.find((m) => m.metadata.id === 'un_sc:IQi.001')!;
  assert.deepEqual(
    { list: un.list, match: un.match, value: un.value, source_url: un.source_url },
    {
      list: 'un_sc',
      match: 'exact',
      value: 'SADDAM HUSSEIN AL-TIKRITI',
      source_url: 'https://main.un.org/securitycouncil/en/content/un-sc-consolidated-list',
    },
  );
  const m = un.metadata;
  assert.deepEqual(
    [m.caption, m.name, m.party_type, m.score, m.reference_number, m.birth_dates, m.programs],
    ['SADDAM HUSSEIN AL-TIKRITI', 'SADDAM HUSSEIN AL-TIKRITI', 'person', 1, 'IQi.001', ['1937-04-28'], ['Iraq']],
  );
  assert.ok((m.aliases as { name: string }[]).some((a) => a.name === 'Abu Ali'));
  assert.deepEqual(m.explanation, {
    name_score: 1,
    birth_date: { effect: 'not_compared', change: 0 },
    country: { effect: 'not_compared', change: 0 },
    party_type: { effect: 'not_compared', change: 0 },
    weak_names_left_out: 0,
  });
  const scores = body.matches.map((x) => x.metadata.score);
  assert.deepEqual(
    scores,
    [...scores].sort((a, b) => b - a),
  );
  assert.ok(scores.every((s) => s >= 0.7));
  const sdn = body.matches.find((x) => x.metadata.id === 'ofac_sdn:7843')!;
  assert.equal(sdn.metadata.sdn_name, 'AL-TIKRITI, Saddam Hussein');
});

test('birth date and country are evidence: agreement raises, a conflict lowers below the threshold, another type excludes', async () => {
  // UN CDi.001 ERIC BADEGE, born 1971, Congolese; the query's typo keeps it below 1.
  const base = 'name=Erik%20Badege&lists=un_sc';
  const plain = (await screen(base)).body.matches[0];
  assert.equal(plain.metadata.id, 'un_sc:CDi.001');
  const agrees = (await screen(`${base}&birth_date=1971&country=CD`)).body.matches[0];
  assert.equal(agrees.metadata.id, 'un_sc:CDi.001');
  assert.ok(agrees.metadata.score > plain.metadata.score);
  assert.equal(agrees.metadata.explanation.birth_date.effect, 'agrees');
  assert.equal(agrees.metadata.explanation.country.effect, 'agrees');
  assert.ok(agrees.metadata.explanation.birth_date.change > 0 && agrees.metadata.explanation.country.change > 0);
  assert.equal(agrees.metadata.explanation.name_score, plain.metadata.score);
  const conflict = await screen(`${base}&birth_date=1985-06-01`);
  assert.deepEqual(conflict.body.matches, []);
  const low = (await screen(`${base}&birth_date=1985-06-01&threshold=0.3`)).body.matches[0];
  assert.equal(low.metadata.explanation.birth_date.effect, 'conflicts');
  assert.ok(low.metadata.score < 0.7);
  const near = (await screen(`${base}&birth_date=1972`)).body.matches[0];
  assert.equal(near.metadata.explanation.birth_date.effect, 'near');
  assert.equal(near.metadata.score, plain.metadata.score);
  assert.deepEqual((await screen(`${base}&party_type=organization`)).body.matches, []);
  const person = (await screen(`${base}&party_type=person`)).body.matches[0];
  assert.equal(person.metadata.explanation.party_type.effect, 'agrees');
});

test('a one-token name matches a person only exactly and with supporting evidence', async () => {
  const { body } = await screen('name=Badege&lists=un_sc');
  assert.deepEqual(body.matches, []);
});

test('threshold and limit', async () => {
  const all = (await screen('name=Mohammed%20Ali&threshold=0.5&limit=25')).body.matches;
  assert.ok(all.length > 5 && all.length <= 25);
  const two = (await screen('name=Mohammed%20Ali&threshold=0.5&limit=2')).body.matches;
  assert.deepEqual(
    two.map((m) => m.metadata.id),
    all.slice(0, 2).map((m) => m.metadata.id),
  );
  const strict = (await screen('name=Mohammed%20Ali&threshold=0.99&limit=25')).body.matches;
  assert.ok(strict.every((m) => m.metadata.score >= 0.99));
});

test('no match: flagged and sanctioned false, lists_checked filled', async () => {
  const { body } = await screen('name=Jane%20Wilkinson-Smythe');
  assert.deepEqual(body, {
    value: 'Jane Wilkinson-Smythe',
    flagged: false,
    sanctioned: false,
    lists_checked: NAME_LISTS,
    matches: [],
  });
});

test('bad input: 422 with the parameter, unknown list 400, no credit charged', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 10);
  const headers = { authorization: `Bearer ${token}` };
  const cases: [string, string, string][] = [
    ['', 'name', 'missing'],
    ['name=A', 'name', 'string_too_short'],
    [`name=${'x'.repeat(201)}`, 'name', 'string_too_long'],
    ['name=Ali%20Hassan&birth_date=1970-13-01', 'birth_date', 'value_error'],
    ['name=Ali%20Hassan&birth_date=70', 'birth_date', 'string_pattern_mismatch'],
    ['name=Ali%20Hassan&country=Atlantis', 'country', 'value_error'],
    ['name=Ali%20Hassan&threshold=1.5', 'threshold', 'less_than_equal'],
    ['name=Ali%20Hassan&threshold=high', 'threshold', 'float_parsing'],
    ['name=Ali%20Hassan&limit=26', 'limit', 'less_than_equal'],
    ['name=Ali%20Hassan&limit=0', 'limit', 'greater_than_equal'],
    ['name=Ali%20Hassan&party_type=company', 'party_type', 'literal_error'],
  ];
  for (const [query, field, type] of cases) {
    const res = await fetch(`${svc.url}/api/v1/screen/name?${query}`, { headers });
    assert.equal(res.status, 422, query);
    const detail = ((await res.json()) as { detail: { loc: string[]; type: string }[] }).detail[0];
    assert.deepEqual([detail.loc, detail.type], [['query', field], type], query);
  }
  const unknown = await fetch(`${svc.url}/api/v1/screen/name?name=Ali%20Hassan&lists=nope`, { headers });
  assert.equal(unknown.status, 400);
  const { audit } = svc.service;
  await audit.usage.flush();
  const usage = await (
    await audit.client.query({
      query: `SELECT count() AS n FROM screening.usage WHERE customer_id = ${customerId}`,
      format: 'JSONEachRow',
    })
  ).json();
  assert.deepEqual(usage, [{ n: 0 }]);
});

test('without credentials: the x402 challenge (402)', async () => {
  const res = await fetch(`${svc.url}/api/v1/screen/name?name=Ali%20Hassan`);
  assert.equal(res.status, 402);
});

test('REST, tRPC, MCP and a batch item answer alike; one credit each (a batch item one); every match audited', async () => {
  const { customerId, token } = await createCustomerToken(svc.url, 100);
  const headers = { authorization: `Bearer ${token}` };
  const params = { name: 'Saddam Hussein', birth_date: '1937', country: 'Iraq' };
  const rest = (await screen(new URLSearchParams(params).toString(), headers)).body;
  assert.ok(rest.matches.length >= 2);
  assert.equal(rest.matches[0].metadata.explanation.birth_date.effect, 'agrees');

  type Client = { screen: { name: { query: (input: unknown) => Promise<unknown> } } };
  const trpc = createTRPCClient({ links: [httpBatchLink({ url: `${svc.url}/trpc`, headers })] }) as unknown as Client;
  assert.deepEqual(await trpc.screen.name.query(params), rest);

  const mcp = await httpClient(svc.url, headers);
  const tool = (await mcp.callTool({ name: 'screen_name', arguments: params })) as CallToolResult;
  await mcp.close();
  assert.equal(tool.isError ?? false, false);
  assert.deepEqual(tool.structuredContent, rest);

  const batch = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      items: [
        { type: 'name', value: params.name, birth_date: params.birth_date, country: params.country },
        { type: 'crypto', value: '0x000000000000000000000000000000000000dEaD', birth_date: '1937' },
        { type: 'name', value: 'X' },
        { type: 'name', value: 'Jane Wilkinson-Smythe', party_type: 'ship' },
      ],
    }),
  });
  assert.equal(batch.status, 200);
  const lines = (await batch.text())
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Answer & { detail?: { loc: (string | number)[]; type: string }[] });
  assert.deepEqual(lines[0], rest);
  assert.deepEqual(
    lines[1].detail!.map((d) => [d.loc, d.type]),
    [[['body', 'items', 1, 'birth_date'], 'value_error']],
  );
  assert.deepEqual(
    lines[2].detail!.map((d) => [d.loc, d.type]),
    [[['body', 'items', 2, 'value'], 'value_error']],
  );
  assert.deepEqual(
    lines[3].detail!.map((d) => [d.loc, d.type]),
    [[['body', 'items', 3, 'party_type'], 'literal_error']],
  );

  const { audit } = svc.service;
  await audit.usage.flush();
  await audit.matches.flush();
  const q = async <T>(sql: string) =>
    (await (await audit.client.query({ query: sql, format: 'JSONEachRow' })).json()) as T[];
  const usage = await q<{ endpoint: string; credits: string }>(
    `SELECT endpoint, toUInt32(credits) AS credits FROM screening.usage WHERE customer_id = ${customerId} ORDER BY endpoint`,
  );
  assert.deepEqual(
    usage.map((u) => `${u.endpoint}:${u.credits}`),
    ['screen.batch:1', 'screen.name:1', 'screen.name:1', 'screen.name:1'],
  );
  const rows = await q<{
    endpoint: string;
    list: string;
    match: string;
    matched_value: string;
    screened_value: string;
  }>(
    `SELECT endpoint, list, match, matched_value, screened_value FROM screening.audit_matches WHERE customer_id = ${customerId}`,
  );
  const expected = rest.matches.map((m) => `${m.list}:${m.match}:${m.value}:${params.name}`).sort();
  for (const endpoint of ['screen.name', 'screen.batch']) {
    const got = rows
      .filter((r) => r.endpoint === endpoint)
      .map((r) => `${r.list}:${r.match}:${r.matched_value}:${r.screened_value}`);
    assert.deepEqual(
      got.sort(),
      endpoint === 'screen.name' ? [...expected, ...expected, ...expected].sort() : expected,
      endpoint,
    );
  }
});
