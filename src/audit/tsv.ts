/**
 * Fields of ClickHouse's TabSeparated input format, as the writers encode rows at push time.
 * Each function returns the field's text or throws for a value the column would reject, so a
 * bad row fails its own push instead of every later insert of its table.
 */

// Backslash and every C0 control character are escaped: tab and newline delimit fields and
// rows, a raw NUL or CR is ambiguous to some readers. DEL and all other characters go as they
// are (the payload is UTF-8).
const SPECIAL = /[\x00-\x1f\\]/;
const SPECIALS = /[\x00-\x1f\\]/g;
const NAMED: Record<number, string> = { 0x00: '\\0', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r' };
const ESCAPES: string[] = [];
for (let c = 0; c < 0x20; c++) ESCAPES[c] = NAMED[c] ?? `\\x${c.toString(16).padStart(2, '0')}`;
ESCAPES[0x5c] = '\\\\';
const escapeChar = (ch: string) => ESCAPES[ch.charCodeAt(0)];

/** Throws unless `s` can be a String column's value (any string can). */
export function checkText(s: string): void {
  if (typeof s !== 'string') throw new TypeError(`expected a string, got ${typeof s}`);
}

/** A String column. */
export function text(s: string): string {
  checkText(s);
  return SPECIAL.test(s) ? s.replace(SPECIALS, escapeChar) : s;
}

/** A Nullable(String) column (`\N` is NULL; the text `\N` itself is escaped by `text`). */
export function nullableText(s: string | null): string {
  return s === null ? '\\N' : text(s);
}

export function checkNullableText(s: string | null): void {
  if (s !== null) checkText(s);
}

/** An unsigned integer column of at most `max`. */
export function uint(n: number, max: number): number {
  if (!(Number.isInteger(n) && n >= 0 && n <= max))
    throw new RangeError(`expected an integer in [0, ${max}], got ${n}`);
  return n;
}

export const UINT8 = 0xff;
export const UINT16 = 0xffff;
export const UINT32 = 0xffff_ffff;

const UINT64_DIGITS = /^\d{1,20}$/;
const UINT64_MAX = '18446744073709551615';

/** A UInt64 column from its decimal text (64-bit amounts travel as strings). */
export function uint64(s: string): string {
  if (typeof s !== 'string' || !UINT64_DIGITS.test(s) || (s.length === 20 && s > UINT64_MAX)) {
    throw new RangeError(`expected a UInt64 as decimal text, got ${String(s)}`);
  }
  return s;
}

// DateTime64(3) range: 1900-01-01 to 2299-12-31.
const MIN_MS = Date.UTC(1900, 0, 1);
const MAX_MS = Date.UTC(2300, 0, 1);
// Times whose epoch second has exactly 10 digits: 2001-09-09 01:46:40 to 2286-11-20 17:46:39 UTC.
const MIN_EPOCH_MS = 1e12;
const MAX_EPOCH_MS = 1e13;
/** `000` to `999`. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let cachedSecond = NaN;
let cachedPrefix = '';

/**
 * A DateTime64(3, 'UTC') column from epoch milliseconds. The text up to the millisecond is
 * computed once per second, which rows mostly share.
 * - From 2001-09-09 to 2286-11-20 (every time the service stamps), as epoch seconds with three
 *   decimals, `1764000000.123`: ClickHouse parses that number in about half the time of the date
 *   form, and it is 9 bytes shorter.
 * - Otherwise as `YYYY-MM-DD hh:mm:ss.mmm`: text input guesses what a bare number is from its
 *   digit count, and shorter or negative seconds are where the guesses start.
 */
export function dateTime64(ms: number): string {
  checkTime(ms);
  const t = Math.floor(ms);
  const second = Math.floor(t / 1000);
  if (second !== cachedSecond) {
    if (t >= MIN_EPOCH_MS && t < MAX_EPOCH_MS) {
      cachedPrefix = `${second}.`;
    } else {
      // toISOString: `YYYY-MM-DDThh:mm:ss.sssZ`.
      const iso = new Date(second * 1000).toISOString();
      cachedPrefix = `${iso.slice(0, 10)} ${iso.slice(11, 20)}`;
    }
    cachedSecond = second;
  }
  return cachedPrefix + MILLIS[t - second * 1000];
}

/** Throws unless `ms` is a time a DateTime64(3) column holds. */
export function checkTime(ms: number): void {
  if (!(ms >= MIN_MS && ms < MAX_MS)) throw new RangeError(`time out of the DateTime64 range: ${ms}`);
}

/** An Enum8 column: one of its names. */
export function member<T extends string>(s: T, names: readonly T[]): T {
  if (!names.includes(s)) throw new RangeError(`expected one of ${names.join(', ')}, got ${String(s)}`);
  return s;
}
