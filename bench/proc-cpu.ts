import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time as Linux accounts it in /proc, for benchmarks that say where a request's CPU went:
 * per thread of a process, the children this process waited for (wrk), and the whole machine
 * (idle time, and softirq time, which a kernel built without CONFIG_IRQ_TIME_ACCOUNTING also
 * charges to the thread it interrupted).
 */

/** Linux reports these times in clock ticks of 1/100 s (USER_HZ). */
export const TICK_US = 10_000;

/** The fields after a /proc stat line's name, which is in parentheses and may hold spaces. */
function statFields(stat: string): { name: string; fields: string[] } {
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/** CPU ticks (user + system) of every live thread of `pid`, by thread id. */
export function threadTicks(pid: number | 'self' = 'self'): Map<number, { name: string; ticks: number }> {
  const out = new Map<number, { name: string; ticks: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const { name, fields } = statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      // utime and stime are the 12th and 13th fields after the name.
      out.set(Number(tid), { name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** CPU ticks of `pid`: its main thread, and all its threads (those that ended included). */
export function processTicks(pid: number): { main: number; all: number } {
  const { fields } = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const main = statFields(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')).fields;
  return { main: Number(main[11]) + Number(main[12]), all: Number(fields[11]) + Number(fields[12]) };
}

/** CPU ticks of this process's children that ended and were waited for (cutime + cstime). */
export function childrenTicks(): number {
  const { fields } = statFields(readFileSync('/proc/self/stat', 'utf8'));
  return Number(fields[13]) + Number(fields[14]);
}

/** The machine's CPU ticks, all cores together (the first line of /proc/stat). */
export function machineTicks(): { softirq: number; idle: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is also in user.
  const t = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return { softirq: t[6], idle: t[3] + t[4], total: t.reduce((a, b) => a + b, 0) };
}
