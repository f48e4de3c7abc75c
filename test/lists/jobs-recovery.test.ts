import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { copyInitialisedPglite } from '../../harness/cache.js';
import type { ListManager } from '../../loaders/manager.js';
import { ListJobs } from '../../src/lists/jobs.js';
import { removeCommitLeftovers, removeUploadLeftovers } from '../../src/lists/leftovers.js';
import { ListOperations } from '../../src/lists/operations.js';
import { localNotifier } from '../../src/store/notify.js';
import { openPglite } from '../../src/store/pglite.js';
import { migrate } from '../../src/store/migrate.js';

/**
 * What a node does with the jobs and files an interruption left (issue #36 item 4), on a real
 * embedded database: a restarted node fails its own interrupted jobs, a change of role leaves its
 * live ones alone, a node that died for good has its jobs failed by the others' heartbeat, and
 * the files of jobs and commits no one will finish are removed.
 */
const log = pino({ level: 'silent' });
const dir = await mkdtemp(join(tmpdir(), 'jobs-recovery-'));
const db = await openPglite(await copyInitialisedPglite(join(dir, 'pglite')));
await migrate(db);
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const jobsOf = (node: string, staleMs?: number) => new ListJobs(db, { node, log, staleMs });
const statusOf = async (id: number) => (await jobsOf('reader').get(id))!.status;

test('a restarted node fails the jobs it was receiving or running, keeps its queued ones and leaves other nodes’ jobs', async () => {
  const before = jobsOf('n1');
  const receiving = await before.open('upload', 'r_receiving', null, {}, 'receiving');
  const queued = await before.open('upload', 'r_queued', null, { rows: 1, version: 'v' }, 'queued');
  const running = await before.open('upload', 'r_running', null, {}, 'queued');
  await db.query(`UPDATE list_jobs SET status = 'running' WHERE id = $1`, [running.id]);
  const other = await jobsOf('n2').open('delete', 'r_other', null, {}, 'receiving');

  const restarted = jobsOf('n1');
  assert.deepEqual((await restarted.abandonRunning()).sort(), [receiving.id, running.id].sort());
  const failed = (await restarted.get(running.id))!;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error, 'interrupted: node n1 restarted during the upload');
  assert.equal(failed.error_status, 503);
  assert.equal(await statusOf(receiving.id), 'failed');
  assert.equal(await statusOf(queued.id), 'queued', 'received in full: the leader still runs it');
  assert.equal(await statusOf(other.id), 'receiving');
  const next = await restarted.open('upload', 'r_running', null, {}, 'receiving');
  assert.equal(next.status, 'receiving', 'the list is free at once: no 409');
});

test('taking the lead leaves the node’s own live jobs alone (it used to fail them)', async () => {
  const jobs = jobsOf('n3');
  const live = await jobs.open('upload', 'l_live', null, {}, 'receiving');
  const ops = new ListOperations({
    jobs,
    manager: () => assert.fail('no job runs') as ListManager,
    isLeader: () => true,
    notifier: localNotifier(),
    dataDir: dir,
    log,
    limits: { listsPerCustomer: 1, rowsPerCustomer: 1 },
    pollMs: null,
  });
  await ops.start();
  await ops.stop();
  assert.equal(await statusOf(live.id), 'receiving');
});

test('a node that stopped heartbeating has its active jobs failed by another node’s heartbeat, unasked', async () => {
  const dead = await jobsOf('gone').open('refresh', 'h_dead', null, {}, 'queued');
  await db.query(`UPDATE list_jobs SET status = 'running', updated_at = now() - interval '1 hour' WHERE id = $1`, [
    dead.id,
  ]);
  const alive = jobsOf('alive', 4_000);
  const own = await alive.open('refresh', 'h_alive', null, {}, 'queued');
  alive.start();
  try {
    const job = await alive.wait(dead.id, 60_000);
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'interrupted: node gone stopped while it ran');
    assert.equal(await statusOf(own.id), 'queued', 'a node’s own heartbeaten job stays');
  } finally {
    alive.stop();
  }
});

test('upload files: those of active jobs stay, those of ended or unknown jobs go', async () => {
  const jobs = jobsOf('n4');
  const active = await jobs.open('upload', 'u_active', null, {}, 'receiving');
  const ended = await jobs.open('upload', 'u_ended', null, {}, 'receiving');
  await jobs.finish(ended.id, { error: 'x', status: 400 });
  const uploads = join(dir, 'uploads');
  await mkdir(uploads, { recursive: true });
  const files = [
    `job-${active.id}.ndjson`,
    `job-${active.id}.ndjson.body`,
    `job-${ended.id}.ndjson`,
    `job-${ended.id}.ndjson.body`,
    'job-999999.ndjson',
  ];
  for (const f of files) await writeFile(join(uploads, f), 'x');
  await removeUploadLeftovers(dir, jobs, log);
  assert.deepEqual((await readdir(uploads)).sort(), files.slice(0, 2).sort());
});

test('commit files: temporary files of writers that are gone go, a live writer’s and the committed files stay', async () => {
  const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    const root = join(dir, 'lists');
    const list = join(root, 'c_list');
    await mkdir(list, { recursive: true });
    const keep = ['state.json', 'snapshot-3.ndjson', `snapshot-4.ndjson.tmp-${live.pid}`];
    const gone = [
      `snapshot-4.ndjson.tmp-${process.pid}`,
      'keys-4.ndjson.tmp-999999999',
      'state.json.tmp-999999999',
      'source.csv.tmp-999999999-a1b2c3',
    ];
    for (const f of [...keep, ...gone]) await writeFile(join(list, f), 'x');
    await writeFile(join(root, 'sequence.json.tmp-999999999'), 'x');
    await writeFile(join(root, 'sequence.json'), 'x');
    await removeCommitLeftovers(dir, log);
    assert.deepEqual((await readdir(list)).sort(), keep.sort());
    assert.deepEqual((await readdir(root)).sort(), ['c_list', 'sequence.json']);
  } finally {
    live.kill();
    await once(live, 'exit');
  }
});
