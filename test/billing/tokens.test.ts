import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { CustomerService } from '../../src/billing/customers.js';
import { TokenService } from '../../src/billing/tokens.js';
import { generateToken } from '../../src/billing/token-format.js';
import { BACKENDS, closeBackends } from '../store/backends.js';
import type { Db } from '../../src/store/db.js';

after(closeBackends);

test('token format: sk_ and 32 base62 characters, all different', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const t = generateToken();
    assert.match(t, /^sk_[0-9A-Za-z]{32}$/);
    seen.add(t);
  }
  assert.equal(seen.size, 1000);
});

for (const backend of BACKENDS) {
  describe(`tokens on ${backend.name}`, () => {
    test('only the hash and a short prefix are stored; verify answers from memory once known', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'tok' });
      const tokens = new TokenService(db, { cacheSeconds: 5 });
      const { token, record } = await tokens.create(c.id, 'ci');
      assert.equal(record.prefix, token.slice(0, 8));
      assert.equal(record.customer_id, c.id);
      assert.equal(record.revoked_at, null);
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM api_tokens WHERE id = $1', [record.id]);
      assert.equal(rows[0].token_hash, createHash('sha256').update(token).digest('hex'));
      assert.ok(!Object.values(rows[0]).some((v) => v === token), 'the token itself is not stored');

      assert.deepEqual(await tokens.verify(token), {
        tokenId: record.id,
        customerId: c.id,
        screen: true,
        dashboard: true,
      });
      assert.deepEqual(
        tokens.verify(token),
        { tokenId: record.id, customerId: c.id, screen: true, dashboard: true },
        'second check is synchronous',
      );
      assert.equal(tokens.verify('sk_short'), null);
      assert.equal(await tokens.verify(generateToken()), null);
      await tokens.close();
      const used = await db.query<{ last_used_at: Date | null }>('SELECT last_used_at FROM api_tokens WHERE id = $1', [
        record.id,
      ]);
      assert.ok(used.rows[0].last_used_at instanceof Date, 'last_used_at written on close');
    });

    test('the cache keeps the newest tokens up to its bound; a token it dropped is checked in the database again', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'bound' });
      const tokens = new TokenService(db, { cacheSeconds: 5, maxEntries: 2 });
      const made = [await tokens.create(c.id), await tokens.create(c.id), await tokens.create(c.id)];
      for (const { token } of made) assert.ok(await tokens.verify(token));
      const [first, , third] = made;
      const again = tokens.verify(first.token);
      assert.ok(again instanceof Promise, 'the oldest was dropped');
      assert.deepEqual(await again, { tokenId: first.record.id, customerId: c.id, screen: true, dashboard: true });
      assert.deepEqual(
        tokens.verify(first.token),
        { tokenId: first.record.id, customerId: c.id, screen: true, dashboard: true },
        'cached again',
      );
      assert.deepEqual(tokens.verify(third.token), {
        tokenId: third.record.id,
        customerId: c.id,
        screen: true,
        dashboard: true,
      });
      await tokens.revoke(first.record.id);
      assert.equal(await tokens.verify(first.token), null, 'a cached token is forgotten when revoked');
      assert.deepEqual(
        tokens.verify(third.token),
        { tokenId: third.record.id, customerId: c.id, screen: true, dashboard: true },
        'the others stay cached',
      );
      await tokens.close();
    });

    test('a revocation on another node takes effect within 5 seconds', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'revoke' });
      const nodeA = new TokenService(db, { cacheSeconds: 5 });
      const nodeB = new TokenService(db, { cacheSeconds: 5 });
      nodeA.start();
      const { token, record } = await nodeB.create(c.id);
      assert.ok(await nodeA.verify(token));
      assert.ok(await nodeB.verify(token));
      const other = await new CustomerService(db, 1000).createCustomer({ name: 'other' });
      assert.equal(await nodeB.revoke(record.id, other.id), null, "another customer's token is not revoked");
      const revoked = await nodeB.revoke(record.id, c.id);
      assert.ok(revoked?.revoked_at instanceof Date);
      assert.equal(await nodeB.verify(token), null, 'the revoking node forgets its cached token at once');
      const t0 = Date.now();
      while ((await nodeA.verify(token)) !== null) {
        assert.ok(Date.now() - t0 < 5000, 'still valid 5 s after revocation');
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal((await nodeB.list(c.id))[0].revoked_at?.getTime(), revoked!.revoked_at!.getTime());
      await Promise.all([nodeA.close(), nodeB.close()]);
    });

    test('with the revocation poll off (an embedded database, one process), an idle service sends no query; a revocation still takes effect at once', async () => {
      const { db } = await backend.database();
      const c = await new CustomerService(db, 1000).createCustomer({ name: 'nopoll' });
      const sent: string[] = [];
      const counting: Db = { ...db, query: (sql, params) => (sent.push(sql), db.query(sql, params)) };
      const polling = new TokenService(counting, { cacheSeconds: 1 });
      polling.start();
      assert.equal(sent.length, 1, 'the poll runs as soon as the service starts');
      await polling.close();
      sent.length = 0;
      const tokens = new TokenService(counting, { cacheSeconds: 1, pollRevocations: false });
      tokens.start();
      // Three poll intervals (0.5 s each) idle.
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(sent, []);
      const { token, record } = await tokens.create(c.id);
      assert.ok(await tokens.verify(token));
      await tokens.revoke(record.id, c.id);
      assert.equal(await tokens.verify(token), null);
      await tokens.close();
    });
  });
}
