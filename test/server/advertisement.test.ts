import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { runningService } from '../../src/operator/service-file.js';
import { createAdvertisement } from '../../src/wiring/roles.js';

const dataDir = mkdtempSync(join(tmpdir(), 'advertisement-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

test('a leading node is advertised once it listens, and withdrawn when it follows', async () => {
  const config = loadConfig({ DATA_DIR: dataDir, HOST: '0.0.0.0' });
  const advertisement = createAdvertisement(config, 'op_key');

  await advertisement.update(true);
  assert.equal(runningService(dataDir), null, 'not listening yet: nothing to advertise');

  advertisement.listening(4321);
  await advertisement.update(true);
  const file = runningService(dataDir);
  assert.equal(file?.url, 'http://127.0.0.1:4321');
  assert.equal(file?.operator_key, 'op_key');
  assert.equal(file?.pid, process.pid);

  await advertisement.update(false);
  assert.equal(runningService(dataDir), null);
});
