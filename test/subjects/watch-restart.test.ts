import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { createCustomerToken, prepareDataDir, spawnService, testEnv, TEST_ADMIN_KEY } from '../../harness/service.js';
import { settled } from '../../harness/list-jobs.js';
import { openDb } from '../../src/store/open.js';
import { SubjectStore } from '../../src/subjects/store.js';
import type { SubjectRecord } from '../../src/subjects/model.js';
import { startReceiver } from '../webhooks/receiver.js';

/**
 * Issue #39: a list version is screened against the books exactly once across a crash. The
 * service is SIGKILLed while it streams a 50,000-subject book through a version naming three
 * subjects (early, middle, last); restarted on the same DATA_DIR, it resumes after the last
 * committed page. Each alert then exists once with one occurrence and one webhook event.
 * BOOK_PAGE_SIZE=25 makes the run 2,000 transactions long: long enough to be caught mid-way.
 */

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
const LIST = 'crash_ops';
const BOOK = 50_000;
const PLANTED = new Map([
  [100, 'Quendolyn Marisol Vantablack'],
  [25_000, 'Thaddeus Ignatius Morrowfield'],
  [49_990, 'Philippa Augustina Wrenworth'],
]);
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pu'];

/** A made-up name per number, its tokens far from the planted names. */
function filler(i: number): string {
  const word = (n: number) => {
    let s = '';
    for (let k = 0; k < 4; k++, n = Math.floor(n / 10)) s += SYLLABLES[n % 10];
    return s[0].toUpperCase() + s.slice(1);
  };
  return `${word(i)} ${word(i * 7 + 3)}`;
}

function subject(i: number): SubjectRecord {
  return {
    external_id: `S-${i}`,
    type: 'person',
    names: [PLANTED.get(i) ?? filler(i)],
    birth_date: null,
    countries: [],
    identifiers: [],
    values: { crypto: [], email: [], website: [] },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(100);
  }
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

type Alert = { id: number; occurrences: number; screened_value: string; subject: { external_id: string } | null };

test('SIGKILL mid-run: the restarted leader resumes the version and screens it once', async () => {
  const receiver = await startReceiver();
  const dataDir = await prepareDataDir();
  const env = testEnv(dataDir, { WEBHOOK_ALLOW_LOOPBACK: 'true', BOOK_PAGE_SIZE: '25', LOG_LEVEL: 'info' });
  let svc = await spawnService(env);
  try {
    let url = `http://127.0.0.1:${svc.port}`;
    const alice = await createCustomerToken(url, 1000, 'Alice');
    const headers = { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' };
    const hook = (await (
      await fetch(`${url}/api/v1/account/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.url('/hook') }),
      })
    ).json()) as { secret: string };
    receiver.secrets.set('/hook', hook.secret);
    const adminList = async (path: string, body: unknown) => {
      const res = await fetch(`${url}/api/v1/admin/lists${path}`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
    };
    const made = await adminList('', {
      slug: LIST,
      display_name: 'Crash operator list',
      list_type: 'sanctions',
      entity_types: ['name'],
    });
    assert.equal((await settled(url, made, ADMIN)).status, 200);
    const baseline = [{ entity_type: 'name', value: 'Baseline Person Zebediah' }];
    assert.equal((await settled(url, await adminList(`/${LIST}/upload`, baseline), ADMIN)).status, 200);
    await stop(svc.child, 'SIGTERM');

    // The book goes straight into the database, in id order (the planted subjects early, mid-way, last).
    let db = await openDb({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    const store = new SubjectStore(db, { maxPerCustomer: BOOK });
    for (let from = 0; from < BOOK; from += 5_000)
      await store.upsertMany(
        alice.customerId,
        Array.from({ length: 5_000 }, (_, k) => subject(from + k)),
      );
    await db.close();

    svc = await spawnService(env);
    url = `http://127.0.0.1:${svc.port}`;
    const version = [...baseline, ...[...PLANTED.values()].map((value) => ({ entity_type: 'name', value }))];
    // Answered at once (202): the job runs on, through the books.
    assert.equal((await adminList(`/${LIST}/upload?wait=0`, version)).status, 202);
    const alerts = async () =>
      ((await (await fetch(`${url}/api/v1/account/alerts?limit=100`, { headers })).json()) as { items: Alert[] }).items;
    await until('the first planted subject’s alert', 300, async () => ((await alerts()).length > 0 ? true : undefined));
    await stop(svc.child, 'SIGKILL');

    db = await openDb({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    const mid = await db.query<{ state: string; after_id: string; max: string }>(
      `SELECT state, after_id, (SELECT max(id) FROM subjects) AS max FROM book_runs
       WHERE list = $1 AND parties = 3`,
      [LIST],
    );
    await db.close();
    assert.equal(mid.rows.length, 1);
    assert.equal(mid.rows[0].state, 'running', 'killed mid-run');
    assert.ok(Number(mid.rows[0].after_id) > 0 && Number(mid.rows[0].after_id) < Number(mid.rows[0].max));

    svc = await spawnService(env);
    url = `http://127.0.0.1:${svc.port}`;
    const all = await until('the three alerts', 600, async () => {
      const got = await alerts();
      return got.length === 3 ? got : undefined;
    });
    assert.deepEqual(
      all.map((a) => [a.subject?.external_id, a.screened_value, a.occurrences]).sort(),
      [...PLANTED].map(([i, name]) => [`S-${i}`, name, 1]).sort(),
    );
    await until('three webhook events delivered', 120, async () => {
      const ids = new Set(receiver.received.filter((r) => r.body.type === 'subject.alert').map((r) => r.body.id));
      return ids.size >= 3 ? true : undefined;
    });
    await stop(svc.child, 'SIGTERM');

    db = await openDb({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    const events = await db.query<{ external_id: string; n: string }>(
      `SELECT subject->>'external_id' AS external_id, count(*) AS n FROM webhook_events
       WHERE type = 'subject.alert' GROUP BY 1 ORDER BY 1`,
    );
    const run = await db.query<{ state: string; alerts_opened: string }>(
      'SELECT state, alerts_opened FROM book_runs WHERE list = $1 AND parties = 3',
      [LIST],
    );
    await db.close();
    assert.deepEqual(
      events.rows.map((r) => [r.external_id, Number(r.n)]),
      [...PLANTED.keys()].map((i) => [`S-${i}`, 1]).sort(),
    );
    assert.deepEqual(
      run.rows.map((r) => [r.state, Number(r.alerts_opened)]),
      [['done', 3]],
    );
    assert.ok(receiver.received.filter((r) => r.body.type === 'subject.alert').every((r) => r.verified));
  } catch (err) {
    console.error(svc.output().slice(-4000));
    throw err;
  } finally {
    svc.child.kill('SIGKILL');
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
