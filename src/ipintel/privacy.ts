import { IpRangeSet, type IpFamily, type ParsedRange } from '../../engine/ip-ranges.js';
import type { Address } from './address.js';
import type { IpListSource, IpSignal } from './sources.js';

/** `true`/`false`, or `unknown` when no list of that signal is loaded for the address family. */
export type Signal = boolean | 'unknown';

export interface PrivacySignals {
  /** VPN provider range or Tor exit: what `/vpn` reports. */
  vpn: Signal;
  tor: Signal;
  /** Hosting/datacenter range; not part of `vpn`. */
  datacenter: Signal;
}

export interface LoadedList {
  source: IpListSource;
  ranges: ParsedRange[];
}

const SIGNALS: IpSignal[] = ['vpn', 'tor', 'datacenter'];

/** The loaded lists as one immutable index per signal; replaced whole on refresh. */
export class PrivacyIndex {
  private constructor(
    private readonly sets: Record<IpSignal, IpRangeSet>,
    private readonly coverage: Record<IpSignal, Set<IpFamily>>,
  ) {}

  static build(lists: LoadedList[]): PrivacyIndex {
    const sets = {} as Record<IpSignal, IpRangeSet>;
    const coverage = {} as Record<IpSignal, Set<IpFamily>>;
    for (const signal of SIGNALS) {
      const mine = lists.filter((l) => l.source.signal === signal);
      sets[signal] = IpRangeSet.fromRanges(mine.flatMap((l) => l.ranges));
      coverage[signal] = new Set(mine.flatMap((l) => l.source.families));
    }
    return new PrivacyIndex(sets, coverage);
  }

  static empty(): PrivacyIndex {
    return PrivacyIndex.build([]);
  }

  private test(signal: IpSignal, a: Address): Signal {
    const set = this.sets[signal];
    const hit = a.family === 4 ? set.containsV4(a.value) : set.containsV6(a.words);
    if (hit) return true;
    return this.coverage[signal].has(a.family) ? false : 'unknown';
  }

  /**
   * A VPN-range or Tor-exit hit is decisive on its own. A miss is `false` only when a VPN list of
   * the address's family is loaded: the Tor list alone says nothing about VPN providers.
   */
  isVpn(a: Address): Signal {
    const vpn = this.test('vpn', a);
    if (vpn === true || this.test('tor', a) === true) return true;
    return vpn;
  }

  signals(a: Address): PrivacySignals {
    return { vpn: this.isVpn(a), tor: this.test('tor', a), datacenter: this.test('datacenter', a) };
  }

  /** Merged range counts per signal and family. */
  stats(): Record<IpSignal, { v4: number; v6: number; families: IpFamily[] }> {
    const out = {} as Record<IpSignal, { v4: number; v6: number; families: IpFamily[] }>;
    for (const s of SIGNALS) out[s] = { ...this.sets[s].size, families: [...this.coverage[s]].sort() };
    return out;
  }
}
