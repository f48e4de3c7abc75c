import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../../harness/service.js';
import { SHARED_DATA } from '../../harness/paths.js';
import { cli } from '../support/cli.js';

/**
 * Import while serving (issue #20 item 6): a bounded load runs while `lists import` brings a
 * changed list into the running service. The CLI goes through the service (found in
 * DATA_DIR/service.json, with the local operator key it wrote there: no ADMIN_KEY in the CLI's
 * environment), so the ingesting node commits and serves the version itself: no request fails,
 * /readyz answers 200 throughout, and the new value is served within 5 s of the command's end.
 */
const scratch = mkdtempSync(join(tmpdir(), 'import-serving-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const LISTED_ADDRESS = '0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c';
const NEW_SITE = 'import-while-serving.example';

test('lists import into a running service: no failed request, /readyz 200 throughout, the new version served within 5 s', async () => {
  const dataDir = await prepareDataDir();
  const { child, port } = await spawnService(testEnv(dataDir, { LOG_LEVEL: 'info' }));
  const base = `http://127.0.0.1:${port}`;
  try {
    while ((await fetch(`${base}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 100));
    const { token } = await createCustomerToken(base, 10_000_000, 'Load');
    const advert = JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')) as {
      pid: number;
      url: string;
      operator_key: string;
    };
    assert.deepEqual([advert.pid, advert.url], [child.pid, base]);
    assert.match(advert.operator_key, /^op_[A-Za-z0-9_-]{32}$/);
    assert.equal(statSync(join(dataDir, 'service.json')).mode & 0o777, 0o600);

    const source = join(scratch, 'source');
    mkdirSync(join(source, 'web'), { recursive: true });
    const original = readFileSync(join(SHARED_DATA, 'web', 'ofac-sdn-websites-and-emails.txt'), 'utf8');
    writeFileSync(join(source, 'web', 'ofac-sdn-websites-and-emails.txt'), `${original.trimEnd()}\n${NEW_SITE}\n`);

    // The load: workers screening a listed address, and /readyz polled, until told to stop.
    let stop = false;
    const failures: string[] = [];
    let requests = 0;
    const worker = async () => {
      while (!stop) {
        try {
          const r = await fetch(`${base}/api/v1/screen/crypto/${LISTED_ADDRESS}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const body = (await r.json()) as { flagged?: boolean };
          if (r.status !== 200 || body.flagged !== true) failures.push(`screen ${r.status} ${JSON.stringify(body)}`);
        } catch (err) {
          failures.push(`screen: ${(err as Error).message}`);
        }
        requests++;
      }
    };
    const readiness: number[] = [];
    const ready = async () => {
      while (!stop) {
        try {
          readiness.push((await fetch(`${base}/readyz`)).status);
        } catch (err) {
          failures.push(`readyz: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const load = [...Array.from({ length: 8 }, worker), ready()];

    const imported = await cli(['lists', 'import', '--source-dir', source, 'ofac_sdn_web', '--json'], {
      DATA_DIR: dataDir,
    });
    const ended = performance.now();
    assert.equal(imported.code, 0, imported.stderr);
    const [outcome] = JSON.parse(imported.stdout) as { slug: string; result: string; listed: number; total: number }[];
    assert.deepEqual(
      [outcome.slug, outcome.result, outcome.listed, outcome.total],
      ['ofac_sdn_web', 'new_version', 1, 1548],
    );
    let served = false;
    while (performance.now() - ended < 5_000) {
      const r = await fetch(`${base}/api/v1/screen/website?address=${NEW_SITE}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (((await r.json()) as { flagged: boolean }).flagged) {
        served = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    stop = true;
    await Promise.all(load);
    assert.ok(served, 'the imported version is served within 5 s');
    assert.deepEqual(failures, []);
    assert.ok(requests > 50, `${requests} requests ran during the import`);
    assert.ok(
      readiness.length > 10 && readiness.every((s) => s === 200),
      `readyz: ${[...new Set(readiness)].join(', ')}`,
    );

    // The other list commands go through the service too.
    const env = { DATA_DIR: dataDir };
    const created = await cli(
      ['lists', 'create', 'cli_watch', '--name', 'CLI watch', '--type', 'risk', '--entity-types', 'email', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const file = join(scratch, 'rows.ndjson');
    writeFileSync(file, '{"entity_type":"email","value":"cli@example.org"}\n');
    const uploaded = await cli(['lists', 'upload', 'cli_watch', file, '--json'], env);
    assert.equal(uploaded.code, 0, uploaded.stderr);
    assert.deepEqual(
      (JSON.parse(uploaded.stdout) as { result: string; listed: number }[]).map((o) => [o.result, o.listed]),
      [['new_version', 1]],
    );
    const screened = await fetch(`${base}/api/v1/screen/email/cli@example.org`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(((await screened.json()) as { flagged: boolean }).flagged, true);
    writeFileSync(file, '{"entity_type":"email","value":"not an address"}\n');
    const bad = await cli(['lists', 'upload', 'cli_watch', file], env);
    assert.deepEqual(
      [bad.code, bad.stderr.trim().split('\n').at(-1)],
      [
        1,
        'upload: 422 [{"type":"value_error","loc":["body",1,"value"],"msg":"Value error, line 1: not a valid email","input":"not an address","ctx":{"line":1,"error":"not a valid email"}}]',
      ],
    );
    const deleted = await cli(['lists', 'delete', 'cli_watch', '--json'], env);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(
      (JSON.parse(deleted.stdout) as { delisted: number }[]).map((o) => o.delisted),
      [1],
    );
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
  assert.equal(existsSync(join(dataDir, 'service.json')), false, 'a clean shutdown removes the advertisement');
  rmSync(dataDir, { recursive: true, force: true });
});

test('without a running service (or with a stale advertisement) the list commands work on DATA_DIR itself', async () => {
  const dataDir = mkdtempSync(join(scratch, 'direct-'));
  writeFileSync(
    join(dataDir, 'service.json'),
    JSON.stringify({
      pid: 2 ** 22 + 12345,
      host: (await import('node:os')).hostname(),
      url: 'http://127.0.0.1:9',
      started_at: '2026-01-01T00:00:00Z',
      operator_key: 'op_x',
    }),
  );
  const env = { DATA_DIR: dataDir, SOURCE_DIR: SHARED_DATA };
  const fetched = await cli(['lists', 'fetch', 'ofac_sdn_web', '--json'], env);
  assert.equal(fetched.code, 0, fetched.stderr);
  assert.deepEqual(
    (JSON.parse(fetched.stdout) as { slug: string; result: string }[]).map((o) => [o.slug, o.result]),
    [['ofac_sdn_web', 'new_version']],
  );
  assert.equal(
    (
      await cli(
        ['lists', 'create', 'direct_list', '--name', 'Direct', '--type', 'crime', '--entity-types', 'website,email'],
        env,
      )
    ).code,
    0,
  );
  const file = join(dataDir, 'rows.csv');
  writeFileSync(file, 'entity_type,value\nwebsite,direct.example\nemail,x@direct.example\n');
  const up = await cli(['lists', 'upload', 'direct_list', file, '--json'], env);
  assert.equal(up.code, 0, up.stderr);
  assert.deepEqual(
    (JSON.parse(up.stdout) as { listed: number; total: number }[]).map((o) => [o.listed, o.total]),
    [[2, 2]],
  );
  writeFileSync(file, 'entity_type,value\nwebsite,ok.example\nname,Not A Website\n');
  const bad = await cli(['lists', 'upload', 'direct_list', file], env);
  assert.deepEqual(
    [bad.code, bad.stderr.trim().split('\n').at(-1)],
    [1, `${file}:3: this list holds website, email, not name`],
  );
  const shown = JSON.parse((await cli(['lists', 'show', '--json'], env)).stdout) as Record<
    string,
    { total: number; loaded: boolean }
  >;
  assert.deepEqual([shown.direct_list.total, shown.ofac_sdn_web.total, shown.ofac_sdn.loaded], [2, 1547, false]);
  const usage = await cli(['lists', 'create', 'x'], env);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^create needs --name NAME/);
});
