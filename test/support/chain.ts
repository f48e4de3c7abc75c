import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import solc from 'solc';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  type Abi,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { mnemonicToAccount, type HDAccount } from 'viem/accounts';
import { REPO_ROOT } from '../../harness/paths.js';

/**
 * A real local EVM chain for tests: a Hardhat 2 node on 127.0.0.1, contracts compiled with the
 * bundled `solc` (no compiler download), viem clients bound to it. Shared by every test that needs
 * a chain (mixer events, x402 settlement, ENS); call `stop()` in `after`.
 */

const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';

interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

export interface Deployed extends CompiledContract {
  address: Address;
  receipt: TransactionReceipt;
}

export interface LocalChain {
  rpcUrl: string;
  chainId: number;
  chain: Chain;
  /** Hardhat's ten funded default accounts (10,000 ETH each). */
  accounts: HDAccount[];
  publicClient: PublicClient;
  testClient: TestClient;
  walletClient(account: Account): WalletClient;
  /** Compiles `source` and deploys `contractName` from `from` (default accounts[0]). */
  deploy(source: string, contractName: string, args?: readonly unknown[], from?: Account): Promise<Deployed>;
  /** Mines `blocks` empty blocks. */
  mine(blocks: number): Promise<void>;
  stop(): Promise<void>;
}

const compiled = new Map<string, CompiledContract>();

/** Compiles one Solidity source (standard JSON) and returns the named contract's ABI and bytecode. */
function compileSolidity(source: string, contractName: string): CompiledContract {
  const cacheKey = `${contractName}\u0000${source}`;
  const hit = compiled.get(cacheKey);
  if (hit) return hit;
  const input = {
    language: 'Solidity',
    sources: { 'Contract.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const c = output.contracts?.['Contract.sol']?.[contractName];
  if (!c) throw new Error(`solc: no contract ${contractName} in the source`);
  const result = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex };
  compiled.set(cacheKey, result);
  return result;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

async function waitForRpc(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited (${child.exitCode}): ${output()}`);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`hardhat node did not answer within ${timeoutMs} ms: ${output()}`);
}

/** Starts a Hardhat node with the given chain id (default 31337) on a free port. */
export async function startChain(opts: { chainId?: number; startTimeoutMs?: number } = {}): Promise<LocalChain> {
  const chainId = opts.chainId ?? 31337;
  // Hardhat refuses to run from a directory where it is not installed locally: the temporary
  // project links the repository's node_modules.
  const dir = await mkdtemp(join(tmpdir(), 'hardhat-'));
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(
    join(dir, 'hardhat.config.cjs'),
    `module.exports = { networks: { hardhat: { chainId: ${chainId} } } };\n`,
  );
  const port = await freePort();
  const cli = join(REPO_ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js');
  const child = spawn(process.execPath, [cli, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
  });
  let out = '';
  // Hardhat logs every RPC call; keep only the start of its output for error messages.
  const collect = (b: Buffer) => {
    if (out.length < 4000) out += b.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const rpcUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForRpc(rpcUrl, child, () => out, opts.startTimeoutMs ?? 30_000);
  } catch (err) {
    await stop();
    throw err;
  }

  const chain = defineChain({
    id: chainId,
    name: `hardhat-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const testClient = createTestClient({ chain, mode: 'hardhat', transport }) as TestClient;
  const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: i }));
  const walletClient = (account: Account) => createWalletClient({ chain, account, transport });

  return {
    rpcUrl,
    chainId,
    chain,
    accounts,
    publicClient,
    testClient,
    walletClient,
    async deploy(source, contractName, args = [], from = accounts[0]) {
      const { abi, bytecode } = compileSolidity(source, contractName);
      const hash = await walletClient(from).deployContract({ abi, bytecode, args, account: from, chain });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (!receipt.contractAddress) throw new Error(`deploying ${contractName}: no contract address`);
      return { abi, bytecode, address: getAddress(receipt.contractAddress), receipt };
    },
    async mine(blocks) {
      await testClient.mine({ blocks });
    },
    stop,
  };
}
