import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  createPublicClient,
  getAddress,
  http,
  parseAbi,
  zeroAddress,
  type Address,
  type Hash,
  type PublicClient,
} from 'viem';
import type { EntityRecord } from '../../engine/model.js';
import type { LoaderSettings } from '../types.js';

/**
 * Mixer-pool lists from on-chain events (Tornado Cash pools' exact event signatures):
 * - `Deposit(bytes32 indexed commitment, uint32 leafIndex, uint256 timestamp)`: the depositor is
 *   the sender (`from`) of the transaction, since the event itself names no address;
 * - `Withdrawal(address to, bytes32 nullifierHash, address indexed relayer, uint256 fee)`: the
 *   relayer (a zero relayer means a direct withdrawal and names nobody), and `to` as a recipient.
 * The scan is incremental: the last block scanned and every address found (with the block and
 * transaction that first placed it on the list, per role) are kept in a state file, so each
 * refresh reads only new blocks, in chunks of block ranges that public RPC providers accept.
 * Blocks younger than `confirmations` are left for the next scan so a reorg cannot list an
 * address from a transaction that did not stay on chain.
 */

const MIXER_EVENTS = parseAbi([
  'event Deposit(bytes32 indexed commitment, uint32 leafIndex, uint256 timestamp)',
  'event Withdrawal(address to, bytes32 nullifierHash, address indexed relayer, uint256 fee)',
]);

export type MixerRole = 'depositor' | 'relayer' | 'recipient';

interface MixerEntry {
  role: MixerRole;
  address: Address;
  pool: Address;
  block: number;
  tx_hash: Hash;
}

interface ScanState {
  pools: Address[];
  start_block: number;
  /** Last block fully scanned; null before the first chunk. */
  last_block: number | null;
  entries: MixerEntry[];
}

export class NotConfiguredError extends Error {}

export interface MixerScannerOptions {
  client: PublicClient;
  pools: readonly string[];
  startBlock: number;
  /** JSON file holding the scan state. */
  statePath: string;
  /** Blocks per eth_getLogs call. */
  chunkSize?: number;
  confirmations?: number;
}

export class MixerScanner {
  private readonly client: PublicClient;
  private readonly pools: Address[];
  private readonly startBlock: number;
  private readonly chunkSize: number;
  private readonly confirmations: number;
  private state: ScanState | null = null;
  private readonly seen = new Set<string>();

  constructor(private readonly opts: MixerScannerOptions) {
    this.client = opts.client;
    this.pools = [...new Set(opts.pools.map((p) => getAddress(p)))].sort();
    this.startBlock = opts.startBlock;
    this.chunkSize = opts.chunkSize ?? 2000;
    this.confirmations = opts.confirmations ?? 12;
  }

  /** Scans the blocks not yet scanned; returns the range read and how many entries were added. */
  async scan(): Promise<{ from: number; to: number; added: number }> {
    const state = await this.load();
    const head = Number(await this.client.getBlockNumber({ cacheTime: 0 })) - this.confirmations;
    const from = state.last_block === null ? this.startBlock : state.last_block + 1;
    let added = 0;
    let lastSaved = Date.now();
    for (let lo = from; lo <= head; lo += this.chunkSize) {
      const hi = Math.min(head, lo + this.chunkSize - 1);
      added += await this.scanRange(state, lo, hi);
      state.last_block = hi;
      if (Date.now() - lastSaved > 10_000) {
        await this.save(state);
        lastSaved = Date.now();
      }
    }
    if (from <= head) await this.save(state);
    return { from, to: head, added };
  }

  /** The list's records for the given roles, in order of first appearance. */
  async records(list: string, roles: readonly MixerRole[]): Promise<EntityRecord[]> {
    const state = await this.load();
    return state.entries
      .filter((e) => roles.includes(e.role))
      .map((e) => ({
        list,
        entity_type: 'crypto_address' as const,
        value: e.address,
        metadata: { role: e.role, pool: e.pool, block: e.block, tx_hash: e.tx_hash },
        source_url: null,
        listed_at: null,
        removed_at: null,
      }));
  }

