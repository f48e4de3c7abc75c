import type { Logger } from 'pino';
import { PaymentRefused, type DecodedPayment } from './decode.js';
import type { NonceStore } from './nonces.js';
import type { X402Settings } from './settings.js';

/** EIP-3009 nonces are scoped per token and payer. */
export function nonceKey(
  s: Pick<X402Settings, 'caip2' | 'asset'>,
  p: { authorization: Pick<DecodedPayment['authorization'], 'from' | 'nonce'> },
): string {
  return `${s.caip2}:${s.asset}:${p.authorization.from}:${p.authorization.nonce}`.toLowerCase();
}

/**
 * Who holds an authorization: the shared nonce store, fronted by this node's view of what it
 * reserved or settled, which answers replays and concurrent copies without a database round trip,
 * and with the precise reason.
 */
export class AuthorizationReservations {
  private readonly local = new Map<string, { settled: boolean; expiresAt: number }>();
  private lastPrune = 0;

  constructor(
    private readonly nonces: NonceStore,
    private readonly nowSeconds: () => number,
    private readonly log: Logger,
  ) {}

  /** Reserves `key` until `expiresAt` (seconds) for one request; a PaymentRefused says why it cannot be. */
  async reserve(key: string, expiresAt: number): Promise<void> {
    this.prune();
    const seen = this.local.get(key);
    if (seen?.settled) throw new PaymentRefused('authorization already used, sign a fresh one');
    if (seen) throw new PaymentRefused('authorization is already being used by another request, sign a fresh one');
    // Claimed synchronously, before any await: concurrent copies in this process stop here.
    this.local.set(key, { settled: false, expiresAt });
    let reserved = false;
    try {
      reserved = await this.nonces.reserve(key, expiresAt);
    } catch (err) {
      this.log.error({ err }, 'x402 nonce store unavailable');
      throw new PaymentRefused('the payment could not be verified now (nonce store unavailable); retry later');
    } finally {
      if (!reserved) this.local.delete(key);
    }
    if (!reserved) throw new PaymentRefused('authorization already used or in use, sign a fresh one');
  }

  /** Makes the authorization usable again (nothing reached the chain); never throws. */
  async free(key: string): Promise<void> {
    this.local.delete(key);
    try {
      await this.nonces.release(key);
    } catch (err) {
      this.log.error({ err }, 'x402 nonce release failed');
    }
  }

  /** Records the transfer; a store that cannot record it is logged, as the chain refuses the nonce anyway. */
  async markSettled(key: string, expiresAt: number, transaction: string): Promise<void> {
    this.local.set(key, { settled: true, expiresAt });
    try {
      await this.nonces.markSettled(key, transaction);
    } catch (err) {
      // The transfer happened; the chain itself now refuses the nonce, so the response is owed.
      this.log.error({ err, transaction }, 'x402 nonce store could not record a settlement');
    }
  }

  private prune(): void {
    const t = this.nowSeconds();
    if (t - this.lastPrune < 10) return;
    this.lastPrune = t;
    for (const [key, e] of this.local) if (e.expiresAt < t) this.local.delete(key);
  }
}
