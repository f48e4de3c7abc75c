/**
 * Government identifier normalization: passports, national IDs and tax numbers are compared on
 * their letters and digits only, so `AB 123-456` and `ab123456` are the same key.
 */
const CANONICAL = /^[A-Z0-9]*$/;

export function normalizeGovernmentId(value: string): string {
  // Keys are compared against many candidates: skip the Unicode work for values already canonical.
  if (CANONICAL.test(value)) return value;
  return value
    .normalize('NFKD')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '');
}
