import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createCustomerToken, startTestService, TEST_ADMIN_KEY, type TestService } from '../../harness/service.js';
import { settled } from '../../harness/list-jobs.js';
import { OpenApiChecker } from '../support/openapi.js';

/**
 * Screening as of a past date (issue #22 §4): answers before and after a delisting and a
 * relisting, the basis stated in headers and recorded in the audit rows, refusals before the
 * first version held, in the future and on the PEP proxy.
 */
let svc: TestService;
let api: OpenApiChecker;
let token: string;
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
const ADDR = '0x7777777777777777777777777777777777777701';
const ID = 'ZX4455667';

before(async () => {
  svc = await startTestService();
  api = await OpenApiChecker.load(svc.url);
  token = (await createCustomerToken(svc.url, 10_000, 'Auditor')).token;
});
after(async () => {
  await svc?.close();
});

const url = (path: string) => `${svc.url}/api/v1${path}`;
const screen = (path: string) => api.fetchJson(url(path), { headers: { authorization: `Bearer ${token}` } });

/** Commits a version of the operator list and returns its ingestion time and version. */
async function version(rows: { entity_type: string; value: string }[]): Promise<{ at: string; version: string }> {
  const r = await settled(
    svc.url,
    await api.fetchJson(url('/admin/lists/asof_watch/upload'), {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify(rows),
    }),
    ADMIN,
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const lists = (await api.fetchJson(url('/admin/lists'), { headers: ADMIN })).body as {
    slug: string;
    last_updated: string;
    version: string;
  }[];
  const l = lists.find((x) => x.slug === 'asof_watch')!;
  return { at: l.last_updated, version: l.version };
}

const before1ms = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();

test('as of a past date: values listed then and not yet removed, before and after a delisting and a relisting', async () => {
  const created = await settled(
    svc.url,
    await api.fetchJson(url('/admin/lists'), {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({
        slug: 'asof_watch',
        display_name: 'As-of watch',
        list_type: 'sanctions',
        entity_types: ['crypto_address', 'government_id'],
      }),
    }),
    ADMIN,
  );
  assert.equal(created.status, 200);
  const v1 = await version([
    { entity_type: 'crypto_address', value: ADDR },
    { entity_type: 'government_id', value: ID },
  ]);
  const v2 = await version([{ entity_type: 'government_id', value: ID }]);
  const v3 = await version([
    { entity_type: 'crypto_address', value: ADDR },
    { entity_type: 'government_id', value: ID },
  ]);
  assert.ok(v1.at < v2.at && v2.at < v3.at);

  const asOf = async (at: string, lists = '') => {
    const r = await screen(`/screen/crypto/${ADDR}?as_of=${encodeURIComponent(at)}${lists}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as { flagged: boolean; matches: { list: string; value: string }[]; lists_checked: string[] };
    return {
      flagged: body.flagged,
      matches: body.matches.map((m) => [m.list, m.value]),
      header: r.headers.get('x-as-of'),
      versions: r.headers.get('x-list-versions')!,
      checked: body.lists_checked,
    };
  };
  const during1 = await asOf(v1.at);
  assert.deepEqual([during1.flagged, during1.matches, during1.header], [true, [['asof_watch', ADDR]], v1.at]);
  assert.match(during1.versions, new RegExp(`(^|,)asof_watch=${v1.version}(,|$)`));
  const lastMoment = await asOf(before1ms(v2.at));
  assert.deepEqual([lastMoment.flagged, lastMoment.matches], [true, [['asof_watch', ADDR]]]);
  const delisted = await asOf(v2.at);
  assert.deepEqual([delisted.flagged, delisted.matches], [false, []]);
  assert.match(delisted.versions, new RegExp(`(^|,)asof_watch=${v2.version}(,|$)`));
  const relisted = await asOf(v3.at);
  assert.deepEqual([relisted.flagged, relisted.matches], [true, [['asof_watch', ADDR]]]);
  const now = await screen(`/screen/crypto/${ADDR}`);
  assert.equal(now.headers.get('x-as-of'), null);
  assert.equal((now.body as { flagged: boolean }).flagged, true);

  // Before the list existed (the registry's lists were all ingested before it was created) it is
  // left out of the default set, and naming it is a 422.
  const stats = (await api.fetchJson(url('/stats'))).body as {
    sources: Record<string, { last_updated: string | null }>;
  };
  const registryIngested = Object.values(stats.sources)
    .map((s) => s.last_updated)
    .filter((t): t is string => t !== null && t < v1.at)
    .sort()
    .at(-1)!;
  const early = await asOf(registryIngested);
  assert.deepEqual(
    [early.flagged, early.checked.includes('asof_watch'), early.checked.includes('ofac_sdn')],
    [false, false, true],
  );
  const named = await screen(`/screen/crypto/${ADDR}?lists=asof_watch&as_of=${encodeURIComponent(registryIngested)}`);
  assert.equal(named.status, 422);
  assert.match(
    (named.body as { detail: { msg: string }[] }).detail[0].msg,
    /^Value error, list asof_watch has no version before /,
  );

  // Fuzzy government IDs go through the shards, with every listing period, filtered by time.
  const near = 'ZX4455668';
  const idNow = (await screen(`/screen/id/${near}?lists=asof_watch&as_of=${encodeURIComponent(v2.at)}`)).body as {
    matches: { match: string; value: string }[];
  };
  assert.deepEqual(
    idNow.matches.map((m) => [m.match, m.value]),
    [['fuzzy', ID]],
  );

  // The batch: one basis for every item.
  const batch = await fetch(url('/screen/batch'), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      items: [
        { type: 'crypto', value: ADDR },
        { type: 'id', value: ID },
      ],
      lists: 'asof_watch',
      as_of: v2.at,
    }),
  });
  assert.equal(batch.status, 200);
  assert.equal(batch.headers.get('x-as-of'), v2.at);
  assert.equal(batch.headers.get('x-list-versions'), `asof_watch=${v2.version}`);
  const lines = (await batch.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { flagged: boolean });
  assert.deepEqual(
    lines.map((l) => l.flagged),
    [false, true],
  );

  // Each audit row records the version screened against and the as-of time.
  let trail: { items: { matched_value: string; list: string; list_version: string; as_of: string | null }[] };
  do {
    trail = (
      await api.fetchJson(url('/account/audit?list=asof_watch&limit=1000'), {
        headers: { authorization: `Bearer ${token}` },
      })
    ).body as typeof trail;
  } while (trail.items.length < 6);
  const rows = trail.items
    .map((i) => [i.matched_value, i.list_version, i.as_of])
    .sort((a, b) => String(a).localeCompare(String(b)));
  assert.deepEqual(
    rows,
    [
      [ADDR, v1.version, v1.at],
      [ADDR, v1.version, before1ms(v2.at)],
      [ADDR, v3.version, null],
      [ADDR, v3.version, v3.at],
      [ID, v2.version, v2.at],
      [ID, v2.version, v2.at],
    ].sort((a, b) => String(a).localeCompare(String(b))),
  );
});

test('as_of is refused with a 422 before the first version held, in the future, when malformed, and by the PEP proxy', async () => {
  const old = await screen(`/screen/crypto/${ADDR}?as_of=2001-01-01T00:00:00Z`);
  assert.equal(old.status, 422);
  assert.match(
    (old.body as { detail: { msg: string; loc: string[] }[] }).detail[0].msg,
    /^Value error, as_of is before the first version the service holds \(\d{4}-/,
  );
  assert.deepEqual((old.body as { detail: { loc: string[] }[] }).detail[0].loc, ['query', 'as_of']);
  const future = await screen(`/screen/email/a@example.org?as_of=${new Date(Date.now() + 86_400_000).toISOString()}`);
  assert.deepEqual(
    [future.status, (future.body as { detail: { msg: string }[] }).detail[0].msg],
    [422, 'Value error, as_of is in the future'],
  );
  const malformed = await screen('/screen/country/IR?as_of=yesterday');
  assert.equal(malformed.status, 422);
  assert.deepEqual((malformed.body as { detail: { loc: string[] }[] }).detail[0].loc, ['query', 'as_of']);
  const pep = await screen('/screen/pep?name=Mike%20Rogers&as_of=2026-01-01T00:00:00Z');
  assert.equal(pep.status, 422);
  assert.match(
    (pep.body as { detail: { msg: string }[] }).detail[0].msg,
    /as_of is not supported here: PEP screening asks a live dataset/,
  );
  const usage = (await api.fetchJson(url('/account'), { headers: { authorization: `Bearer ${token}` } })).body as {
    quota: { used: number };
  };
  const again = await screen(`/screen/crypto/${ADDR}?as_of=2001-01-01T00:00:00Z`);
  assert.equal(again.status, 422);
  const after = (await api.fetchJson(url('/account'), { headers: { authorization: `Bearer ${token}` } })).body as {
    quota: { used: number };
  };
  assert.equal(after.quota.used, usage.quota.used, 'a refused as_of costs nothing');
});

test('/screen/name as of a past date: a name of an uploaded list (no party record) before and after its delisting and relisting; name batch items too', async () => {
  const created = await settled(
    svc.url,
    await api.fetchJson(url('/admin/lists'), {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({
        slug: 'asof_names',
        display_name: 'As-of names',
        list_type: 'sanctions',
        entity_types: ['name'],
      }),
    }),
    ADMIN,
  );
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const upload = async (rows: { entity_type: string; value: string }[]) => {
    const r = await settled(
      svc.url,
      await api.fetchJson(url('/admin/lists/asof_names/upload'), {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify(rows),
      }),
      ADMIN,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const l = (
      (await api.fetchJson(url('/admin/lists'), { headers: ADMIN })).body as {
        slug: string;
        last_updated: string;
        version: string;
      }[]
    ).find((x) => x.slug === 'asof_names')!;
    return { at: l.last_updated, version: l.version };
  };
  const NAME = 'Zebulon Quartermaine-Okonkwo';
  const v1 = await upload([{ entity_type: 'name', value: NAME }]);
  const v2 = await upload([{ entity_type: 'name', value: 'Someone Else Entirely' }]);
  const v3 = await upload([{ entity_type: 'name', value: NAME }]);
  const asOf = async (at: string | null) => {
    const r = await screen(
      `/screen/name?name=${encodeURIComponent('Zebulon Quartermain Okonkwo')}${at ? `&as_of=${encodeURIComponent(at)}` : ''}`,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as {
      lists_checked: string[];
      matches: { list: string; value: string; match: string; metadata: { id: string } }[];
    };
    return {
      checked: body.lists_checked.includes('asof_names'),
      matches: body.matches.filter((m) => m.list === 'asof_names').map((m) => [m.value, m.match]),
      header: r.headers.get('x-as-of'),
      versions: r.headers.get('x-list-versions')!,
    };
  };
  const during = await asOf(v1.at);
  assert.deepEqual([during.checked, during.matches, during.header], [true, [[NAME, 'fuzzy']], v1.at]);
  assert.match(during.versions, new RegExp(`(^|,)asof_names=${v1.version}(,|$)`));
  // The default lists of a name screening are the sanctions lists carrying names: not the crypto-only watch list.
  assert.ok(!during.versions.includes('asof_watch='));
  assert.deepEqual((await asOf(v2.at)).matches, []);
  assert.deepEqual((await asOf(v3.at)).matches, [[NAME, 'fuzzy']]);
  const now = await asOf(null);
  assert.deepEqual([now.matches, now.header], [[[NAME, 'fuzzy']], null]);

  const batch = await fetch(url('/screen/batch'), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      items: [
        { type: 'name', value: NAME },
        { type: 'name', value: NAME, party_type: 'person' },
      ],
      lists: 'asof_names',
      as_of: v2.at,
    }),
  });
  assert.equal(batch.status, 200);
  assert.equal(batch.headers.get('x-list-versions'), `asof_names=${v2.version}`);
  const lines = (await batch.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { flagged: boolean });
  assert.deepEqual(
    lines.map((l) => l.flagged),
    [false, false],
  );
  const batch3 = await fetch(url('/screen/batch'), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ items: [{ type: 'name', value: NAME }], as_of: v3.at }),
  });
  const [line] = (await batch3.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { lists_checked: string[]; matches: { list: string }[] });
  assert.ok(line.lists_checked.includes('asof_names') && line.matches.some((m) => m.list === 'asof_names'));
});
