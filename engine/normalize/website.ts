/**
 * Website and domain normalization. A listed domain is keyed by its host (IDNA ASCII, lower-case,
 * without `www.` and the trailing root dot); subdomain matching walks `domainAncestors`.
 */
import { domainToASCII } from 'node:url';
import { recentMemo } from './recent-memo.js';

const SCHEME_RE = /^[a-z][a-z0-9+.-]*:\/\//i;
const LABEL_RE = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const IPV4_RE = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
/**
 * Hosts that IDNA processing (`domainToASCII`) would only lower-case: ASCII letters, digits, dots
 * and hyphens, no punycode label, the last label starting with a letter (so never an IPv4 form,
 * which WHATWG parsing would rewrite). Most listed domains are such; they skip the URL machinery.
 */
const PLAIN_HOST_RE = /^[a-z0-9.-]+$/i;
/** `http(s)://` (or nothing), host characters, then nothing or a path, query or fragment. */
const PLAIN_URL_RE = /^(?:https?:\/\/)?([a-z0-9.-]+)(?:[/?#]\S*)?$/i;

function plainHost(host: string): boolean {
  if (!PLAIN_HOST_RE.test(host) || /xn--/i.test(host)) return false;
  const dot = host.lastIndexOf('.');
  const c = host.charCodeAt(dot + 1) | 0x20;
  return dot >= 0 && c >= 0x61 && c <= 0x7a;
}

/**
 * Validated lower-case IDNA ASCII form of a host name (or bracketed IPv6 literal), without the
 * trailing root dot; null when it is not a host.
 */
export const asciiHost: (hostname: string) => string | null = recentMemo(hostToAscii);

function hostToAscii(hostname: string): string | null {
  let host = hostname;
  if (host.startsWith('[')) return /^\[[0-9a-f:.]+\]$/i.test(host) ? host.toLowerCase() : null;
  if (host.includes('%')) {
    try {
      host = decodeURIComponent(host);
    } catch {
      return null;
    }
  }
  host = plainHost(host) ? host.toLowerCase() : domainToASCII(host.replace(/[\u3002\uff0e\uff61]/g, '.')).toLowerCase();
  if (!host) return null;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('*.')) host = host.slice(2);
  if (IPV4_RE.test(host)) return host.split('.').every((o) => Number(o) <= 255) ? host : null;
  if (host.length > 253) return null;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL_RE.test(l))) return null;
  if (/^\d+$/.test(labels[labels.length - 1])) return null;
  return host;
}

/** `asciiHost` without a leading `www.` label: the key of a website. */
function normalizeHost(hostname: string): string | null {
  const host = asciiHost(hostname);
  return host && host.startsWith('www.') && host.indexOf('.', 4) > 0 ? host.slice(4) : host;
}

/**
 * Host of a full URL (any scheme, with userinfo, port, path, query) or of a bare domain, as
 * `normalizeHost` gives it; null when there is no valid host.
 */
export function normalizeWebsite(value: string): string | null {
  const v = value.trim();
  const plain = PLAIN_URL_RE.exec(v);
  if (plain && plainHost(plain[1])) return normalizeHost(plain[1]);
  if (!v || /\s/.test(v)) return null;
  // A scheme without an authority (`mailto:`, `javascript:`) names no host; `host:port` does.
  if (!SCHEME_RE.test(v) && /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(v)) return null;
  let url: URL;
  try {
    url = new URL(SCHEME_RE.test(v) ? v : `http://${v}`);
  } catch {
    return null;
  }
  return url.hostname ? normalizeHost(url.hostname) : null;
}

/**
 * Second-level labels under which country-code registries sell names (`example.co.uk`,
 * `example.com.au`): with a two-letter top-level domain they form a public suffix.
 */
const CC_SECOND_LEVEL = new Set([
  'ac',
  'co',
  'com',
  'edu',
  'gob',
  'gov',
  'gouv',
  'go',
  'govt',
  'info',
  'biz',
  'ltd',
  'me',
  'mil',
  'ne',
  'net',
  'nic',
  'nom',
  'or',
  'org',
  'plc',
  'sch',
  'web',
  'res',
  'in',
  'int',
  'mod',
  'police',
  'nhs',
]);

/**
 * Suffixes under which anyone can publish a site (PSL "private" section entries frequent in
 * phishing lists), so the shared parent is never matched as the listed party.
 */
const SHARED_HOSTING = new Set([
  'github.io',
  'gitlab.io',
  'blogspot.com',
  'herokuapp.com',
  'firebaseapp.com',
  'web.app',
  'netlify.app',
  'vercel.app',
  'pages.dev',
  'workers.dev',
  'azurewebsites.net',
  'cloudfront.net',
  'appspot.com',
  'wixsite.com',
  'weebly.com',
  '000webhostapp.com',
  'glitch.me',
  'repl.co',
  'ngrok.io',
  'duckdns.org',
  'no-ip.org',
  'myshopify.com',
  'wordpress.com',
  'sites.google.com',
  'square.site',
  'webflow.io',
  'r2.dev',
  'ipfs.io',
  'fleek.co',
  'surge.sh',
  'onrender.com',
  'fly.dev',
  'translate.goog',
]);

function isPublicSuffix(labels: string[], from: number): boolean {
  const n = labels.length - from;
  if (n <= 1) return true;
  if (n === 2 && labels[labels.length - 1].length === 2 && CC_SECOND_LEVEL.has(labels[from])) return true;
  return SHARED_HOSTING.has(labels.slice(from).join('.'));
}

const NO_ANCESTORS: readonly string[] = Object.freeze([]);

/**
 * Parent domains of a normalized host, nearest first, stopping before a public suffix:
 * `a.b.example.co.uk` → [`b.example.co.uk`, `example.co.uk`]. IP literals have none. The array
 * is shared by every caller asking for the same host, hence frozen.
 */
export const domainAncestors: (host: string) => readonly string[] = recentMemo(parentDomains);

function parentDomains(host: string): readonly string[] {
  if (host.startsWith('[') || IPV4_RE.test(host)) return NO_ANCESTORS;
  const labels = host.split('.');
  const out: string[] = [];
  for (let i = 1; i < labels.length; i++) {
    if (isPublicSuffix(labels, i)) break;
    out.push(labels.slice(i).join('.'));
  }
  return out.length === 0 ? NO_ANCESTORS : Object.freeze(out);
}
