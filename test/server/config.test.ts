import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError, x402Networks } from '../../src/config.js';

test('defaults', () => {
  const c = loadConfig({});
  assert.equal(c.PORT, 8080);
  assert.equal(c.DATA_DIR, './data');
  assert.equal(c.SEARCH_REGEX_ENABLED, true);
  assert.equal(c.X402_PRICE, 10000);
  assert.deepEqual(c.TRUSTED_PROXIES, []);
  assert.deepEqual(c.PRIMARY_CHECK_MINUTES_UTC, [5, 35]);
});

test('invalid values fail fast naming the variable', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty' }),
    (e: unknown) => e instanceof ConfigError && /PORT: must be an integer/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/33' }),
    (e: unknown) => e instanceof ConfigError && /TRUSTED_PROXIES/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ X402_NETWORK: 'base' }),
    (e: unknown) => e instanceof ConfigError && /X402_NETWORK: must be a CAIP-2 id/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ SEARCH_REGEX_ENABLED: 'maybe' }),
    (e: unknown) => e instanceof ConfigError && /SEARCH_REGEX_ENABLED/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ PEP_PROVIDER: 'yente' }),
    (e: unknown) => e instanceof ConfigError && /PEP_YENTE_URL/.test(e.message),
  );
});

test('a config file is read and the environment wins', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  const file = join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ PORT: 9000, LOG_LEVEL: 'warn', TRUSTED_PROXIES: ['127.0.0.1', '10.0.0.0/8'] }));
  const c = loadConfig({ CONFIG_FILE: file, LOG_LEVEL: 'debug' });
  assert.equal(c.PORT, 9000);
  assert.equal(c.LOG_LEVEL, 'debug');
  assert.deepEqual(c.TRUSTED_PROXIES, ['127.0.0.1', '10.0.0.0/8']);
  assert.throws(() => loadConfig({ CONFIG_FILE: join(dir, 'missing.json') }), /CONFIG_FILE: cannot read/);
});

test('x402 network names: CAIP-2 and v1 plain names', () => {
  assert.deepEqual(x402Networks(loadConfig({ X402_NETWORK: 'eip155:84532' })), {
    caip2: 'eip155:84532',
    chainId: 84532,
    v1Name: 'base-sepolia',
  });
  assert.equal(x402Networks(loadConfig({})).v1Name, 'base');
});
