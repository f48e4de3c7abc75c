import { BlockList, isIP } from 'node:net';

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy, in which case the
 * right-most address of `X-Forwarded-For` (or `Forwarded: for=`) that is not itself a trusted proxy.
 * Walking from the right means a client cannot spoof its address by prepending entries.
 */
export class ClientIpResolver {
  private readonly trusted = new BlockList();
  private readonly any: boolean;

  constructor(trustedProxies: readonly string[]) {
    for (const entry of trustedProxies) {
      const [ip, bits] = entry.split('/');
      const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.trusted.addAddress(ip, type);
      else this.trusted.addSubnet(ip, Number(bits), type);
    }
    this.any = trustedProxies.length > 0;
  }

  isTrusted(ip: string): boolean {
    if (!this.any) return false;
    const family = isIP(ip);
    if (family === 0) return false;
    return this.trusted.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  }

  resolve(peer: string, forwardedFor: string | undefined, forwarded: string | undefined): string {
    const peerIp = normalizeIp(peer);
    if (!this.isTrusted(peerIp)) return peerIp;
    const chain = forwardedFor ? forwardedFor.split(',') : forwarded ? parseForwarded(forwarded) : [];
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = normalizeIp(stripPort(chain[i].trim()));
      if (isIP(hop) === 0) break;
      if (!this.isTrusted(hop)) return hop;
    }
    return peerIp;
  }
}

function parseForwarded(header: string): string[] {
  const out: string[] = [];
  for (const element of header.split(',')) {
    for (const pair of element.split(';')) {
      const [k, v] = pair.split('=');
      if (k?.trim().toLowerCase() === 'for' && v) out.push(v.trim().replace(/^"|"$/g, ''));
    }
  }
  return out;
}

function stripPort(hop: string): string {
  if (hop.startsWith('[')) return hop.slice(1, hop.indexOf(']'));
  const colons = hop.split(':').length - 1;
  return colons === 1 ? hop.slice(0, hop.indexOf(':')) : hop;
}

/**
 * Canonical text of an address: IPv4-mapped IPv6 (as uWS reports IPv4 peers on a dual-stack
 * socket, sometimes in uncompressed form) becomes dotted IPv4, and IPv6 is compressed.
 */
export function normalizeIp(text: string): string {
  const s = text.trim();
  if (isIP(s) === 4) return s;
  if (isIP(s) !== 6) return s;
  const groups = expandIpv6(s);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  }
  return compressIpv6(groups);
}

function expandIpv6(s: string): number[] {
  let text = s.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const p = v4[1].split('.').map(Number);
    text = text.slice(0, -v4[1].length) + `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const fill = tail !== undefined ? 8 - h.length - t.length : 0;
  return [...h, ...Array<string>(fill).fill('0'), ...t].map((g) => parseInt(g, 16));
}

function compressIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}
