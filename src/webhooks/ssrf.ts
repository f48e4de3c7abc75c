import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF guard of webhook URLs. A customer chooses the URL, and the service POSTs to it from inside
 * its own network, so a URL must not reach the service's neighbours: its host is resolved and
 * every address it resolves to must be public. The check runs when the URL is configured and again
 * at each delivery, and the delivery connects to the very address that was checked (pinned), so
 * a name re-pointed at an internal address between check and connect (DNS rebinding) gains
 * nothing. Redirects are never followed (delivery.ts).
 *
 * Always refused: unspecified, link-local, multicast, broadcast, documentation and reserved ranges,
 * and cloud metadata addresses (169.254.169.254, fd00:ec2::254, also when private ranges are
 * allowed). `allowLoopback` (WEBHOOK_ALLOW_LOOPBACK, development) admits 127.0.0.0/8 and ::1;
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE) admits RFC 1918, CGNAT (100.64.0.0/10) and unique-local
 * IPv6 (fc00::/7). HTTPS is required, except plain HTTP to a loopback host when loopback is allowed.
 */

export interface UrlPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

export type AddressClass =
  'public' | 'loopback' | 'private' | 'metadata' | 'link_local' | 'multicast' | 'unspecified' | 'reserved';

export class WebhookUrlError extends Error {}

export interface PinnedTarget {
  url: URL;
  /** The checked address the connection must use. */
  address: string;
  family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function v4(ranges: [string, number][]): BlockList {
  const b = new BlockList();
  for (const [net, bits] of ranges) b.addSubnet(net, bits, 'ipv4');
  return b;
}
function v6(ranges: [string, number][]): BlockList {
  const b = new BlockList();
  for (const [net, bits] of ranges) b.addSubnet(net, bits, 'ipv6');
  return b;
}

const METADATA_V4 = '169.254.169.254';
const METADATA_V6 = 'fd00:ec2::254';
// Order matters: the first class whose ranges hold the address wins.
const V4_CLASSES: [AddressClass, BlockList][] = [
  ['unspecified', v4([['0.0.0.0', 8]])],
  ['loopback', v4([['127.0.0.0', 8]])],
  ['link_local', v4([['169.254.0.0', 16]])],
  [
    'private',
    v4([
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
    ]),
  ],
  ['multicast', v4([['224.0.0.0', 4]])],
  [
    'reserved',
    v4([
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['240.0.0.0', 4],
    ]),
  ],
];
const V6_CLASSES: [AddressClass, BlockList][] = [
  ['unspecified', v6([['::', 128]])],
  ['loopback', v6([['::1', 128]])],
  ['link_local', v6([['fe80::', 10]])],
  [
    'private',
    v6([
      ['fc00::', 7],
      ['fec0::', 10],
    ]),
  ],
  ['multicast', v6([['ff00::', 8]])],
  [
    'reserved',
    v6([
      ['2001:db8::', 32],
      ['100::', 64],
      ['2001::', 23],
    ]),
  ],
];

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), which is where it really goes. */
function embeddedV4(ip: string): string | null {
  const groups = expandV6(ip);
  if (!groups) return null;
  const tail = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return tail(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return tail(groups[6], groups[7]);
  if (groups[0] === 0x2002) return tail(groups[1], groups[2]);
  return null;
}

function expandV6(ip: string): number[] | null {
  let s = ip.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const o = dotted[1].split('.').map(Number);
    s = s.slice(0, -dotted[1].length) + `${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  const parts = [...h, ...Array<string>(fill).fill('0'), ...t];
  if (parts.length !== 8) return null;
  return parts.map((p) => parseInt(p, 16));
}

export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 0) return 'reserved';
  if (family === 4) {
    if (ip === METADATA_V4) return 'metadata';
    if (ip === '255.255.255.255') return 'reserved';
    for (const [cls, list] of V4_CLASSES) if (list.check(ip, 'ipv4')) return cls;
    return 'public';
  }
  if (sameV6(ip, METADATA_V6)) return 'metadata';
  const inner = embeddedV4(ip);
  if (inner) return classifyAddress(inner);
  for (const [cls, list] of V6_CLASSES) if (list.check(ip, 'ipv6')) return cls;
  return 'public';
}

function sameV6(a: string, b: string): boolean {
  const x = expandV6(a);
  const y = expandV6(b);
  return x !== null && y !== null && x.every((g, i) => g === y[i]);
}

function addressAllowed(cls: AddressClass, policy: UrlPolicy): boolean {
  if (cls === 'public') return true;
  if (cls === 'loopback') return policy.allowLoopback;
  if (cls === 'private') return policy.allowPrivate;
  return false;
}

const DESCRIPTION: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  metadata: 'a cloud metadata address',
  link_local: 'a link-local address',
  multicast: 'a multicast address',
  unspecified: 'the unspecified address',
  reserved: 'a reserved address',
};

/** Checks the URL's form (no resolution): scheme, host, no credentials. */
function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError('not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookUrlError('the URL must use https');
  if (url.username || url.password) throw new WebhookUrlError('the URL must not carry credentials');
  if (!url.hostname) throw new WebhookUrlError('the URL has no host');
  return url;
}

/**
 * Resolves the URL's host and checks every address; returns the address to connect to. Throws
 * WebhookUrlError naming the reason (no address names the internal network in the message).
 */
export async function resolveWebhookTarget(
  raw: string,
  policy: UrlPolicy,
  lookup: Lookup = systemLookup,
): Promise<PinnedTarget> {
  const url = parseWebhookUrl(raw);
  if (url.protocol === 'http:' && !policy.allowLoopback) throw new WebhookUrlError('the URL must use https');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host);
    } catch (err) {
      throw new WebhookUrlError(
        `the host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  if (addresses.length === 0) throw new WebhookUrlError(`the host ${host} does not resolve`);
  // Every address must pass: a host answering with one public and one internal address could
  // otherwise steer the connection inside.
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    if (!addressAllowed(cls, policy))
      throw new WebhookUrlError(
        `the host ${host} resolves to ${DESCRIPTION[cls as Exclude<AddressClass, 'public'>]}, which webhooks may not reach`,
      );
  }
  const onlyLoopback = addresses.every((a) => classifyAddress(a.address) === 'loopback');
  if (url.protocol === 'http:' && !(onlyLoopback && policy.allowLoopback))
    throw new WebhookUrlError('the URL must use https');
  const first = addresses[0];
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
