import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openPglite } from '../../src/store/pglite.js';
import { freshPostgresUrl } from '../store/backends.js';
import { cli } from '../support/cli.js';

const dataDir = mkdtempSync(join(tmpdir(), 'cli-test-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

test('customers and tokens on a PostgreSQL server (DATABASE_URL)', async () => {
  const env = { DATABASE_URL: await freshPostgresUrl(), DATA_DIR: dataDir };
  const created = await cli(['customers', 'create', '--name', 'Acme', '--quota', '1000', '--json'], env);
  assert.equal(created.code, 0, created.stderr);
  const customer = JSON.parse(created.stdout) as { id: number; monthly_quota: number };
  assert.deepEqual([customer.id, customer.monthly_quota], [1, 1000]);
  const tok = await cli(['tokens', 'create', '--customer', String(customer.id), '--json'], env);
  assert.equal(tok.code, 0, tok.stderr);
  const token = JSON.parse(tok.stdout) as { token: string; id: number; prefix: string };
  assert.match(token.token, /^sk_[0-9A-Za-z]{32}$/);
  assert.equal(token.prefix, token.token.slice(0, 8));
  const serverToken = await cli(
    ['tokens', 'create', '--customer', String(customer.id), '--name', 'server', '--scopes', 'screen', '--json'],
    env,
  );
  assert.deepEqual((JSON.parse(serverToken.stdout) as { scopes: string[] }).scopes, ['screen']);
  const badScopes = await cli(['tokens', 'create', '--customer', String(customer.id), '--scopes', 'screen,admin'], env);
  assert.equal(badScopes.code, 2, badScopes.stderr);
  assert.match(badScopes.stderr, /--scopes takes screen, dashboard/);
  const revoked = await cli(['tokens', 'revoke', String(token.id), '--json'], env);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(typeof (JSON.parse(revoked.stdout) as { revoked_at: unknown }).revoked_at, 'string');
  assert.equal(
    created.stderr,
    'cli: using the PostgreSQL database of DATABASE_URL\n',
    'the CLI says what it works on (on stderr: stdout is the JSON)',
  );
  const missing = await cli(['tokens', 'list', '--customer', '42'], env);
  assert.deepEqual(
    [missing.code, missing.stderr],
    [1, 'cli: using the PostgreSQL database of DATABASE_URL\ncustomer 42 not found\n'],
  );
  const plan = await cli(['plans', 'create', '--name', 'pro', '--quota', '500', '--json'], env);
  assert.equal(plan.code, 0, plan.stderr);
  const onPlan = await cli(['customers', 'create', '--name', 'Beta', '--plan', 'pro', '--json'], env);
  assert.equal(onPlan.code, 0, onPlan.stderr);
  const b = JSON.parse(onPlan.stdout) as {
    id: number;
    plan: string;
    monthly_quota: number;
    quota_override: number | null;
  };
  assert.deepEqual([b.id, b.plan, b.monthly_quota, b.quota_override], [2, 'pro', 500, null]);
});

test('embedded PGlite: works when free and says which one (and when it had to create it), refuses (and says why) while another process holds it', async () => {
  const env = { DATA_DIR: dataDir, DEFAULT_MONTHLY_QUOTA: '77' };
  const c = await cli(['customers', 'create', '--name', 'Gamma', '--json'], env);
  assert.equal(c.code, 0, c.stderr);
  assert.equal(
    c.stderr,
    `cli: using the embedded database in ${join(dataDir, 'pglite')} (created now, empty: no server has run with DATA_DIR=${dataDir}; give the CLI the server's DATA_DIR, CONFIG_FILE or DATABASE_URL, or --server URL)\n`,
  );
  const customer = JSON.parse(c.stdout) as { id: number; monthly_quota: number };
  assert.deepEqual([customer.id, customer.monthly_quota], [1, 77]);
  const again = await cli(['customers', 'get', '1'], env);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stderr, `cli: using the embedded database in ${join(dataDir, 'pglite')}\n`);
  const held = await openPglite(join(dataDir, 'pglite'));
  try {
    const refused = await cli(['customers', 'list'], env);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(`the server \\(pid ${process.pid}\\) holds the embedded database .*set ADMIN_KEY`),
    );
  } finally {
    await held.close();
  }
});
