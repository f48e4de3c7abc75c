import type { Cadence } from './types.js';

/**
 * When each list is next checked. `scheduled` (the primary list) runs at fixed UTC minutes of every
 * hour; the interval cadences run that long after the previous attempt; `static` lists (data shipped
 * in a package or the repository) are read once per process start, since they change only with a
 * deployment. Everything takes the current time as an argument: no clock is read here.
 */

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

const HOUR = 3_600_000;
const CADENCE_INTERVAL_MS: Record<Exclude<Cadence, 'scheduled' | 'static' | 'manual'>, number> = {
  hourly: HOUR,
  daily: 24 * HOUR,
  weekly: 7 * 24 * HOUR,
};

/** The first instant strictly after `now` whose UTC minute is in `minutes` (at second 0). */
export function nextScheduledMinute(minutes: readonly number[], now: Date): Date {
  if (minutes.length === 0) throw new Error('no check minutes given');
  const sorted = [...minutes].sort((a, b) => a - b);
  const hour = new Date(now);
  hour.setUTCMinutes(0, 0, 0);
  for (let h = 0; h < 2; h++) {
    for (const m of sorted) {
      const t = new Date(hour.getTime() + h * HOUR + m * 60_000);
      if (t.getTime() > now.getTime()) return t;
    }
  }
  throw new Error('unreachable: minutes are within an hour');
}

/**
 * Next check of a list whose last attempt was at `lastAttempt` (null: never checked, so due now).
 * Null means no further check in this process.
 */
export function nextCheckAt(
  cadence: Cadence,
  lastAttempt: Date | null,
  now: Date,
  minutesUtc: readonly number[],
): Date | null {
  if (lastAttempt === null) return now;
  switch (cadence) {
    case 'static':
    case 'manual':
      return null;
    case 'scheduled':
      return nextScheduledMinute(minutesUtc, lastAttempt);
    default:
      return new Date(lastAttempt.getTime() + CADENCE_INTERVAL_MS[cadence]);
  }
}

/** Whether a list is due at `now`, given its last attempt (from this or an earlier process). */
export function isDue(cadence: Cadence, lastAttempt: Date | null, now: Date, minutesUtc: readonly number[]): boolean {
  if (lastAttempt === null) return true;
  if (cadence === 'static' || cadence === 'manual') return false;
  return nextCheckAt(cadence, lastAttempt, now, minutesUtc)!.getTime() <= now.getTime();
}

/**
 * The longest a list may go between two successful checks before it counts as stale: one
 * interval of its cadence (the widest gap between the primary list's check minutes); null for
 * lists that are never checked on a schedule (static, manual).
 */
export function cadenceIntervalMs(cadence: Cadence, minutesUtc: readonly number[]): number | null {
  switch (cadence) {
    case 'static':
    case 'manual':
      return null;
    case 'scheduled': {
      const sorted = [...new Set(minutesUtc)].sort((a, b) => a - b);
      let gap = 60 - sorted[sorted.length - 1] + sorted[0];
      for (let i = 1; i < sorted.length; i++) gap = Math.max(gap, sorted[i] - sorted[i - 1]);
      return gap * 60_000;
    }
    default:
      return CADENCE_INTERVAL_MS[cadence];
  }
}

/** The primary list's schedule as `/stats` reports it. */
export class PrimarySchedule {
  readonly checkMinutesUtc: readonly number[];
  constructor(
    minutes: readonly number[],
    private readonly clock: Clock = systemClock,
  ) {
    this.checkMinutesUtc = [...new Set(minutes)].sort((a, b) => a - b);
    if (this.checkMinutesUtc.length === 0) throw new Error('no check minutes given');
  }

  nextCheckAt(now: Date = this.clock()): Date {
    return nextScheduledMinute(this.checkMinutesUtc, now);
  }
}
