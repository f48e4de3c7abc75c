/**
 * E-mail normalization: trimmed, lower-cased, the domain in IDNA ASCII form. The domain is returned
 * separately so a screening can also match listed e-mail domains.
 */
import { asciiHost } from './website.js';

const LOCAL_RE = /^[^\s@<>()[\]\\,;:"\x00-\x1f\x7f-\x9f]+$/u;

export function normalizeEmail(value: string): { key: string; domain: string } | null {
  let v = value.trim();
  // Published lists sometimes keep the label or the URI scheme in front of the address.
  v = v.replace(/^(?:mailto|e-?mail):\s*/i, '');
  const at = v.indexOf('@');
  if (at <= 0 || at !== v.lastIndexOf('@') || at === v.length - 1) return null;
  const local = v.slice(0, at).normalize('NFC').toLowerCase();
  if (local.length > 64 || !LOCAL_RE.test(local)) return null;
  const rawDomain = v.slice(at + 1);
  if (rawDomain.startsWith('[')) return null;
  // An address's domain keeps a `www.` label (it is part of the mail domain); IP literals are refused.
  const domain = asciiHost(rawDomain);
  if (!domain || rawDomain.startsWith('*') || /^[\d.]+$/.test(domain)) return null;
  return { key: `${local}@${domain}`, domain };
}
