import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createIpIntel, type IpIntel } from '../../src/ipintel/index.js';
import { ipIntelEndpoints } from '../../src/api/endpoints/ipintel.js';
import { GeoResponse, IpPathInput, IpQueryInput, VpnResponse } from '../../src/api/schemas/ipintel.js';
import type { AnyEndpoint, RequestContext } from '../../src/core/endpoint.js';
import { parseInput, type RawInput } from '../../src/core/validation.js';
import { ValidationFailed } from '../../src/core/errors.js';
import { ClientIpResolver } from '../../src/server/client-ip.js';
import { SHARED_DATA } from '../../harness/paths.js';

const log = pino({ level: 'silent' });

function ctxFor(clientIp: string): RequestContext {
  return { meta: { clientIp }, log } as unknown as RequestContext;
}

describe('ip_address parameter', () => {
  test('IPv4 and IPv6 accepted; absent in the query form', () => {
    for (const ip of ['8.8.8.8', '2001:4860:4860::8888', '::ffff:8.8.8.8', '::1', 'fe80::1%eth0']) {
      assert.deepEqual(parseInput(IpPathInput, { path: { ip_address: ip }, query: {} }), { ip_address: ip });
      assert.deepEqual(parseInput(IpQueryInput, { path: {}, query: { ip_address: ip } }), { ip_address: ip });
    }
    assert.deepEqual(parseInput(IpQueryInput, { path: {}, query: {} }), {});
  });

  test('anything else is 422', () => {
    for (const [where, schema] of [
      ['path', IpPathInput],
      ['query', IpQueryInput],
    ] as const) {
      for (const bad of [
        '8.8.8',
        '256.1.1.1',
        '08.8.8.8',
        'example.com',
        '1.2.3.4/24',
        ' 8.8.8.8',
        '2001:db8::g',
        '',
      ]) {
        const raw: RawInput =
          where === 'path' ? { path: { ip_address: bad }, query: {} } : { path: {}, query: { ip_address: bad } };
        assert.throws(
          () => parseInput(schema, raw),
          (err: unknown) => {
            assert.ok(err instanceof ValidationFailed);
            assert.deepEqual(err.issues, [
              {
                type: 'value_error',
                loc: [where, 'ip_address'],
                msg: 'Value error, value is not a valid IPv4 or IPv6 address',
                input: bad,
                ctx: { error: 'value is not a valid IPv4 or IPv6 address' },
              },
            ]);
            return true;
          },
          `${where} ${JSON.stringify(bad)}`,
        );
      }
    }
  });
});

describe('/vpn and /geo endpoints', () => {
  let intel: IpIntel;
  let dataDir: string;
  let byPath: Map<string, AnyEndpoint>;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ipintel-ep-'));
    intel = await createIpIntel({
      config: loadConfig({ SOURCE_DIR: SHARED_DATA, DATA_DIR: dataDir }),
      log,
      isSanctionedPlace: (country) => country === 'IR',
      refreshIntervalMs: 0,
    });
    byPath = new Map(ipIntelEndpoints({ ipintel: intel }).map((e) => [e.path, e]));
  });
  after(async () => {
    intel.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('four metered GET routes with distinct ids', () => {
    assert.deepEqual(
      [...byPath.values()].map((e) => [e.id, e.method, e.path, e.access]),
      [
        ['ip.vpn', 'GET', '/vpn/{ip_address}', 'metered'],
        ['ip.vpnClient', 'GET', '/vpn', 'metered'],
        ['ip.geo', 'GET', '/geo/{ip_address}', 'metered'],
        ['ip.geoClient', 'GET', '/geo', 'metered'],
      ],
    );
    for (const e of byPath.values()) assert.deepEqual(e.output.parse(e.example), e.example);
  });

  test('path and query forms evaluate the given address', async () => {
    const ctx = ctxFor('203.0.113.9');
    assert.deepEqual(await byPath.get('/vpn/{ip_address}')!.handler({ ip_address: '171.25.193.25' }, ctx), {
      ip: '171.25.193.25',
      vpn: true,
    });
    assert.deepEqual(await byPath.get('/vpn')!.handler({ ip_address: '2.26.157.255' }, ctx), {
      ip: '2.26.157.255',
      vpn: true,
    });
    const geo = await byPath.get('/geo/{ip_address}')!.handler({ ip_address: '5.160.0.1' }, ctx);
    assert.deepEqual(GeoResponse.parse(geo), geo);
    assert.deepEqual(geo, {
      ip: '5.160.0.1',
      city: 'Tehran (District 6)',
      region: 'Tehran',
      country: 'IR',
      sanctioned: true,
      source_url: 'https://db-ip.com',
    });
    assert.deepEqual(await byPath.get('/geo')!.handler({ ip_address: '8.8.8.8' }, ctx), {
      ip: '8.8.8.8',
      city: 'Mountain View',
      region: 'California',
      country: 'US',
      sanctioned: false,
      source_url: 'https://db-ip.com',
    });
  });

  test("without ip_address the client's address is evaluated, as resolved through trusted proxies", async () => {
    const resolver = new ClientIpResolver(['10.0.0.0/8']);
    // A trusted proxy's X-Forwarded-For is honoured...
    const viaProxy = resolver.resolve('10.1.2.3', '198.51.100.1, 171.25.193.25', undefined);
    const vpn = await byPath.get('/vpn')!.handler({}, ctxFor(viaProxy));
    assert.deepEqual(VpnResponse.parse(vpn), { ip: '171.25.193.25', vpn: true });
    // ...an untrusted peer's is ignored.
    const direct = resolver.resolve('8.8.8.8', '171.25.193.25', undefined);
    assert.deepEqual(await byPath.get('/vpn')!.handler({}, ctxFor(direct)), { ip: '8.8.8.8', vpn: false });
    assert.equal(((await byPath.get('/geo')!.handler({}, ctxFor(direct))) as { city: string }).city, 'Mountain View');
  });
});
