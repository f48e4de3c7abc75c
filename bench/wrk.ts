import { spawn, spawnSync } from 'node:child_process';

/** Runs wrk and parses requests/s and latency percentiles from its `--latency` report. */
export interface WrkResult {
  rps: number;
  /** Requests completed in the run. */
  requests: number;
  p50ms: number;
  p90ms: number;
  p99ms: number;
  non2xx: number;
  errors: number;
}

export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

function ms(text: string | undefined): number {
  if (!text) return NaN;
  const m = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
}

export function wrk(
  url: string,
  opts: { seconds: number; connections: number; threads?: number; headers?: Record<string, string>; script?: string },
): Promise<WrkResult> {
  const args = ['-t', String(opts.threads ?? 1), '-c', String(opts.connections), '-d', `${opts.seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (opts.script) args.push('-s', opts.script);
  args.push(url);
  return new Promise((resolve, reject) => {
    const p = spawn('wrk', args);
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
      const requests = Number(/(\d+) requests in /.exec(out)?.[1] ?? NaN);
      const pct = (p: string) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const e = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = e ? e.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
      if (Number.isNaN(rps) || Number.isNaN(requests)) reject(new Error(`wrk failed: ${out}`));
      else resolve({ rps, requests, p50ms: pct('50'), p90ms: pct('90'), p99ms: pct('99'), non2xx, errors });
    });
  });
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
