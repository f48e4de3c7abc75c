import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import type { Hex } from 'viem';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { loadConfig } from '../../src/config.js';
import { openDb } from '../../src/store/open.js';
import { migrate } from '../../src/store/migrate.js';
import { CustomerService } from '../../src/billing/customers.js';
import { TokenService } from '../../src/billing/tokens.js';
import { openAuditStore } from '../../src/audit/store.js';
import { prepareDataDir, testEnv } from '../../harness/service.js';
import { REPO_ROOT } from '../../harness/paths.js';
import { pay, startPaymentChain, PRICE, type PaymentChain } from '../support/payments.js';

// `npx tsx src/cli.ts mcp` spawned by the SDK's own StdioClientTransport: the whole service without
// a listener, tokens through _meta["authorization"] or SCREENING_API_TOKEN, payments only through
// _meta["x402/payment"], settled on a local Hardhat chain. The stores are read after the process exits.

const SANCTIONED = '0x7F367cC41522cE07553e823bf3be79A889DEbe1B';
const BASE = 'https://screening.example';

let pc: PaymentChain;
let dataDir: string;
let token: string;
let customerId: number;

interface Agent {
  client: Client;
  stderr: () => string;
  /**
   * Ends the agent's input as a host does and waits for it to exit: its exit code. (The SDK's own
   * close() signals a process still flushing after 2 s, which a busy machine reaches.)
   */
  close: () => Promise<number | null>;
}

/** Spawns the documented command through the SDK's stdio client transport. */
async function spawnAgent(extraEnv: Record<string, string> = {}): Promise<Agent> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('NODE_TEST')),
  ) as Record<string, string>;
  const env = {
    ...inherited,
    ...(testEnv(dataDir, { ...pc.env, PUBLIC_BASE_URL: BASE, LOG_LEVEL: 'info', AUDIT_FLUSH_MS: '100' }) as Record<
      string,
      string
    >),
    ...extraEnv,
  };
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['tsx', 'src/cli.ts', 'mcp'],
    cwd: REPO_ROOT,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  const child = (transport as unknown as { _process?: ChildProcess })._process!;
  const closed = once(child, 'close');
  const close = async () => {
    child.stdin!.end();
    await closed;
    await client.close();
    return child.exitCode;
  };
  return { client, stderr: () => stderr, close };
}

async function call(
  a: Agent,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await a.client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
}

async function usageRows(): Promise<
  { endpoint: string; method: string; customer_id: number; payer: string; tx_hash: string }[]
> {
  const audit = await openAuditStore(loadConfig(testEnv(dataDir)));
  try {
    const rs = await audit.client.query({
      query: 'SELECT endpoint, method, customer_id, payer, tx_hash FROM screening.usage ORDER BY time',
      format: 'JSONEachRow',
    });
    return (await rs.json()) as {
      endpoint: string;
      method: string;
      customer_id: number;
      payer: string;
      tx_hash: string;
    }[];
  } finally {
    await audit.close();
  }
}

before(async () => {
  pc = await startPaymentChain();
  dataDir = await prepareDataDir();
  const db = await openDb(loadConfig(testEnv(dataDir)));
  await migrate(db);
  customerId = (await new CustomerService(db, 1000).createCustomer({ name: 'stdio-agent', monthlyQuota: 1000 })).id;
  token = (await new TokenService(db, { cacheSeconds: 30 }).create(customerId)).token;
  await db.close();
});

