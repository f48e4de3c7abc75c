/**
 * IP intelligence micro-benchmarks on the real lists and the DB-IP database.
 *   node --import tsx bench/ipintel.ts [SOURCE_DIR] [--probes N]
 * SOURCE_DIR defaults to ../shared/data. Probes are N deterministic pseudo-random addresses
 * (half IPv4, half IPv6 inside 2000::/3, plus list members so both branches run), generated
 * before timing. Prints a markdown table of benchmark.js rates: the pure interval index (text
 * parse + binary search), the `/vpn` answer (all signals), and the `/geo` answer (maxmind).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_DATA } from '../harness/paths.js';
import Benchmark from 'benchmark';
import pino from 'pino';
import { IpRangeSet, parseRangeList } from '../engine/ip-ranges.js';
import { loadConfig } from '../src/config.js';
import { createIpIntel } from '../src/ipintel/index.js';
import { xorshift32 } from '../harness/random.js';

const args = process.argv.slice(2);
const probesAt = args.indexOf('--probes');
const probeCount = probesAt >= 0 ? Number(args[probesAt + 1]) : 100_000;
const sourceDir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--probes') ?? SHARED_DATA;

function probes(n: number, members: string[]): string[] {
  const next = xorshift32(2024);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 10 === 0 && members.length) out.push(members[next() % members.length]);
    else if (i % 2 === 0) {
      const v = next();
      out.push(`${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`);
    } else {
      const g = Array.from({ length: 8 }, (_, k) =>
        (k === 0 ? 0x2000 | (next() & 0x1fff) : next() & 0xffff).toString(16),
      );
      out.push(g.join(':'));
    }
  }
  return out;
}

const log = pino({ level: 'silent' });
const dataDir = await mkdtemp(join(tmpdir(), 'bench-ipintel-'));
try {
  const text = async (f: string) => readFile(join(sourceDir, 'ip', f), 'utf8');
  let t = performance.now();
  const lists = await Promise.all(['vpn-ipv4.txt', 'vpn-ipv6.txt', 'tor-exit-nodes.txt'].map(text));
  const ranges = lists.flatMap((l) => parseRangeList(l).ranges);
  const set = IpRangeSet.fromRanges(ranges);
  const buildMs = performance.now() - t;
  const members = parseRangeList(lists[2]).ranges.map((r) => {
    const v = Number(r.start);
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  });
  t = performance.now();
  const intel = await createIpIntel({
    config: loadConfig({ SOURCE_DIR: sourceDir, DATA_DIR: dataDir }),
    log,
    isSanctionedPlace: (country) => country === 'IR',
    refreshIntervalMs: 0,
  });
  const startMs = performance.now() - t;
  const ips = probes(probeCount, members);
  let i = 0;
  let sink = 0;
  const rows: string[] = [];
  await new Promise<void>((done) => {
    new Benchmark.Suite()
      .add('interval index: contains(text)', () => {
        if (set.contains(ips[i++ % ips.length])) sink++;
      })
      .add('vpn(ip): VpnResponse', () => {
        if (intel.vpn(ips[i++ % ips.length]).vpn === true) sink++;
      })
      .add('signals(ip): vpn, tor, datacenter', () => {
        if (intel.signals(ips[i++ % ips.length]).datacenter === true) sink++;
      })
      .add('geo(ip): GeoResponse', () => {
        if (intel.geo(ips[i++ % ips.length]).sanctioned) sink++;
      })
      .on('cycle', (e: Benchmark.Event) => {
        const b = e.target;
        rows.push(
          `| ${b.name} | ${Math.round(b.hz!).toLocaleString('en-US')} | ±${b.stats!.rme.toFixed(1)}% | ${(1e6 / b.hz!).toFixed(3)} |`,
        );
      })
      .on('complete', () => done())
      .run();
  });
  intel.close();
  console.log(
    `IP lists: ${ranges.length} entries → ${set.size.v4} IPv4 + ${set.size.v6} IPv6 merged ranges, built in ${buildMs.toFixed(0)} ms; createIpIntel (all lists + DB-IP) ${startMs.toFixed(0)} ms; ${ips.length} distinct probes.\n`,
  );
  console.log('| operation | ops/s | error | µs/op |\n|---|---|---|---|');
  for (const r of rows) console.log(r);
  if (sink < 0) console.log(sink);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
