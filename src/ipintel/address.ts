import { isV4Mapped, parseIPv4, parseIPv6 } from '../../engine/ip-ranges.js';

export type Address =
  | { family: 4; value: number; /** Canonical dotted text. */ text: string }
  | { family: 6; words: Uint32Array; text: string };

/**
 * Parses IPv4 or IPv6 text. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is treated as the IPv4 address
 * it carries: that is how dual-stack sockets report IPv4 clients. `words` receives an IPv6
 * address (a caller on the hot path passes a reused buffer and drops the result before the next call).
 */
export function parseAddress(ip: string, words = new Uint32Array(4)): Address | null {
  const v4 = parseIPv4(ip);
  if (v4 >= 0) return { family: 4, value: v4, text: ip };
  if (!parseIPv6(ip, words)) return null;
  if (isV4Mapped(words)) {
    const v = words[3];
    return { family: 4, value: v, text: `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}` };
  }
  const zone = ip.indexOf('%');
  return { family: 6, words, text: zone < 0 ? ip : ip.slice(0, zone) };
}
