import { createPublicClient, http, type PublicClient, type Address } from 'viem';
import { mainnet } from 'viem/chains';
import { normalize } from 'viem/ens';
import { serviceUnavailable, valueError } from '../core/errors.js';

/**
 * ENS names → addresses through viem's Universal Resolver call, with a TTL cache. Failures are the
 * client's (a name that does not resolve: 422 on the given location) or ours (RPC unreachable: 503);
 * only successful resolutions and definite "no address" answers are cached.
 */
export interface EnsResolverOptions {
  rpcUrl: string | undefined;
  universalResolver?: Address;
  ttlSeconds: number;
  now?: () => number;
  timeoutMs?: number;
}

export class EnsResolver {
  private readonly client: PublicClient | null;
  private readonly cache = new Map<string, { address: string | null; expires: number }>();
  private readonly now: () => number;

  constructor(private readonly opts: EnsResolverOptions) {
    this.now = opts.now ?? Date.now;
    this.client = opts.rpcUrl
      ? (createPublicClient({
          chain: mainnet,
          transport: http(opts.rpcUrl, { timeout: opts.timeoutMs ?? 5000, retryCount: 1 }),
        }) as PublicClient)
      : null;
  }

  /** True for inputs that are ENS names rather than addresses: they contain a dot. */
  static isName(value: string): boolean {
    return value.includes('.');
  }

  /** The address (EIP-55 checksummed) a name resolves to. `loc` is the parameter's location for a 422. */
  async resolve(name: string, loc: (string | number)[]): Promise<string> {
    let normalized: string;
    try {
      normalized = normalize(name.trim());
    } catch (err) {
      throw valueError(loc, `not a valid ENS name (${(err as Error).message.split('\n')[0]})`, name);
    }
    const hit = this.cache.get(normalized);
    if (hit && hit.expires > this.now()) return this.answer(hit.address, name, loc);
    if (!this.client) throw serviceUnavailable('ENS resolution is not configured (ETH_RPC_URL)');
    let address: string | null;
    try {
      address = await this.client.getEnsAddress({
        name: normalized,
        ...(this.opts.universalResolver ? { universalResolverAddress: this.opts.universalResolver } : {}),
      });
    } catch (err) {
      if (isResolutionFailure(err)) address = null;
      else throw serviceUnavailable('ENS resolution is unavailable: the Ethereum RPC did not answer');
    }
    if (this.opts.ttlSeconds > 0) {
      this.cache.set(normalized, { address: address ?? null, expires: this.now() + this.opts.ttlSeconds * 1000 });
    }
    return this.answer(address ?? null, name, loc);
  }

  private answer(address: string | null, name: string, loc: (string | number)[]): string {
    if (!address || /^0x0{40}$/i.test(address))
      throw valueError(loc, `ENS name ${name} does not resolve to an address`, name);
    return address;
  }
}

/** viem's errors for "the resolver said no" (reverts), as opposed to transport failures. */
function isResolutionFailure(err: unknown): boolean {
  let e = err as { name?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 6; depth++) {
    if (
      e.name === 'ContractFunctionRevertedError' ||
      e.name === 'ContractFunctionZeroDataError' ||
      e.name === 'ResolverNotFoundError'
    )
      return true;
    if (e.name === 'HttpRequestError' || e.name === 'TimeoutError' || e.name === 'WebSocketRequestError') return false;
    e = e.cause as typeof e;
  }
  return false;
}
