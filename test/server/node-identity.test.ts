import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { nodeIdentity } from '../../src/store/node-identity.js';

/**
 * A node's identity survives its restarts (issue #36 item 4): NODE_ID, or an id generated at the
 * first start and kept in DATA_DIR, so two nodes with separate data directories differ.
 */
const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'node-id-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('without NODE_ID: generated once, kept in DATA_DIR, the same at the next start; another DATA_DIR has another', () => {
  const a = dataDir();
  const first = nodeIdentity(a, undefined);
  assert.match(first, /^[A-Za-z0-9._-]+-[0-9a-f]{12}$/);
  assert.equal(nodeIdentity(a, undefined), first, 'a restarted node is the same node');
  const [file] = readdirSync(join(a, 'node-id'));
  assert.equal(readFileSync(join(a, 'node-id', file), 'utf8'), `${first}\n`);
  assert.notEqual(nodeIdentity(dataDir(), undefined), first, 'a node with its own DATA_DIR is another node');
});

test('NODE_ID names the node and nothing is written', () => {
  const d = dataDir();
  assert.equal(nodeIdentity(d, 'eu-1'), 'eu-1');
  assert.deepEqual(readdirSync(d), []);
  assert.equal(loadConfig({ NODE_ID: 'eu-1.pod:0' }).NODE_ID, 'eu-1.pod:0');
  assert.throws(
    () => loadConfig({ NODE_ID: 'two words' }),
    (e: unknown) => e instanceof ConfigError && /NODE_ID: must be 1-64 characters/.test(e.message),
  );
});
