import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Env } from '../../src/config.js';
import { createService, type Service } from '../../src/service.js';
import { createCustomerToken, prepareDataDir, testEnv, TEST_ADMIN_KEY } from '../../harness/service.js';
import { SHARED_DATA } from '../../harness/paths.js';

/**
 * Issue #38, "Evidence": a match's audit detail shows the match as the answer gave it, for every
 * kind, after its list moved to a version without the entry and after a restart on the same
 * DATA_DIR. The public lists move by a refresh from a copy of SOURCE_DIR without the entries, the
 * operator and private lists by a new upload, the PEP dataset by a restart on a file without the
 * person. The country designations are bundled with the service (no other version to move to):
 * that match only goes through the restart.
 */
type Obj = Record<string, unknown>;
type Match = Obj & { list: string; value: string; metadata?: Obj; source_url?: string | null };

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
const scratch = mkdtempSync(join(tmpdir(), 'audit-evidence-'));
let dataDir = '';
let service: Service | null = null;
let url = '';

async function start(env: Env = {}): Promise<void> {
  service = await createService(loadConfig(testEnv(dataDir, env)), { validateResponses: true });
  await service.lists().idle();
  url = `http://127.0.0.1:${await service.listen()}/api/v1`;
}

before(async () => {
  dataDir = await prepareDataDir();
  await start();
});
after(async () => {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Obj };
}

/** A list operation, waited for when the service answered 202 (a slow machine). */
async function listJob(path: string, headers: Record<string, string>, body: unknown, contentType?: string) {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: contentType ? { ...headers, 'content-type': contentType } : headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  let job = (await res.json()) as Obj & { id: number; status: string; results: Obj[] };
  assert.ok(res.status === 200 || res.status === 202, `${path}: ${res.status} ${JSON.stringify(job)}`);
  while (job.status !== 'done') {
    assert.notEqual(job.status, 'failed', JSON.stringify(job));
    await new Promise((r) => setTimeout(r, 200));
    job = (await call('GET', `/admin/lists/jobs/${job.id}`, headers)).body as typeof job;
  }
  assert.deepEqual(
    job.results.map((r) => r.result),
    ['new_version'],
    JSON.stringify(job),
  );
}

interface Screened {
  requestId: string;
  matches: Match[];
  versions: Map<string, string>;
}

async function screen(path: string, token: string): Promise<Screened> {
  const r = await call('GET', path, { authorization: `Bearer ${token}` });
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  const matches = r.body.matches as Match[];
  assert.ok(matches.length > 0, `${path} matches`);
  const versions = new Map(
    (r.headers.get('x-list-versions') ?? '')
      .split(',')
      .filter(Boolean)
      .map((p) => p.split('=') as [string, string]),
  );
  return { requestId: r.headers.get('x-request-id')!, matches, versions };
}

const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
const EMAIL = '1044064266@qq.com';
const WEBSITE = '1jabber.com';
const PASSPORT = '1084010';
const OPS_ADDRESS = '0x7777777777777777777777777777777777777701';
const PRIVATE_EMAIL = 'insider@example.net';
/** The SDN parties of the name, the XBT address and the passport. */
const SDN_PARTIES = ['20157', '25308', '2676'];

/** A copy of the OFAC files without `parties`' rows, and of the web list without `lines`. */
function sourceWithout(parties: string[], lines: string[]): string {
  const dir = join(scratch, 'source');
  cpSync(join(SHARED_DATA, 'ofac'), join(dir, 'ofac'), { recursive: true });
  for (const file of ['sdn.csv', 'alt.csv', 'add.csv']) {
    const text = readFileSync(join(dir, 'ofac', file), 'latin1');
    const kept = text.split('\n').filter((l) => !parties.some((p) => l.startsWith(`${p},`)));
    if (file === 'sdn.csv') assert.equal(text.split('\n').length - kept.length, parties.length);
    writeFileSync(join(dir, 'ofac', file), kept.join('\n'), 'latin1');
  }
  mkdirSync(join(dir, 'web'), { recursive: true });
  const web = readFileSync(join(SHARED_DATA, 'web', 'ofac-sdn-websites-and-emails.txt'), 'utf8');
  writeFileSync(
    join(dir, 'web', 'ofac-sdn-websites-and-emails.txt'),
    web
      .split('\n')
      .filter((l) => !lines.includes(l.trim()))
      .join('\n'),
  );
  return dir;
}

