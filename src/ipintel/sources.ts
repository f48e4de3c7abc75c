import type { SourceFile } from '../../loaders/types.js';

/**
 * The IP reputation lists. Offline (`SOURCE_DIR`) they are read from `ip/...`; online from the
 * URLs below, each overridable with `SOURCE_URLS` under the key `ipintel.<key>`.
 *
 * - `vpn`: ranges of commercial VPN providers (X4BNet lists_vpn, MIT).
 * - `tor`: Tor exit relays (Tor Project bulk exit list, IPv4 only).
 * - `datacenter`: hosting/datacenter ranges (X4BNet lists_vpn, MIT). A separate signal: a
 *   datacenter address is not reported as a VPN, since servers, crawlers and corporate egress
 *   live there too.
 */

export type IpSignal = 'vpn' | 'tor' | 'datacenter';

export interface IpListSource extends SourceFile {
  signal: IpSignal;
  /** The address families the list is a complete source for. */
  families: (4 | 6)[];
}

/** `SOURCE_URLS` / cache slug of the IP lists. */
export const IP_LISTS_SLUG = 'ipintel';

const X4B = 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output';

export const IP_LIST_SOURCES: readonly IpListSource[] = [
  {
    key: 'vpn-ipv4',
    signal: 'vpn',
    families: [4],
    url: `${X4B}/vpn/ipv4.txt`,
    sourceDirPath: 'ip/vpn-ipv4.txt',
    optional: true,
  },
  {
    key: 'vpn-ipv6',
    signal: 'vpn',
    families: [6],
    url: `${X4B}/vpn/ipv6.txt`,
    sourceDirPath: 'ip/vpn-ipv6.txt',
    optional: true,
  },
  {
    key: 'tor-exit-nodes',
    signal: 'tor',
    families: [4],
    url: 'https://check.torproject.org/torbulkexitlist',
    sourceDirPath: 'ip/tor-exit-nodes.txt',
    optional: true,
  },
  {
    key: 'datacenter-ipv4',
    signal: 'datacenter',
    families: [4],
    url: `${X4B}/datacenter/ipv4.txt`,
    sourceDirPath: 'ip/datacenter-ipv4.txt',
    optional: true,
  },
  {
    key: 'datacenter-ipv6',
    signal: 'datacenter',
    families: [6],
    url: `${X4B}/datacenter/ipv6.txt`,
    sourceDirPath: 'ip/datacenter-ipv6.txt',
    optional: true,
  },
];
