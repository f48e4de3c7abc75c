import { getAddress, type Address, type Hex } from 'viem';
import { upgradeUrl, x402Networks, type Config } from '../../config.js';

/** SPEC: "authorization timeout 300 seconds"; both x402 clients sign `validBefore = now + maxTimeoutSeconds`. */
export const MAX_TIMEOUT_SECONDS = 300;

/** The x402 part of the configuration, resolved once. */
export interface X402Settings {
  /** Null when payments are off; the challenge still has its shape, with an empty `accepts`. */
  disabledReason: string | null;
  payTo: Address | null;
  caip2: `eip155:${number}`;
  chainId: number;
  v1Name: string;
  asset: Address;
  assetName: string;
  assetVersion: string;
  /** Unit price in the asset's base units; a request costs `credits × price`. */
  price: bigint;
  rpcUrl: string | undefined;
  settlerKey: Hex | undefined;
  facilitatorUrl: string | undefined;
  upgradeUrl: string;
}

export function x402Settings(cfg: Config): X402Settings {
  const { caip2, chainId, v1Name } = x402Networks(cfg);
  const payTo = cfg.X402_PAY_TO ? getAddress(cfg.X402_PAY_TO) : null;
  const settlerKey = cfg.X402_SETTLER_PRIVATE_KEY as Hex | undefined;
  let disabledReason: string | null = null;
  if (!payTo) disabledReason = 'pay-per-request is not configured on this server (no X402_PAY_TO)';
  // Accepting a payment that nobody can settle would serve requests for free.
  else if (!settlerKey && !cfg.X402_FACILITATOR_URL) {
    disabledReason = 'pay-per-request is not configured on this server (no settler key or facilitator)';
  }
  return {
    disabledReason,
    payTo,
    caip2: caip2 as `eip155:${number}`,
    chainId,
    v1Name,
    asset: getAddress(cfg.X402_ASSET),
    assetName: cfg.X402_ASSET_NAME,
    assetVersion: cfg.X402_ASSET_VERSION,
    price: BigInt(cfg.X402_PRICE),
    rpcUrl: cfg.X402_RPC_URL,
    settlerKey,
    facilitatorUrl: cfg.X402_FACILITATOR_URL,
    upgradeUrl: upgradeUrl(cfg),
  };
}
