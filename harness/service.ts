import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import pino from 'pino';
import { loadConfig, type Env } from '../src/config.js';
import { createService, type Service, type ServiceOverrides } from '../src/service.js';
import { ListManager } from '../loaders/manager.js';
import { builtOnce, copyInitialisedPglite, copyMigratedPglite } from './cache.js';
import { transpiledServiceMain } from './transpiled.js';
import { COMPILED, REPO_ROOT, SERVICE_NODE_FLAGS, SHARED_DATA } from './paths.js';

/**
 * Ingesting every real list takes ~30 s, so the test suite ingests once into a cache under .tmp
 * (keyed by the code that shapes the snapshots) and each test service starts from a copy of it,
 * which loads the stored snapshots without parsing. Test files run in parallel processes; a
 * directory lock makes exactly one of them ingest.
 */
function sourceCodeDigest(): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|json)$/.test(name)) h.update(p).update(readFileSync(p));
    }
  };
  for (const d of ['loaders', 'engine/normalize']) walk(join(REPO_ROOT, d));
  h.update(readFileSync(join(REPO_ROOT, 'engine', 'snapshot.ts')));
  return h.digest('hex').slice(0, 16);
}

async function ingestedListsDir(): Promise<string> {
  const cache = await builtOnce(`test-lists-${sourceCodeDigest()}`, async (dir) => {
    const config = loadConfig(testEnv(dir));
    const manager = new ListManager({ config, engine: null, log: pino({ level: 'silent' }) });
    await manager.refresh();
  });
  return join(cache, 'lists');
}

/**
 * Starts the real service in this process on an ephemeral port with a fresh DATA_DIR and the
 * shared real data as SOURCE_DIR. Tests talk to it over HTTP at `url`.
 */
export interface TestService {
  url: string;
  port: number;
  service: Service;
  dataDir: string;
  close(): Promise<void>;
}

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export function testEnv(dataDir: string, env: Env = {}): Env {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SOURCE_DIR: SHARED_DATA,
    LOG_LEVEL: 'silent',
    ADMIN_KEY: TEST_ADMIN_KEY,
    LIST_REFRESH_ENABLED: 'false',
    ENGINE_SHARDS: '1',
    ...env,
  };
}

/**
 * A fresh DATA_DIR holding the ingested real lists and a PGlite database with the migrations
 * applied (harness/cache.ts), or with `migrated: false` initialised and empty, for a test of the
 * service's own migration.
 */
export async function prepareDataDir(opts: { migrated?: boolean } = {}): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'screening-test-'));
  cpSync(await ingestedListsDir(), join(dataDir, 'lists'), { recursive: true });
  const pglite = join(dataDir, 'pglite');
  await ((opts.migrated ?? true) ? copyMigratedPglite(pglite) : copyInitialisedPglite(pglite));
  return dataDir;
}

export async function startTestService(env: Env = {}, overrides: ServiceOverrides = {}): Promise<TestService> {
  const dataDir = await prepareDataDir();
  const service = await createService(loadConfig(testEnv(dataDir, env)), { validateResponses: true, ...overrides });
  await service.lists().idle();
  const port = await service.listen();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    service,
    dataDir,
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the service as a separate process (for signal and crash tests); resolves once it listens.
 * `compiled`: run the build in dist/ (`make build`) as `make run` does, instead of src/ transpiled
 * into .tmp (harness/transpiled.ts).
 * `root`: the checkout to run (another commit's build, for side-by-side benchmarks), compiled.
 * The start timeout only detects a service that never starts: on a shared 2-core machine at load
 * 30, loading the real lists took over 120 s, so it is 300 s.
 */
export async function spawnService(
  env: Env,
  opts: { compiled?: boolean; root?: string } = {},
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const compiled = opts.root !== undefined || (opts.compiled ?? COMPILED);
  const child = spawn(
    process.execPath,
    [...SERVICE_NODE_FLAGS, compiled ? 'dist/src/main.js' : await transpiledServiceMain()],
    {
      cwd: opts.root ?? REPO_ROOT,
      env: { ...process.env, ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'info' } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start (it logs "listening" at LOG_LEVEL info):\n${out}`));
    }, 300_000);
    const check = () => {
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out}`));
    });
  });
  return { child, port, output: () => out };
}

/** Creates a customer with a monthly quota and a token through the admin API (real HTTP). */
export async function createCustomerToken(
  url: string,
  quota = 1000,
  name = 'Test customer',
): Promise<{ customerId: number; token: string; tokenId: number }> {
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
  const c = await fetch(`${url}/api/v1/admin/customers`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name, monthly_quota: quota }),
  });
  if (c.status !== 200) throw new Error(`customer create: ${c.status} ${await c.text()}`);
  const customer = (await c.json()) as { id: number };
  const t = await fetch(`${url}/api/v1/admin/customers/${customer.id}/tokens`, {
    method: 'POST',
    headers: admin,
    body: '{}',
  });
  if (t.status !== 200) throw new Error(`token create: ${t.status} ${await t.text()}`);
  const token = (await t.json()) as { id: number; token: string };
  return { customerId: customer.id, token: token.token, tokenId: token.id };
}
