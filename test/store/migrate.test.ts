import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { BACKENDS, closeBackends } from './backends.js';

after(closeBackends);

for (const backend of BACKENDS) {
  describe(`migrations on ${backend.name}`, () => {
    test('applies every migration once, in order, and records it', async () => {
      const t = await backend.database();
      const expected = listMigrations().map((m) => m.version);
      const { rows } = await t.db.query<{ version: number; name: string }>(
        'SELECT version, name FROM schema_migrations ORDER BY version',
      );
      assert.deepEqual(
        rows.map((r) => r.version),
        expected,
      );
      assert.deepEqual(
        rows.slice(0, 2).map((r) => r.name),
        ['customers_tokens', 'quota'],
      );
      const again = await t.restart();
      assert.deepEqual(await migrate(again), []);
      const tables = await again.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
      );
      for (const name of ['api_tokens', 'customers', 'plans', 'quota_usage', 'schema_migrations']) {
        assert.ok(
          tables.rows.some((r) => r.table_name === name),
          name,
        );
      }
    });

    test('a failing transaction leaves nothing behind', async () => {
      const { db } = await backend.database();
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO plans (name, monthly_quota) VALUES ('rolled-back', 5)`);
          await tx.query(`INSERT INTO plans (name, monthly_quota) VALUES ('bad', -1)`);
        }),
        /check constraint/,
      );
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM plans WHERE name = 'rolled-back'`);
      assert.equal(rows[0].n, 0);
    });
  });
}
