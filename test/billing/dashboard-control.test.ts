import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyInitialisedPglite } from '../../harness/cache.js';
import type { Db } from '../../src/store/db.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';
import { OperatorSessions, OPERATOR_SESSION_SECONDS } from '../../src/billing/operator-sessions.js';
import { TokenService } from '../../src/billing/tokens.js';
import { generateToken, hashToken, tokenPrefix } from '../../src/billing/token-format.js';
import { BACKENDS, closeBackends, freshPostgresUrl } from '../store/backends.js';

/** The dashboard's control-plane state on PGlite and PostgreSQL: scopes of existing tokens, operator sessions. */
const dirs: string[] = [];
after(async () => {
  await closeBackends();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const empty: { name: string; open: () => Promise<Db> }[] = [
  {
    name: 'pglite',
    open: async () => {
      const d = mkdtempSync(join(tmpdir(), 'scopes-'));
      dirs.push(d);
      return openPglite(await copyInitialisedPglite(join(d, 'pglite')));
    },
  },
  { name: 'postgres', open: async () => openPostgres(await freshPostgresUrl()) },
];

for (const backend of empty) {
  test(`${backend.name}: tokens created before scopes existed keep both`, async () => {
    const db = await backend.open();
    try {
      await migrate(
        db,
        listMigrations().filter((m) => m.version < 30),
      );
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO customers (name, monthly_quota) VALUES ('old', 10) RETURNING id`,
      );
      const token = generateToken();
      await db.query('INSERT INTO api_tokens (customer_id, token_hash, prefix) VALUES ($1, $2, $3)', [
        rows[0].id,
        hashToken(token),
        tokenPrefix(token),
      ]);
      assert.deepEqual(
        await migrate(
          db,
          listMigrations().filter((m) => m.version <= 30),
        ),
        [30],
      );
      const tokens = new TokenService(db, { cacheSeconds: 5 });
      assert.deepEqual(await tokens.verify(token), {
        tokenId: 1,
        customerId: rows[0].id,
        screen: true,
        dashboard: true,
      });
      assert.deepEqual((await tokens.list(rows[0].id))[0].scopes, ['screen', 'dashboard']);
      await assert.rejects(db.query(`UPDATE api_tokens SET scopes = ARRAY['admin']`), /check constraint/);
      await assert.rejects(db.query(`UPDATE api_tokens SET scopes = ARRAY[]::text[]`), /check constraint/);
    } finally {
      await db.close();
    }
  });
}

for (const backend of BACKENDS) {
  describe(`operator sessions on ${backend.name}`, () => {
    test('a session lives one hour and ends at once when revoked', async () => {
      const { db } = await backend.database();
      let now = Date.parse('2025-06-01T12:00:00Z');
      const sessions = new OperatorSessions(db, () => now);
      const a = await sessions.create();
      const b = await sessions.create();
      assert.equal(a.expires_at.getTime(), now + OPERATOR_SESSION_SECONDS * 1000);
      assert.equal(await sessions.verify(a.token), true);
      const altered = `${a.token.slice(0, -1)}${a.token.endsWith('x') ? 'y' : 'x'}`;
      assert.equal(await sessions.verify(altered), false, 'one character differs');
      assert.equal(await sessions.verify('sk_' + a.token.slice(3)), false, 'an API token is no session');
      assert.equal(await sessions.revoke(a.token), true);
      assert.equal(await sessions.verify(a.token), false);
      assert.equal(await sessions.revoke(a.token), false, 'once');
      now += OPERATOR_SESSION_SECONDS * 1000 - 1;
      assert.equal(await sessions.verify(b.token), true);
      now += 1;
      assert.equal(await sessions.verify(b.token), false, 'expired');
    });
  });
}
