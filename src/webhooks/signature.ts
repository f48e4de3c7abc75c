import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (SPEC.md "Signature verification"): `X-Service-Signature: t=<unix>,v1=<hex>`,
 * hex = HMAC-SHA256 keyed with the whole secret string as shown to the customer (`whsec_...`) over
 * `"<t>." + raw body bytes`.
 */

export const SIGNATURE_HEADER = 'X-Service-Signature';

/** A new signing secret: `whsec_` and 32 random bytes in base64url (43 characters). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function mac(secret: string, t: number | string, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}

function bytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** The header value for `body` signed at unix time `t` (seconds). */
export function signWebhook(body: string | Uint8Array, secret: string, t: number): string {
  return `t=${t},v1=${mac(secret, t, bytes(body)).toString('hex')}`;
}

/**
 * Verifies a received webhook: `rawBody` exactly as received (not re-serialized JSON), the
 * `X-Service-Signature` header, the endpoint's secret. False when the header is malformed, no
 * `v1` signature matches (compared in constant time), or `t` is further than `toleranceSeconds`
 * from now (replays).
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  opts: { toleranceSeconds?: number; now?: () => number } = {},
): boolean {
  if (!header) return false;
  const tolerance = opts.toleranceSeconds ?? 300;
  let t: string | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') t = v;
    else if (k === 'v1') candidates.push(v);
  }
  if (t === null || !/^\d{1,12}$/.test(t) || candidates.length === 0) return false;
  const nowSeconds = Math.floor((opts.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - Number(t)) > tolerance) return false;
  const expected = mac(secret, t, bytes(rawBody));
  let ok = false;
  for (const c of candidates) {
    if (!/^[0-9a-f]{64}$/i.test(c)) continue;
    if (timingSafeEqual(expected, Buffer.from(c, 'hex'))) ok = true;
  }
  return ok;
}
