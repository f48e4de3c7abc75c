import { openSync, readSync } from 'node:fs';

/**
 * CPU time the calling thread has run, in milliseconds: what a scan's budget counts, so that a
 * machine busy with other work slows a scan down without cutting it short. Linux keeps each
 * thread's run time in nanoseconds in /proc/thread-self/schedstat (the file is opened once per
 * thread, since the link resolves to the thread that opens it, and re-read in place).
 * Elsewhere the process's CPU time stands in; it still ignores other processes.
 */
export type CpuClock = () => number;

let clock: CpuClock | null = null;

export function threadCpuClock(): CpuClock {
  return (clock ??= schedstatClock() ?? processCpuClock);
}

function schedstatClock(): CpuClock | null {
  let fd: number;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return null;
  }
  const buf = Buffer.alloc(80);
  const read = (): number => {
    const n = readSync(fd, buf, 0, buf.length, 0);
    let ns = 0;
    for (let i = 0; i < n; i++) {
      const c = buf[i];
      if (c < 48 || c > 57) break;
      ns = ns * 10 + (c - 48);
    }
    return ns / 1e6;
  };
  return read() > 0 ? read : null;
}

function processCpuClock(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
