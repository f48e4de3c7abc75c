import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { getAddress, keccak256, toHex, zeroAddress, type Address, type Hash, type HDAccount } from 'viem';
import { Engine } from '../../../engine/engine.js';
import { loadConfig } from '../../../src/config.js';
import { MixerScanner } from '../../../loaders/chain/mixer.js';
import { ListManager } from '../../../loaders/manager.js';
import type { ListDefinition } from '../../../loaders/types.js';
import { startChain, type Deployed, type LocalChain } from '../../support/chain.js';
import { FIXTURES } from '../../../harness/paths.js';

let chain: LocalChain;
let dataDir = '';
let poolA: Deployed;
let poolB: Deployed;
let poolC: Deployed;
const tx: Record<string, { hash: Hash; block: number }> = {};

async function send(
  name: string,
  pool: Deployed,
  from: HDAccount,
  functionName: 'deposit' | 'withdraw',
  args: readonly unknown[],
) {
  const hash = await chain
    .walletClient(from)
    .writeContract({ address: pool.address, abi: pool.abi, functionName, args, account: from, chain: chain.chain });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
  tx[name] = { hash, block: Number(receipt.blockNumber) };
}
const commitment = (n: number) => keccak256(toHex(`commitment-${n}`));

before(async () => {
  chain = await startChain({ chainId: 31337 });
  dataDir = await mkdtemp(join(tmpdir(), 'mixer-'));
  const source = await readFile(join(FIXTURES, 'contracts', 'MixerPool.sol'), 'utf8');
  poolA = await chain.deploy(source, 'MixerPool');
  poolB = await chain.deploy(source, 'MixerPool');
  poolC = await chain.deploy(source, 'MixerPool');
  const [, alice, bob, relayer, recipient, direct, outsider] = chain.accounts;
  await send('d1', poolA, alice, 'deposit', [commitment(1)]);
  await send('d2', poolB, bob, 'deposit', [commitment(2)]);
  await send('d3', poolB, alice, 'deposit', [commitment(3)]);
  await send('w1', poolA, relayer, 'withdraw', [recipient.address, commitment(11), relayer.address, 10n ** 15n]);
  await send('w2', poolB, direct, 'withdraw', [direct.address, commitment(12), zeroAddress, 0n]);
  await send('c1', poolC, outsider, 'deposit', [commitment(4)]);
});
after(async () => {
  await chain?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const entry = (role: string, address: Address, pool: Deployed, t: { hash: Hash; block: number }) => ({
  list: 'mixer',
  entity_type: 'crypto_address',
  value: getAddress(address),
  metadata: { role, pool: getAddress(pool.address), block: t.block, tx_hash: t.hash },
  source_url: null,
  listed_at: null,
  removed_at: null,
});

describe('mixer-pool lists from chain events', () => {
  test('depositors (tx sender), relayers and recipients, each with the transaction that first listed it', async () => {
    const [, alice, bob, relayer, recipient, direct] = chain.accounts;
    const statePath = join(dataDir, 'scan.json');
    const scanner = new MixerScanner({
      client: chain.publicClient,
      pools: [poolA.address.toLowerCase(), poolB.address],
      startBlock: 0,
      statePath,
      chunkSize: 3,
      confirmations: 0,
    });
    const head = Number(await chain.publicClient.getBlockNumber());
    assert.deepEqual(await scanner.scan(), { from: 0, to: head, added: 5 });
    assert.deepEqual(await scanner.records('mixer', ['depositor', 'relayer']), [
      entry('depositor', alice.address, poolA, tx.d1),
      entry('depositor', bob.address, poolB, tx.d2),
      entry('relayer', relayer.address, poolA, tx.w1),
    ]);
    assert.deepEqual(
      (await scanner.records('mixer', ['recipient'])).map((r) => [r.value, r.metadata]),
      [
        [recipient.address, { role: 'recipient', pool: poolA.address, block: tx.w1.block, tx_hash: tx.w1.hash }],
        [direct.address, { role: 'recipient', pool: poolB.address, block: tx.w2.block, tx_hash: tx.w2.hash }],
      ],
    );

    // Incremental: a new scanner on the same state reads only new blocks; the relayer now also
    // deposits, which lists it a second time under its other role.
    await send('d4', poolA, relayer, 'deposit', [commitment(5)]);
    const again = new MixerScanner({
      client: chain.publicClient,
      pools: [poolA.address, poolB.address],
      startBlock: 0,
      statePath,
      chunkSize: 3,
      confirmations: 0,
    });
    assert.deepEqual(await again.scan(), { from: head + 1, to: tx.d4.block, added: 1 });
    assert.deepEqual((await again.records('mixer', ['depositor', 'relayer'])).slice(3), [
      entry('depositor', relayer.address, poolA, tx.d4),
    ]);
    assert.equal(JSON.parse(await readFile(statePath, 'utf8')).last_block, tx.d4.block);
  });

  test('blocks younger than the confirmations wait for the next scan', async () => {
    const [, alice] = chain.accounts;
    const scanner = new MixerScanner({
      client: chain.publicClient,
      pools: [poolC.address],
      startBlock: 0,
      statePath: join(dataDir, 'c.json'),
      confirmations: 3,
    });
    await chain.mine(3);
    await send('c2', poolC, alice, 'deposit', [commitment(6)]);
    const first = await scanner.scan();
    assert.equal(first.to, tx.c2.block - 3);
    assert.deepEqual(
      (await scanner.records('c', ['depositor'])).map((r) => r.metadata.tx_hash),
      [tx.c1.hash],
    );
    await chain.mine(3);
    assert.equal((await scanner.scan()).added, 1);
    assert.deepEqual(
      (await scanner.records('c', ['depositor'])).map((r) => r.metadata.tx_hash),
      [tx.c1.hash, tx.c2.hash],
    );
  });

  test('through the ListManager: configured by MIXER_*, served by the engine', async () => {
    const [, alice, , relayer, recipient] = chain.accounts;
    const defs: ListDefinition[] = [
      {
        slug: 'mixer',
        display_name: 'Mixer pools',
        list_type: 'risk',
        kind: 'onchain_events',
        cadence: 'hourly',
        enabled: true,
        in_default_set: true,
        source: { type: 'chain', role: 'depositor_relayer' },
      },
      {
        slug: 'mixer-recipients',
        display_name: 'Mixer recipients',
        list_type: 'risk',
        kind: 'onchain_events',
        cadence: 'hourly',
        enabled: true,
        in_default_set: false,
        source: { type: 'chain', role: 'recipient' },
      },
    ];
    const config = loadConfig({
      DATA_DIR: join(dataDir, 'managed'),
      MIXER_RPC_URL: chain.rpcUrl,
      MIXER_POOLS: `${poolA.address},${poolB.address}`,
      MIXER_START_BLOCK: String(poolA.receipt.blockNumber),
    });
    await chain.mine(12); // the default confirmation depth
    const engine = await Engine.create({ shards: 1 });
    try {
      const m = new ListManager({ config, engine, log: pino({ level: 'silent' }), lists: defs });
      await m.start();
      await m.idle();
      await m.stop();
      assert.equal(m.ready(), true);
      assert.deepEqual([m.status().mixer.total, m.status()['mixer-recipients'].total], [4, 2]);
      const hits = engine.screenExact({
        kind: 'crypto',
        value: relayer.address.toLowerCase(),
        lists: ['mixer', 'mixer-recipients'],
      })!;
      assert.deepEqual(
        hits.map((h) => [h.entity.list, h.entity.value, h.entity.metadata]),
        [
          ['mixer', relayer.address, { role: 'relayer', pool: poolA.address, block: tx.w1.block, tx_hash: tx.w1.hash }],
          [
            'mixer',
            relayer.address,
            { role: 'depositor', pool: poolA.address, block: tx.d4.block, tx_hash: tx.d4.hash },
          ],
        ],
      );
      assert.equal(
        engine.screenExact({ kind: 'crypto', value: alice.address, lists: ['mixer'] })![0].entity.metadata.tx_hash,
        tx.d1.hash,
      );
      assert.equal(engine.screenExact({ kind: 'crypto', value: recipient.address, lists: ['mixer'] })!.length, 0);
      assert.equal(
        engine.screenExact({ kind: 'crypto', value: recipient.address, lists: ['mixer-recipients'] })!.length,
        1,
      );
    } finally {
      await engine.close();
    }
  });
});
