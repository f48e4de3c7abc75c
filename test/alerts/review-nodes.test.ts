import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { createCustomerToken, prepareDataDir, spawnService, testEnv } from '../../harness/service.js';
import { freshPostgresUrl } from '../store/backends.js';

/**
 * Two service processes on one PostgreSQL: a decision made on node a reaches the answers of node b
 * (which already keeps the customer's reviews) through the NOTIFY of the alerts trigger.
 */
const XBT = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';

type Node = Awaited<ReturnType<typeof spawnService>> & { url: string };

async function start(dataDir: string, databaseUrl: string): Promise<Node> {
  const node = await spawnService(testEnv(dataDir, { LOG_LEVEL: 'info', DATABASE_URL: databaseUrl }));
  return { ...node, url: `http://127.0.0.1:${node.port}` };
}

async function review(url: string, token: string): Promise<unknown> {
  const res = await fetch(`${url}/api/v1/screen/crypto/${XBT}?lists=ofac_crypto`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { matches: { metadata: { review?: unknown } }[] };
  return body.matches[0].metadata.review;
}

async function until<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    assert.ok(Date.now() < deadline, `${what}: not within 60 s (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('a decision on one node shows in the answers of the other', async () => {
  const databaseUrl = await freshPostgresUrl();
  const dirs = [await prepareDataDir(), await prepareDataDir()];
  const nodes: Node[] = [];
  try {
    nodes.push(await start(dirs[0], databaseUrl));
    nodes.push(await start(dirs[1], databaseUrl));
    const [a, b] = nodes;
    const { token } = await createCustomerToken(a.url, 1000, 'two nodes');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    assert.equal(await review(b.url, token), undefined);
    const [alert] = await until(
      'the alert is opened',
      async () =>
        (
          (await (await fetch(`${a.url}/api/v1/account/alerts`, { headers })).json()) as {
            items: { id: number; version: number }[];
          }
        ).items,
      (items) => items.length === 1,
    );
    const res = await fetch(`${a.url}/api/v1/account/alerts/${alert.id}/decision`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ status: 'confirmed', comment: 'The listed party itself', version: alert.version }),
    });
    assert.equal(res.status, 200);
    const decided = (await res.json()) as { decided_at: string };
    const expected = { alert_id: alert.id, status: 'confirmed', decided_at: decided.decided_at };
    assert.deepEqual(await review(a.url, token), expected, 'the node that decided, at once');
    assert.deepEqual(
      await until(
        'node b hears the decision',
        () => review(b.url, token),
        (r) => r !== undefined,
      ),
      expected,
    );
  } finally {
    for (const n of nodes) {
      n.child.kill('SIGTERM');
      await once(n.child, 'exit');
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});
