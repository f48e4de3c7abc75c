import { readFileSync } from 'node:fs';
import { toHex, type Address, type Hex } from 'viem';
import type { HDAccount } from 'viem/accounts';
import { x402Client } from '@x402/core/client';
import type { Network, PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/client';
import { startChain, type Deployed, type LocalChain } from './chain.js';

/** A local chain with a test stablecoin for pay-per-request tests of the real service (REST and MCP). */
const CHAIN_ID = 84532;
export const PRICE = 10_000n;

/** A local chain with an EIP-3009 token, a merchant, a settler and a funded payer, and the X402_* env of the service. */
export interface PaymentChain {
  chain: LocalChain;
  token: Deployed;
  merchant: HDAccount;
  payer: HDAccount;
  env: Record<string, string>;
  balance(a: Address): Promise<bigint>;
}

export async function startPaymentChain(): Promise<PaymentChain> {
  const chain = await startChain({ chainId: CHAIN_ID });
  const [deployer, merchant, settler, payer] = chain.accounts;
  const source = readFileSync(new URL('../fixtures/contracts/Eip3009Token.sol', import.meta.url), 'utf8');
  const token = await chain.deploy(source, 'Eip3009Token', ['Test USD', '1'], deployer);
  const hash = await chain.walletClient(deployer).writeContract({
    address: token.address,
    abi: token.abi,
    functionName: 'mint',
    args: [payer.address, 1_000_000n],
    account: deployer,
    chain: chain.chain,
  });
  await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const env = {
    X402_PAY_TO: merchant.address,
    X402_NETWORK: `eip155:${CHAIN_ID}`,
    X402_ASSET: token.address,
    X402_ASSET_NAME: 'Test USD',
    X402_ASSET_VERSION: '1',
    X402_RPC_URL: chain.rpcUrl,
    X402_SETTLER_PRIVATE_KEY: toHex(settler.getHdKey().privateKey!) as Hex,
  };
  const balance = async (a: Address) =>
    (await chain.publicClient.readContract({
      address: token.address,
      abi: token.abi,
      functionName: 'balanceOf',
      args: [a],
    })) as bigint;
  return { chain, token, merchant, payer, env, balance };
}

/** x402's own client, both generations (a local test token needs spend controls off). */
export function payerClient(account: HDAccount): x402Client {
  return x402Client.fromConfig({
    schemes: [
      { network: `eip155:${CHAIN_ID}`, client: new ExactEvmScheme(account) },
      { network: 'base-sepolia' as Network, client: new ExactEvmSchemeV1(account), x402Version: 1 },
    ],
    spendControls: false,
  });
}

/** A signed payment payload for a challenge (v2 from `_meta["x402/payment-required"]`, or the v1 body). */
export function pay(account: HDAccount, challenge: unknown): Promise<PaymentPayload> {
  return payerClient(account).createPaymentPayload(challenge as PaymentRequired);
}
