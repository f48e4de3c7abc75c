import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/service.js';
import { nodeIdentity } from '../../src/store/node-identity.js';
import { createCustomerToken, prepareDataDir, startTestService, testEnv } from '../../harness/service.js';

/**
 * Issue #39: a new name threshold re-screens the customer's whole book as a job (PATCH /account
 * answers `rescreen_job`, GET /account/subjects/rescreens/{id} its progress); its new matches open
 * alerts, it costs no credit, the job is the customer's own, and a restarted node fails the
 * re-screens it left running.
 */

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function client(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
}

const alertsOf = async (api: ReturnType<typeof client>) =>
  ((await api('GET', '/account/alerts?limit=100')).body.items as Body[])
    .map((a) => [a.subject.external_id, a.list, a.matched_value, a.score])
    .sort((x, y) => `${x[0]}${x[1]}`.localeCompare(`${y[0]}${y[1]}`));

// "Eric Bade" against ERIC BADEGE (UN CDi.001, and OFAC's SDN list as "BADEGE, Eric"): 0.724 on
// the UN list, 0.675 on OFAC's, so the threshold 0.7 alerts the first only and 0.6 both.
const UN = ['LISTED', 'un_sc', 'ERIC BADEGE', 0.7240044110897311];
const OFAC = ['LISTED', 'ofac_sdn', 'BADEGE, Eric', 0.6752993071643896];

test('a new name threshold re-screens the whole book as a job and opens the new alerts', async () => {
  const svc = await startTestService();
  try {
    const alice = client(svc.url, (await createCustomerToken(svc.url, 100, 'book A')).token);
    const bob = client(svc.url, (await createCustomerToken(svc.url, 100, 'book B')).token);
    const book = {
      LISTED: { type: 'person', names: ['Eric Bade'], birth_date: '1971', countries: ['CD'] },
      'U-1': { type: 'person', names: ['Wilhelmina Featherstonehaugh'], birth_date: '1984-02-29' },
      'U-2': { type: 'person', names: ['Cornelius Quigglesworth'] },
      'U-3': { type: 'organization', names: ['Blue Heron Bakery Ltd'], countries: ['NZ'] },
    };
    for (const [id, subject] of Object.entries(book))
      assert.equal((await alice('PUT', `/account/subjects/${id}`, subject)).status, 201);
    assert.deepEqual(await alertsOf(alice), [UN]);
    const used = (await alice('GET', '/account')).body.quota.used;
    assert.equal(used, 4);

    const patch = await alice('PATCH', '/account', { name_threshold: 0.6 });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.name_threshold, 0.6);
    const id = patch.body.rescreen_job;
    assert.equal(typeof id, 'number');

    let job: Body;
    do {
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = (await alice('GET', `/account/subjects/rescreens/${id}`)).body;
    } while (job.state === 'running');
    assert.equal(typeof job.created_at, 'string');
    assert.equal(typeof job.finished_at, 'string');
    assert.deepEqual(
      { ...job, created_at: '', finished_at: '' },
      {
        id,
        kind: 'rescreen',
        state: 'done',
        rows_read: 4,
        total: 4,
        taken: 0,
        refused: 0,
        refused_rows: [],
        // The UN alert was open already: only OFAC's is new.
        alerts_opened: 1,
        error: null,
        created_at: '',
        finished_at: '',
      },
    );
    assert.deepEqual(await alertsOf(alice), [OFAC, UN]);
    assert.equal((await alice('GET', '/account/subjects/LISTED')).body.open_alerts, 2);
    // Screening the book again is included in the price.
    assert.equal((await alice('GET', '/account')).body.quota.used, used);

    const foreign = await bob('GET', `/account/subjects/rescreens/${id}`);
    assert.equal(foreign.status, 404);
    assert.equal((await alice('GET', `/account/subjects/rescreens/${id + 1}`)).status, 404);
    // An import job's id is not a re-screen's.
    assert.equal((await alice('GET', `/account/subjects/imports/${id}`)).status, 404);

    const same = await alice('PATCH', '/account', { name_threshold: 0.6 });
    assert.deepEqual([same.status, same.body.rescreen_job], [200, null]);
    // An empty book has nothing to re-screen.
    const empty = await bob('PATCH', '/account', { name_threshold: 0.9 });
    assert.deepEqual([empty.status, empty.body.name_threshold, empty.body.rescreen_job], [200, 0.9, null]);

    const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as Body;
    const op = doc.paths['/api/v1/account/subjects/rescreens/{id}'].get;
    assert.equal(op.operationId, 'subjectsRescreenJob');
    assert.equal(op.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/SubjectJob');
    assert.ok(op.responses['404']);
  } finally {
    await svc.close();
  }
});

test('a restarted node fails its own running re-screens; another node’s stay running', async () => {
  const dataDir = await prepareDataDir();
  try {
    const config = loadConfig(testEnv(dataDir));
    const first = await createService(config);
    const c = await createCustomerToken(`http://127.0.0.1:${await first.listen()}`, 10, 'Restart');
    const node = nodeIdentity(dataDir, undefined);
    // What a crash mid-re-screen leaves: its job running under this node.
    const { rows } = await first.db.query<{ id: string }>(
      `INSERT INTO subject_jobs (customer_id, kind, node_id, rows_read, total) VALUES
         ($1, 'rescreen', $2, 5000, 9000), ($1, 'rescreen', 'another-node', 10, 20) RETURNING id::text AS id`,
      [c.customerId, node],
    );
    const [mine, theirs] = rows.map((r) => Number(r.id));
    await first.close();

    const second = await createService(config);
    try {
      const api = client(`http://127.0.0.1:${await second.listen()}`, c.token);
      const failed = (await api('GET', `/account/subjects/rescreens/${mine}`)).body;
      assert.deepEqual(
        [failed.state, failed.error, failed.rows_read, failed.total],
        ['failed', 'the node running it stopped; change the name threshold to start another', 5000, 9000],
      );
      assert.equal(typeof failed.finished_at, 'string');
      const running = (await api('GET', `/account/subjects/rescreens/${theirs}`)).body;
      assert.deepEqual([running.state, running.error, running.finished_at], ['running', null, null]);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
