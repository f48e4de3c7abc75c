import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import {
  createCustomerToken,
  prepareDataDir,
  spawnService,
  startTestService,
  testEnv,
  type TestService,
} from '../../harness/service.js';

/**
 * The client IP over real HTTP: `/geo` and `/vpn` without `ip_address` evaluate the caller.
 * X-Forwarded-For is ignored from an untrusted peer and honoured from a trusted proxy (the second
 * service trusts 127.0.0.1 and runs in its own process).
 */
let untrusted: TestService;
let trusted: { url: string; child: ChildProcess; dataDir: string };

before(async () => {
  const dataDir = await prepareDataDir();
  const spawned = spawnService(testEnv(dataDir, { TRUSTED_PROXIES: '127.0.0.1', LOG_LEVEL: 'info' }));
  untrusted = await startTestService();
  const { child, port } = await spawned;
  trusted = { url: `http://127.0.0.1:${port}`, child, dataDir };
});
after(async () => {
  await untrusted?.close();
  if (trusted) {
    trusted.child.kill('SIGTERM');
    if (trusted.child.exitCode === null) await once(trusted.child, 'exit');
    rmSync(trusted.dataDir, { recursive: true, force: true });
  }
});

async function geo(base: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const auth = { authorization: `Bearer ${(await createCustomerToken(base, 10)).token}` };
  const res = await fetch(`${base}/api/v1/geo`, { headers: { ...auth, ...headers } });
  assert.equal(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

test('an untrusted peer cannot choose its address with X-Forwarded-For', async () => {
  const body = await geo(untrusted.url, { 'x-forwarded-for': '8.8.8.8' });
  assert.equal(body.ip, '127.0.0.1');
  assert.equal(body.country, null);
  assert.equal(body.sanctioned, null);
});

test('behind a trusted proxy the forwarded client is evaluated: 8.8.8.8 is Mountain View, US, not sanctioned', async () => {
  const body = await geo(trusted.url, { 'x-forwarded-for': '8.8.8.8' });
  assert.deepEqual(
    { ip: body.ip, city: body.city, country: body.country, sanctioned: body.sanctioned },
    { ip: '8.8.8.8', city: 'Mountain View', country: 'US', sanctioned: false },
  );
  const cuba = await geo(trusted.url, { forwarded: 'for=152.206.0.1;proto=https' });
  assert.equal(cuba.country, 'CU');
  assert.equal(cuba.sanctioned, true);
  const auth = { authorization: `Bearer ${(await createCustomerToken(trusted.url, 10)).token}` };
  const tor = await (await fetch(`${trusted.url}/api/v1/vpn/8.8.8.8`, { headers: auth })).json();
  assert.deepEqual(tor, { ip: '8.8.8.8', vpn: false });
});
