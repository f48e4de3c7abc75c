import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createIpIntel, type IpIntel, type IsSanctionedPlace } from '../../src/ipintel/index.js';
import { regionCode } from '../../src/ipintel/regions.js';
import { FIXTURES, SHARED_DATA } from '../../harness/paths.js';

const log = pino({ level: 'silent' });

/**
 * The designations the lead wires in from the country designations list, reduced to what these
 * tests touch: comprehensively sanctioned countries and the occupied regions of Ukraine.
 */
const DESIGNATED = new Set(['IR', 'CU', 'KP', 'SY', 'UA-43', 'UA-40', 'UA-14', 'UA-09']);
const calls: [string, string | null][] = [];
const isSanctionedPlace: IsSanctionedPlace = (country, region) => {
  calls.push([country, region]);
  return DESIGNATED.has(country) || (region !== null && DESIGNATED.has(region));
};

async function withDataDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'ipintel-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('IP intelligence on the shared lists and the DB-IP database', () => {
  let intel: IpIntel;
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ipintel-'));
    intel = await createIpIntel({
      config: loadConfig({ SOURCE_DIR: SHARED_DATA, DATA_DIR: dataDir }),
      log,
      isSanctionedPlace,
      refreshIntervalMs: 0,
    });
  });
  after(async () => {
    intel.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('every list is loaded', () => {
    assert.deepEqual(
      intel.status().map((s) => [s.key, s.loaded, s.ranges, s.invalid_lines, s.error]),
      [
        ['vpn-ipv4', true, 10862, 0, null],
        ['vpn-ipv6', true, 498, 0, null],
        ['tor-exit-nodes', true, 1372, 0, null],
        ['datacenter-ipv4', true, 42566, 0, null],
        ['datacenter-ipv6', true, 8752, 0, null],
      ],
    );
  });

  test('a Tor exit node is a VPN', () => {
    assert.deepEqual(intel.vpn('171.25.193.25'), { ip: '171.25.193.25', vpn: true });
    assert.deepEqual(intel.signals('171.25.193.25'), {
      ip: '171.25.193.25',
      family: 4,
      vpn: true,
      tor: true,
      datacenter: false,
    });
  });

  test('both edges of an IPv4 VPN range (2.26.157.0/24) are VPN, the neighbours are not', () => {
    assert.equal(intel.vpn('2.26.157.0').vpn, true);
    assert.equal(intel.vpn('2.26.157.255').vpn, true);
    assert.equal(intel.vpn('2.26.156.255').vpn, false);
    assert.equal(intel.vpn('2.26.158.0').vpn, false);
  });

  test('both edges of an IPv6 VPN range (2001:550:1d05::/48) are VPN, the neighbours are not', () => {
    assert.equal(intel.vpn('2001:550:1d05::').vpn, true);
    assert.equal(intel.vpn('2001:550:1d05:ffff:ffff:ffff:ffff:ffff').vpn, true);
    assert.equal(intel.vpn('2001:550:1d04:ffff:ffff:ffff:ffff:ffff').vpn, false);
    assert.equal(intel.vpn('2001:550:1d06::').vpn, false);
  });

  test('an IPv4-mapped IPv6 address is evaluated as its IPv4 address', () => {
    assert.deepEqual(intel.vpn('::ffff:171.25.193.25'), { ip: '::ffff:171.25.193.25', vpn: true });
    assert.equal(intel.geo('::ffff:8.8.8.8').city, 'Mountain View');
  });

  test('a datacenter range is its own signal, not a VPN', () => {
    assert.deepEqual(intel.signals('8.8.8.8'), { ip: '8.8.8.8', family: 4, vpn: false, tor: false, datacenter: true });
    assert.deepEqual(intel.vpn('8.8.8.8'), { ip: '8.8.8.8', vpn: false });
    assert.deepEqual(intel.signals('2001:310::1'), {
      ip: '2001:310::1',
      family: 6,
      vpn: false,
      tor: 'unknown',
      datacenter: true,
    });
  });

  test('8.8.8.8 is in Mountain View, US, not sanctioned', () => {
    calls.length = 0;
    assert.deepEqual(intel.geo('8.8.8.8'), {
      ip: '8.8.8.8',
      city: 'Mountain View',
      region: 'California',
      country: 'US',
      sanctioned: false,
      source_url: 'https://db-ip.com',
    });
    assert.deepEqual(calls, [['US', null]]);
  });

  test('an Iranian and a Cuban address are in sanctioned countries', () => {
    assert.deepEqual(intel.geo('5.160.0.1'), {
      ip: '5.160.0.1',
      city: 'Tehran (District 6)',
      region: 'Tehran',
      country: 'IR',
      sanctioned: true,
      source_url: 'https://db-ip.com',
    });
    const cuba = intel.geo('152.206.0.1');
    assert.equal(cuba.country, 'CU');
    assert.equal(cuba.sanctioned, true);
  });

  test('an address located in Crimea is sanctioned by region, whatever country the database names', () => {
    calls.length = 0;
    const crimea = intel.geo('5.3.41.1');
    assert.deepEqual([crimea.country, crimea.region, crimea.sanctioned], ['RU', 'Crimea', true]);
    assert.deepEqual(calls, [['RU', 'UA-43']]);
    const kyiv = intel.geo('176.104.32.1');
    assert.deepEqual([kyiv.city, kyiv.country, kyiv.sanctioned], ['Kyiv', 'UA', false]);
  });

  test('IPv6 geolocation', () => {
    assert.deepEqual(intel.geo('2a02:2168::1'), {
      ip: '2a02:2168::1',
      city: 'Moscow',
      region: 'Moscow',
      country: 'RU',
      sanctioned: false,
      source_url: 'https://db-ip.com',
    });
  });

  test('an address the database does not place: nulls, and no sanctions verdict', () => {
    assert.deepEqual(intel.geo('10.0.0.1'), {
      ip: '10.0.0.1',
      city: null,
      region: null,
      country: null,
      sanctioned: null,
      source_url: null,
    });
    assert.deepEqual(intel.geo('not an ip'), {
      ip: 'not an ip',
      city: null,
      region: null,
      country: null,
      sanctioned: null,
      source_url: null,
    });
    assert.deepEqual(intel.vpn('not an ip'), { ip: 'not an ip', vpn: 'unknown' });
  });
});

