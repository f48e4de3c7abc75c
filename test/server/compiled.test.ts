import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../../harness/service.js';
import { REPO_ROOT } from '../../harness/paths.js';

/**
 * `make run` serves the compiled build (dist/): it must start with the files it reads beside its
 * modules (SQL migrations, bundled list data) and its shard workers, and answer like the tsx run.
 */
test('the compiled service (dist/) starts, migrates, loads the lists, screens and serves the dashboard', async () => {
  for (const script of ['build.mjs', 'build-dashboard.mjs'])
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', script)], { cwd: REPO_ROOT, stdio: 'pipe' });
  const dataDir = await prepareDataDir({ migrated: false });
  const { child, port } = await spawnService(testEnv(dataDir, { ENGINE_SHARDS: '2', LOG_LEVEL: 'info' }), {
    compiled: true,
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    while ((await fetch(`${url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 100));
    const { token } = await createCustomerToken(url, 10);
    const auth = { authorization: `Bearer ${token}` };
    const crypto = (await (
      await fetch(`${url}/api/v1/screen/crypto/12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h`, { headers: auth })
    ).json()) as { sanctioned: boolean; matches: { list: string }[] };
    assert.equal(crypto.sanctioned, true);
    assert.deepEqual(
      crypto.matches.map((m) => m.list),
      ['ofac_sdn', 'ofac_crypto'],
    );
    const country = (await (await fetch(`${url}/api/v1/screen/country/Ukraine`, { headers: auth })).json()) as {
      matches: { match: string }[];
    };
    assert.ok(
      country.matches.some((m) => m.match === 'region'),
      'the bundled OFAC country programs are read',
    );
    const id = await fetch(`${url}/api/v1/screen/id/ABC123`, { headers: auth });
    assert.equal(id.status, 200, 'fuzzy IDs go through the shard workers');
    const search = await fetch(`${url}/api/v1/search?q=${encodeURIComponent('Xiaobing Yan')}`);
    assert.equal(((await search.json()) as { list: string }[])[0].list, 'ofac_sdn');
    const dashboard = await fetch(`${url}/dashboard/audit`);
    assert.equal(dashboard.status, 200, 'the dashboard is served from dist/dashboard');
    assert.match(await dashboard.text(), /<script type="module" crossorigin src="\/dashboard\/assets\/index-/);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
