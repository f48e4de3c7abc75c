import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time as Linux accounts it in /proc, for benchmarks that say where a request's CPU went:
 * per thread of a process, the children this process waited for (wrk), and the whole machine
 * (idle time, and softirq time, which a kernel built without CONFIG_IRQ_TIME_ACCOUNTING also
 * charges to the thread it interrupted).
 */

/** Linux reports these times in clock ticks of 1/100 s (USER_HZ). */
export const TICK_US = 10_000;

/** A /proc stat file: the name, which is in parentheses and may hold spaces, and the fields after it. */
function readStat(path: string): { name: string; fields: string[] } {
  const stat = readFileSync(path, 'utf8');
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/** utime + stime, the 12th and 13th fields after the name. */
const ownTicks = (fields: string[]) => Number(fields[11]) + Number(fields[12]);

/** CPU ticks (user + system) of every live thread of this process, by thread id. */
export function threadTicks(): Map<number, { name: string; ticks: number }> {
  const out = new Map<number, { name: string; ticks: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const { name, fields } = readStat(`/proc/self/task/${tid}/stat`);
      out.set(Number(tid), { name, ticks: ownTicks(fields) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** CPU ticks of `pid`: its main thread, and all its threads (those that ended included). */
export function processTicks(pid: number): { main: number; all: number } {
  return {
    main: ownTicks(readStat(`/proc/${pid}/task/${pid}/stat`).fields),
    all: ownTicks(readStat(`/proc/${pid}/stat`).fields),
  };
}

/** CPU ticks of this process's children that ended and were waited for (cutime + cstime, the next two fields). */
export function childrenTicks(): number {
  const { fields } = readStat('/proc/self/stat');
  return Number(fields[13]) + Number(fields[14]);
}

/** The machine's CPU ticks, all cores together (the first line of /proc/stat). */
export function machineTicks(): { softirq: number; idle: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is also in user.
  const t = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return { softirq: t[6], idle: t[3] + t[4], total: t.reduce((a, b) => a + b, 0) };
}
