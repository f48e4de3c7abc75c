import {
  BaseError,
  ContractFunctionRevertedError,
  EstimateGasExecutionError,
  ExecutionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  isAddressEqual,
  nonceManager,
  parseEventLogs,
  parseSignature,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Authorization } from './decode.js';
import { PaymentRefused } from './decode.js';
import type { X402Settings } from './settings.js';

/** The slice of an EIP-3009 token (USDC's FiatTokenV2 shape) that x402 uses. */
const eip3009Abi = [
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' },
      { name: 'validBefore', type: 'uint256' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
  },
] as const;

/** Settlement did not produce a confirmed transfer. */
export class SettlementFailed extends Error {
  constructor(
    message: string,
    /** A transaction may still land: the authorization must stay reserved until it expires. */
    readonly mayHaveLanded: boolean,
    readonly transaction?: string,
  ) {
    super(message);
  }
}

export interface OnChain {
  /** `eth_call` of the transfer as it would be settled; throws PaymentRefused with the revert's meaning. */
  simulate(auth: Authorization, signature: Hex): Promise<void>;
}

export interface WalletSettler {
  address: Address;
  /** Sends `transferWithAuthorization`, waits for the receipt and checks the Transfer it must emit. */
  settle(auth: Authorization, signature: Hex): Promise<Hex>;
}

function chainOf(s: X402Settings, rpcUrl: string): Chain {
  return defineChain({
    id: s.chainId,
    name: s.v1Name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export function publicClientOf(s: X402Settings, rpcUrl: string, pollingMs: number): PublicClient {
  return createPublicClient({
    chain: chainOf(s, rpcUrl),
    transport: http(rpcUrl),
    pollingInterval: pollingMs,
  }) as PublicClient;
}

function args(auth: Authorization, signature: Hex) {
  const { r, s, v, yParity } = parseSignature(signature);
  return [
    auth.from,
    auth.to,
    auth.value,
    auth.validAfter,
    auth.validBefore,
    auth.nonce,
    Number(v ?? BigInt(yParity + 27)),
    r,
    s,
  ] as const;
}

export function onChain(s: X402Settings, client: PublicClient): OnChain {
  return {
    async simulate(auth, signature) {
      try {
        await client.simulateContract({
          address: s.asset,
          abi: eip3009Abi,
          functionName: 'transferWithAuthorization',
          args: args(auth, signature),
        });
      } catch (err) {
        if (!isRevert(err))
          throw new PaymentRefused(
            `the payment could not be verified now (chain RPC: ${shortMessage(err)}); retry later`,
          );
        throw new PaymentRefused(revertMeaning(err));
      }
    },
  };
}

export function walletSettler(
  s: X402Settings,
  client: PublicClient,
  rpcUrl: string,
  key: Hex,
  receiptTimeoutMs: number,
): WalletSettler {
  // The nonce manager hands out transaction nonces locally, so concurrent settlements do not collide.
  const account = privateKeyToAccount(key, { nonceManager });
  const wallet = createWalletClient({ account, chain: client.chain, transport: http(rpcUrl) });
  return {
    address: account.address,
    async settle(auth, signature) {
      let hash: Hex;
      try {
        hash = await wallet.writeContract({
          address: s.asset,
          abi: eip3009Abi,
          functionName: 'transferWithAuthorization',
          args: args(auth, signature),
          account,
          chain: client.chain,
        });
      } catch (err) {
        // A revert during gas estimation means nothing was sent; anything else may have been.
        if (isRevert(err)) throw new SettlementFailed(revertMeaning(err), false);
        throw new SettlementFailed(`could not submit the transfer (${shortMessage(err)})`, true);
      }
      let receipt;
      try {
        receipt = await client.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs });
      } catch (err) {
        throw new SettlementFailed(`no receipt for transaction ${hash} (${shortMessage(err)})`, true, hash);
      }
      if (receipt.status !== 'success') throw new SettlementFailed(`transaction ${hash} reverted`, false, hash);
      const transfers = parseEventLogs({ abi: eip3009Abi, eventName: 'Transfer', logs: receipt.logs });
      const paid = transfers.some(
        (l) =>
          isAddressEqual(l.address, s.asset) &&
          isAddressEqual(l.args.from, auth.from) &&
          isAddressEqual(l.args.to, auth.to) &&
          l.args.value === auth.value,
      );
      if (!paid) throw new SettlementFailed(`transaction ${hash} did not emit the authorized Transfer`, true, hash);
      return hash;
    },
  };
}

function isRevert(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  return Boolean(
    err.walk(
      (e) =>
        e instanceof ContractFunctionRevertedError ||
        e instanceof EstimateGasExecutionError ||
        e instanceof ExecutionRevertedError,
    ),
  );
}

/** What a FiatTokenV2-style revert means to the payer. */
function revertMeaning(err: unknown): string {
  const text = err instanceof BaseError ? `${err.shortMessage} ${err.details ?? ''} ${err.message}` : String(err);
  if (/used or canceled|AuthorizationUsed|already used/i.test(text))
    return 'authorization already used, sign a fresh one';
  if (/exceeds balance|insufficient balance|InsufficientBalance/i.test(text)) {
    return "the payer's token balance is insufficient for the authorized transfer";
  }
  if (/expired/i.test(text)) return 'authorization has expired';
  if (/not yet valid/i.test(text)) return 'authorization is not yet valid';
  if (/invalid signature/i.test(text)) return 'the token contract rejects the authorization signature';
  return 'the authorized transfer would fail on chain';
}

function shortMessage(err: unknown): string {
  return err instanceof BaseError ? err.shortMessage : err instanceof Error ? err.message : String(err);
}