describe('coverage per address family, and refresh', () => {
  test('no list for a family → "unknown"; the other family still answers', async () => {
    await withDataDir(async (dataDir) => {
      const intel = await createIpIntel({
        config: loadConfig({ SOURCE_DIR: join(FIXTURES, 'ip', 'v4-only'), DATA_DIR: dataDir }),
        log,
        isSanctionedPlace,
        refreshIntervalMs: 0,
      });
      try {
        assert.deepEqual(intel.vpn('2001:db8::1'), { ip: '2001:db8::1', vpn: 'unknown' });
        assert.deepEqual(intel.signals('2001:db8::1'), {
          ip: '2001:db8::1',
          family: 6,
          vpn: 'unknown',
          tor: 'unknown',
          datacenter: 'unknown',
        });
        assert.deepEqual(intel.vpn('198.51.100.0'), { ip: '198.51.100.0', vpn: true });
        assert.deepEqual(intel.vpn('203.0.113.31'), { ip: '203.0.113.31', vpn: true });
        assert.deepEqual(intel.vpn('203.0.113.32'), { ip: '203.0.113.32', vpn: false });
        assert.deepEqual(intel.vpn('192.0.2.44'), { ip: '192.0.2.44', vpn: true });
        assert.deepEqual(intel.signals('192.0.2.200'), {
          ip: '192.0.2.200',
          family: 4,
          vpn: false,
          tor: false,
          datacenter: true,
        });
        assert.deepEqual(
          intel.status().map((s) => [s.key, s.loaded, s.ranges]),
          [
            ['vpn-ipv4', true, 2],
            ['vpn-ipv6', false, 0],
            ['tor-exit-nodes', true, 1],
            ['datacenter-ipv4', true, 1],
            ['datacenter-ipv6', false, 0],
          ],
        );
      } finally {
        intel.close();
      }
    });
  });

  test('a refresh picks up a changed list; a failing list keeps its last good version', async () => {
    await withDataDir(async (dir) => {
      const sourceDir = join(dir, 'src');
      await mkdir(join(sourceDir, 'ip'), { recursive: true });
      await writeFile(join(sourceDir, 'ip', 'vpn-ipv4.txt'), '198.51.100.0/24\n');
      let failing = false;
      let fetches = 0;
      const { fetchSourceFile, fetchOptionsFromConfig } = await import('../../loaders/fetch.js');
      const config = loadConfig({ SOURCE_DIR: sourceDir, DATA_DIR: join(dir, 'data') });
      const intel = await createIpIntel({
        config,
        log,
        isSanctionedPlace,
        refreshIntervalMs: 0,
        fetchList: async (source) => {
          fetches++;
          if (failing) throw new Error('upstream down');
          return fetchSourceFile('ipintel', source, fetchOptionsFromConfig(config));
        },
      });
      try {
        assert.equal(intel.vpn('198.51.100.7').vpn, true);
        assert.equal(intel.vpn('203.0.113.7').vpn, false);
        await writeFile(join(sourceDir, 'ip', 'vpn-ipv4.txt'), '203.0.113.0/24\n');
        fetches = 0;
        // Two refreshes asked for at once fetch each list once.
        await Promise.all([intel.refresh(), intel.refresh()]);
        assert.equal(fetches, 5);
        assert.equal(intel.vpn('198.51.100.7').vpn, false);
        assert.equal(intel.vpn('203.0.113.7').vpn, true);
        failing = true;
        const status = await intel.refresh();
        assert.equal(intel.vpn('203.0.113.7').vpn, true);
        assert.deepEqual(
          status.filter((s) => s.key === 'vpn-ipv4').map((s) => [s.loaded, s.ranges, s.error]),
          [[true, 1, 'upstream down']],
        );
      } finally {
        intel.close();
      }
    });
  });
});

describe('region names of geolocation databases → ISO 3166-2', () => {
  test('the occupied regions of Ukraine under UA or RU, in the spellings DB-IP uses', () => {
    assert.equal(regionCode('RU', 'Crimea'), 'UA-43');
    assert.equal(regionCode('UA', 'Crimea'), 'UA-43');
    assert.equal(regionCode('UA', 'Sebastopol City'), 'UA-40');
    assert.equal(regionCode('UA', 'Donetsk'), 'UA-14');
    assert.equal(regionCode('UA', 'Luhansk'), 'UA-09');
    assert.equal(regionCode('RU', 'Luhansk'), 'UA-09');
    assert.equal(regionCode('UA', 'Luhans’ka Oblast’'), 'UA-09');
    assert.equal(regionCode('UA', 'Kyiv City'), null);
    assert.equal(regionCode('US', 'Crimea'), null);
    assert.equal(regionCode('UA', null), null);
  });
});
