/** Numbers, dates and days as the dashboard shows them (UTC days, like the API). */
const integer = new Intl.NumberFormat('en-US');

export function count(n: number): string {
  return integer.format(n);
}

/** A count with its noun, singular for one: "1 match", "3 matches". */
export function counted(n: number, one: string, many: string): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

const DAY = 86_400_000;

/** `YYYY-MM-DD` of a time, UTC. */
function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The last `n` days up to today (UTC), as the API's `from`/`to`. */
export function lastDays(n: number, now = Date.now()): { from: string; to: string } {
  return { from: day(now - (n - 1) * DAY), to: day(now) };
}

/** Base units of a 6-decimal stablecoin as a dollar amount. */
export function usd(baseUnits: string | number): string {
  const n = Number(baseUnits) / 1e6;
  return `$${n.toFixed(n < 1 ? 4 : 2)}`;
}