after(async () => {
  await pc?.chain.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('stdio: free tools, a token in _meta, a payment in _meta settled once, a replay refused, rows stored, clean exit', async () => {
  const started = Date.now();
  const agent = await spawnAgent();
  const startup = Date.now() - started;
  const { tools } = await agent.client.listTools();
  assert.equal(tools.length, 14);

  const stats = await call(agent, 'stats', {});
  assert.equal(stats.isError, undefined);
  assert.deepEqual(JSON.parse((stats.content[0] as { text: string }).text), stats.structuredContent);
  assert.ok((stats.structuredContent as { sources: Record<string, { total: number }> }).sources.ofac_sdn.total > 1000);

  const byToken = await call(agent, 'screen_crypto', { address: SANCTIONED }, { authorization: token });
  assert.equal(byToken.isError, undefined, JSON.stringify(byToken.structuredContent));
  assert.equal((byToken.structuredContent as { sanctioned: boolean }).sanctioned, true);
  assert.equal(byToken._meta?.['x402/payment-response'], undefined);
  assert.match(String(byToken._meta?.['screening/list-versions']), /(^|,)ofac_sdn=[0-9a-f]{16}(,|$)/);
  const invalid = await call(
    agent,
    'screen_crypto',
    { address: SANCTIONED },
    { authorization: 'Bearer sk_not_a_token' },
  );
  assert.deepEqual(invalid.structuredContent, { detail: 'Invalid or revoked API token' });

  // No network peer: the client-IP tools need ip_address.
  const noIp = await call(agent, 'vpn_check', {}, { authorization: token });
  assert.deepEqual(noIp.structuredContent, {
    detail: [{ type: 'missing', loc: ['body', 'ip_address'], msg: 'Field required', input: null }],
  });

  const unpaid = await call(agent, 'screen_crypto', { address: SANCTIONED });
  assert.equal(unpaid.isError, true);
  const body = unpaid.structuredContent as { x402Version: number; accepts: { resource: string }[] };
  assert.equal(body.x402Version, 1);
  assert.equal(body.accepts[0].resource, `${BASE}/api/v1/screen/crypto/${SANCTIONED}`);
  const v2 = unpaid._meta!['x402/payment-required'] as { x402Version: number; resource: { url: string } };
  assert.equal(v2.x402Version, 2);
  assert.equal(v2.resource.url, `${BASE}/api/v1/screen/crypto/${SANCTIONED}`);

  const p0 = await pc.balance(pc.payer.address);
  const payment = await pay(pc.payer, v2);
  const paid = await call(agent, 'screen_crypto', { address: SANCTIONED }, { 'x402/payment': payment });
  assert.equal(paid.isError, undefined, JSON.stringify(paid.structuredContent));
  assert.deepEqual(paid.structuredContent, byToken.structuredContent);
  const receipt = paid._meta!['x402/payment-response'] as { transaction: Hex };
  assert.deepEqual(paid._meta!['x402/payment-response'], {
    success: true,
    transaction: receipt.transaction,
    network: 'eip155:84532',
    payer: pc.payer.address,
  });
  assert.equal((await pc.chain.publicClient.getTransactionReceipt({ hash: receipt.transaction })).status, 'success');
  assert.equal(await pc.balance(pc.payer.address), p0 - PRICE);

  const replay = await call(
    agent,
    'screen_crypto',
    { address: SANCTIONED },
    { 'x402/payment': encodePaymentSignatureHeader(payment) },
  );
  assert.equal(replay.isError, true);
  assert.equal((replay.structuredContent as { error: string }).error, 'authorization already used, sign a fresh one');
  assert.equal(await pc.balance(pc.payer.address), p0 - PRICE);

  const closing = Date.now();
  const exitCode = await agent.close();
  const shutdown = Date.now() - closing;
  assert.equal(exitCode, 0, agent.stderr().slice(-2000));
  assert.match(agent.stderr(), /"msg":"mcp stdio server ready"/);
  assert.doesNotMatch(agent.stderr(), new RegExp(token));
  assert.deepEqual(await usageRows(), [
    { endpoint: 'screen.crypto', method: 'quota', customer_id: customerId, payer: '', tx_hash: '' },
    {
      endpoint: 'screen.crypto',
      method: 'x402',
      customer_id: 0,
      payer: pc.payer.address,
      tx_hash: receipt.transaction,
    },
  ]);
  console.log(`# stdio agent: startup ${startup} ms, shutdown ${shutdown} ms`);
});

test('stdio: SCREENING_API_TOKEN funds metered calls without _meta', async () => {
  const agent = await spawnAgent({ SCREENING_API_TOKEN: token });
  const result = await call(agent, 'screen_country', { country: 'KP' });
  assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
  assert.equal((result.structuredContent as { sanctioned: boolean }).sanctioned, true);
  assert.equal(await agent.close(), 0);
  const rows = await usageRows();
  assert.deepEqual(rows[rows.length - 1], {
    endpoint: 'screen.country',
    method: 'quota',
    customer_id: customerId,
    payer: '',
    tx_hash: '',
  });
});