/** The PEP dataset without the records naming `name`. */
function pepWithout(name: string): string {
  const file = join(scratch, 'peps.jsonl');
  const text = readFileSync(join(SHARED_DATA, 'pep', 'us_congress_senzing.jsonl'), 'utf8');
  writeFileSync(
    file,
    text
      .split('\n')
      .filter((l) => !l.includes(`"NAME_FULL":"${name}"`))
      .join('\n'),
  );
  return file;
}

const key = (m: Obj) => JSON.stringify([m.list, m.value ?? m.caption, m.id ?? null]);

test('every kind’s audit detail keeps the evidence as answered, across list versions and a restart', async () => {
  const customer = await createCustomerToken(url.replace(/\/api\/v1$/, ''), 1000, 'evidence');
  const token = customer.token;
  const bearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  await call('POST', '/admin/lists', ADMIN, {
    slug: 'ops_evidence',
    display_name: 'Operator evidence list',
    list_type: 'sanctions',
    entity_types: ['crypto_address'],
  });
  await listJob(
    '/admin/lists/ops_evidence/upload',
    ADMIN,
    [
      { entity_type: 'crypto_address', value: OPS_ADDRESS, metadata: { case: 'OPS-1', note: 'tab\there "q"' } },
      { entity_type: 'crypto_address', value: '0x7777777777777777777777777777777777777702' },
    ],
    'application/json',
  );
  const created = await call('POST', '/account/lists', bearer, {
    name: 'insiders',
    display_name: 'Insiders',
    list_type: 'crime',
    entity_types: ['email'],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const privateList = `c${customer.customerId}.insiders`;
  await listJob(
    `/account/lists/${privateList}/upload`,
    bearer,
    [
      { entity_type: 'email', value: PRIVATE_EMAIL, metadata: { source: 'HR case 7' } },
      { entity_type: 'email', value: 'other@example.net' },
    ],
    'application/json',
  );

  const paths: Record<string, string> = {
    crypto: `/screen/crypto/${XBT}?lists=ofac_sdn`,
    email: `/screen/email/${EMAIL}?lists=ofac_sdn_web`,
    website: `/screen/website?address=${WEBSITE}&lists=ofac_sdn_web`,
    id: `/screen/id/${PASSPORT}?lists=ofac_sdn`,
    country: '/screen/country/Iran?lists=ofac_countries',
    name: `/screen/name?name=${encodeURIComponent('Kim Jong Un')}&lists=ofac_sdn`,
    pep: `/screen/pep?name=${encodeURIComponent('Mike Rogers')}`,
    operator: `/screen/crypto/${OPS_ADDRESS}?lists=ops_evidence`,
    private: `/screen/email/${PRIVATE_EMAIL}?lists=${privateList}`,
  };
  const screened = new Map<string, Screened>();
  for (const [kind, path] of Object.entries(paths)) screened.set(kind, await screen(path, token));
  const party = screened.get('name')!.matches[0];
  assert.equal(party.value, 'KIM, Jong Un');
  assert.equal(party.metadata?.id, 'ofac_sdn:20157');

  // Every list moves to a version without the entry (and the PEP dataset loses the person at the restart).
  await listJob('/admin/lists/ofac_sdn/refresh', ADMIN, {
    source_dir: sourceWithout(SDN_PARTIES, [EMAIL, WEBSITE]),
  });
  await listJob('/admin/lists/ofac_sdn_web/refresh', ADMIN, { source_dir: join(scratch, 'source') });
  await listJob(
    '/admin/lists/ops_evidence/upload',
    ADMIN,
    [{ entity_type: 'crypto_address', value: '0x7777777777777777777777777777777777777702' }],
    'application/json',
  );
  await listJob(
    `/account/lists/${privateList}/upload`,
    bearer,
    [{ entity_type: 'email', value: 'other@example.net' }],
    'application/json',
  );
  for (const kind of ['crypto', 'email', 'website', 'id', 'name', 'operator', 'private']) {
    const again = await call('GET', paths[kind], { authorization: `Bearer ${token}` });
    assert.deepEqual(again.body.matches, [], `${kind}: no longer listed`);
    const [list] = screened.get(kind)!.matches.map((m) => m.list);
    assert.notEqual(again.headers.get('x-list-versions'), null);
    assert.doesNotMatch(
      again.headers.get('x-list-versions')!,
      new RegExp(`(^|,)${list.replace('.', '\\.')}=${screened.get(kind)!.versions.get(list)}(,|$)`),
      `${kind}: a new version of ${list}`,
    );
  }

  await service!.close();
  service = null;
  await start({ PEP_LOCAL_FILE: pepWithout('Mike Rogers') });
  const pepNow = await call('GET', paths.pep, { authorization: `Bearer ${token}` });
  assert.deepEqual(pepNow.body.matches, [], 'pep: the person is no longer in the dataset');

  for (const [kind, s] of screened) {
    const detail = await call('GET', `/account/audit/requests/${s.requestId}`, { authorization: `Bearer ${token}` });
    assert.equal(detail.status, 200, `${kind}: ${JSON.stringify(detail.body)}`);
    const rows = (detail.body.matches as Obj[])
      .slice()
      .sort((a, b) => key(a.evidence as Obj).localeCompare(key(b.evidence as Obj)));
    const answered = s.matches.slice().sort((a, b) => key(a).localeCompare(key(b)));
    assert.equal(rows.length, answered.length, kind);
    for (const [i, m] of answered.entries()) {
      const row = rows[i];
      assert.deepEqual(row.evidence, m, `${kind}: the match as answered`);
      if (kind === 'pep') {
        const { source_url: _, ...candidate } = m;
        assert.deepEqual(row.metadata, candidate, 'pep: the candidate is its own metadata');
        assert.equal(row.list_version, '');
      } else {
        assert.deepEqual(row.metadata, m.metadata, `${kind}: metadata`);
        assert.equal(row.list_version, s.versions.get(m.list), `${kind}: the version screened against`);
      }
      assert.equal(row.source_url, m.source_url ?? null, `${kind}: source_url`);
      assert.equal(row.matched_value, kind === 'pep' ? m.caption : m.value);
    }
  }
  const name = (
    await call('GET', `/account/audit/requests/${screened.get('name')!.requestId}`, {
      authorization: `Bearer ${token}`,
    })
  ).body.matches as Obj[];
  assert.deepEqual(name[0].metadata, party.metadata);
  assert.equal(name[0].source_url, 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=20157');
});

test('a row stored before evidence was kept shows the listing looked up now, or the no-longer-listed null', async () => {
  const customer = await createCustomerToken(url.replace(/\/api\/v1$/, ''), 1000, 'legacy rows');
  const row = (requestId: string, list: string, value: string) => ({
    time: Date.now(),
    customer_id: customer.customerId,
    request_id: requestId,
    endpoint: 'screen.crypto',
    screened_value: value,
    matched_value: value,
    list,
    list_type: 'sanctions',
    match: 'exact',
  });
  // As the release before wrote them: no evidence column given, so it is ''.
  await service!.audit.client.insert({
    table: 'screening.audit_matches',
    values: [row('legacy-1', 'ofac_crypto', XBT), row('legacy-1', 'ops_gone', '0xgone')],
    format: 'JSONEachRow',
  });
  const detail = await call('GET', '/account/audit/requests/legacy-1', { authorization: `Bearer ${customer.token}` });
  assert.equal(detail.status, 200, JSON.stringify(detail.body));
  const [listed, gone] = detail.body.matches as Obj[];
  assert.deepEqual(
    [listed.list, listed.evidence, listed.source_url, (listed.metadata as Obj).sdn_name],
    ['ofac_crypto', null, 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=25308', 'Xiaobing YAN'],
  );
  assert.deepEqual([gone.list, gone.evidence, gone.metadata, gone.source_url], ['ops_gone', null, null, null]);
});