  private async scanRange(state: ScanState, fromBlock: number, toBlock: number): Promise<number> {
    const logs = await this.client.getLogs({
      address: this.pools,
      events: MIXER_EVENTS,
      fromBlock: BigInt(fromBlock),
      toBlock: BigInt(toBlock),
      strict: true,
    });
    logs.sort((a, b) => Number(a.blockNumber! - b.blockNumber!) || a.logIndex! - b.logIndex!);
    const depositTxs = [...new Set(logs.filter((l) => l.eventName === 'Deposit').map((l) => l.transactionHash!))];
    const senders = new Map<Hash, Address>();
    for (let i = 0; i < depositTxs.length; i += 50) {
      const txs = await Promise.all(depositTxs.slice(i, i + 50).map((hash) => this.client.getTransaction({ hash })));
      for (const tx of txs) senders.set(tx.hash, getAddress(tx.from));
    }
    let added = 0;
    const add = (role: MixerRole, address: Address, log: (typeof logs)[number]) => {
      if (address === zeroAddress) return;
      const key = `${role}:${address}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
      state.entries.push({
        role,
        address,
        pool: getAddress(log.address),
        block: Number(log.blockNumber),
        tx_hash: log.transactionHash!,
      });
      added++;
    };
    for (const log of logs) {
      if (log.eventName === 'Deposit') add('depositor', senders.get(log.transactionHash!)!, log);
      else {
        add('relayer', getAddress(log.args.relayer), log);
        add('recipient', getAddress(log.args.to), log);
      }
    }
    return added;
  }

  private async load(): Promise<ScanState> {
    if (this.state) return this.state;
    const fresh: ScanState = { pools: this.pools, start_block: this.startBlock, last_block: null, entries: [] };
    let stored: ScanState | null;
    try {
      stored = JSON.parse(await readFile(this.opts.statePath, 'utf8')) as ScanState;
    } catch {
      stored = null;
    }
    // A different pool set or start block makes the stored scan meaningless: start over.
    const same = stored && stored.start_block === this.startBlock && stored.pools.join() === this.pools.join();
    this.state = same ? stored! : fresh;
    for (const e of this.state.entries) this.seen.add(`${e.role}:${e.address}`);
    return this.state;
  }

  private async save(state: ScanState): Promise<void> {
    await mkdir(dirname(this.opts.statePath), { recursive: true });
    const tmp = `${this.opts.statePath}.tmp-${process.pid}`;
    await writeFile(tmp, JSON.stringify(state) + '\n');
    await rename(tmp, this.opts.statePath);
  }
}

/** The scanner configured by MIXER_RPC_URL, MIXER_POOLS and MIXER_START_BLOCK, or why not. */
export function mixerFromConfig(
  config: Pick<
    LoaderSettings,
    'MIXER_RPC_URL' | 'MIXER_POOLS' | 'MIXER_START_BLOCK' | 'SOURCE_FETCH_TIMEOUT_MS' | 'DATA_DIR'
  >,
): MixerScanner | NotConfiguredError {
  if (!config.MIXER_RPC_URL || config.MIXER_POOLS.length === 0) {
    return new NotConfiguredError('not configured: set MIXER_RPC_URL and MIXER_POOLS to build the mixer-pool lists');
  }
  const client = createPublicClient({
    transport: http(config.MIXER_RPC_URL, { batch: true, retryCount: 3, timeout: config.SOURCE_FETCH_TIMEOUT_MS }),
  });
  return new MixerScanner({
    client: client as PublicClient,
    pools: config.MIXER_POOLS,
    startBlock: config.MIXER_START_BLOCK,
    statePath: join(config.DATA_DIR, 'chain', 'mixer-scan.json'),
  });
}
