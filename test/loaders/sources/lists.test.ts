import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse as parseYaml } from 'yaml';
import type { EntityRecord } from '../../../engine/model.js';
import { canonicalKey } from '../../../engine/normalize/index.js';
import { filesUnder, getList, OFAC_CRYPTO_ASSETS, parseListFromDir } from '../../../loaders/registry.js';
import type { FileSource } from '../../../loaders/types.js';
import { SHARED_DATA, sharedData } from '../../../harness/paths.js';

async function collect(it: AsyncIterable<EntityRecord>): Promise<EntityRecord[]> {
  const out: EntityRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

function distinctLines(path: string): string[] {
  return [
    ...new Set(
      readFileSync(path, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ];
}

describe('OFAC addresses by asset and the SDN extract naming their parties (real files)', () => {
  test('every line of every asset file with its symbol, every address of the extract with its party', async () => {
    const records = await collect(parseListFromDir('ofac_crypto', SHARED_DATA));
    const addresses = records.filter((r) => r.entity_type === 'crypto_address');
    const pairs = new Set(addresses.map((r) => `${String(r.metadata.symbol)} ${r.value}`));
    const listed = new Set<string>();
    for (const asset of OFAC_CRYPTO_ASSETS) {
      for (const line of distinctLines(sharedData('crypto', 'by-chain-2024', `sanctioned_addresses_${asset}.txt`))) {
        assert.ok(pairs.has(`${asset} ${line}`), `${asset} ${line}`);
        listed.add(line);
      }
    }
    assert.equal(listed.size, 641);
    const extract = JSON.parse(
      readFileSync(sharedData('crypto', 'ofac-sanctioned-addresses-2026-08.json'), 'utf8'),
    ) as {
      addresses: Record<string, { entries: { uid: string; entity: string }[] }>;
    };
    const byLower = new Map<string, EntityRecord[]>();
    for (const r of addresses) byLower.set(r.value.toLowerCase(), [...(byLower.get(r.value.toLowerCase()) ?? []), r]);
    for (const [key, item] of Object.entries(extract.addresses)) {
      const found = byLower.get(key)!;
      assert.deepEqual(new Set(found.map((r) => r.metadata.party_id)), new Set(item.entries.map((e) => e.uid)), key);
    }
    // Base58 addresses whose case only the lower-cased extract gives.
    const caseless = new Set(addresses.filter((r) => r.metadata.address_case === 'unknown').map((r) => r.value));
    assert.equal(caseless.size, 307);
    assert.ok([...caseless].every((v) => v === v.toLowerCase() && !listed.has(v)));
    // Addresses of the per-asset files that the newer extract no longer names keep no party.
    assert.equal(addresses.filter((r) => r.metadata.party_id === undefined).length, 90);
    const parties = records.filter((r) => r.entity_type === 'party');
    assert.equal(
      parties.length,
      new Set(Object.values(extract.addresses).flatMap((i) => i.entries.map((e) => e.uid))).size,
    );
    assert.ok(records.every((r) => r.list === 'ofac_crypto'));
    const tron = records.find((r) => r.metadata.symbol === 'USDT' && r.value.startsWith('T'));
    assert.equal(tron?.metadata.network, 'tron');
    const xbt = records.find((r) => r.value === '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h');
    assert.deepEqual(xbt?.metadata, {
      symbol: 'XBT',
      network: 'bitcoin',
      name: 'Xiaobing YAN',
      sdn_name: 'Xiaobing YAN',
      programs: ['SDNTK'],
      ent_num: '25308',
      party_id: '25308',
    });
    assert.equal(xbt?.source_url, 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=25308');
    const yan = parties.find((p) => p.value === '25308')!;
    assert.deepEqual(yan.metadata.aliases, [
      { name: 'ZHOU, William', type: 'a.k.a.', weak: false },
      { name: 'YAN, Steven', type: 'a.k.a.', weak: false },
    ]);
  });

  test('without the extract, the per-asset files as published', async () => {
    const def = getList('ofac_crypto')!.source as FileSource;
    const files = filesUnder(def, SHARED_DATA);
    delete files.entries;
    const records = await collect(def.parse(files, {}));
    assert.equal(records.length, 654);
    assert.ok(records.every((r) => r.entity_type === 'crypto_address' && r.metadata.party_id === undefined));
    assert.deepEqual(records.find((r) => r.value === '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h')?.metadata, {
      symbol: 'XBT',
      network: 'bitcoin',
    });
  });
});

describe('OFAC SDN websites and e-mails (real file)', () => {
  test('lines with @ are e-mails, the others websites', async () => {
    const records = await collect(parseListFromDir('ofac_sdn_web', SHARED_DATA));
    const lines = distinctLines(sharedData('web', 'ofac-sdn-websites-and-emails.txt'));
    const emails = lines.filter((l) => l.includes('@'));
    const sites = lines.filter((l) => !l.includes('@'));
    assert.equal(records.filter((r) => r.entity_type === 'email').length, emails.length);
    assert.equal(records.filter((r) => r.entity_type === 'website').length, sites.length);
    assert.equal(lines.length, 1547);
    const labelled = records.find((r) => r.value.endsWith('@shabakah.net.sa'));
    assert.equal(labelled?.value, 'adelb@shabakah.net.sa');
    assert.equal(records.find((r) => r.value === '1vpns.com')?.entity_type, 'website');
    assert.equal(records.find((r) => r.value === 'Africonline@protonmail.com')?.entity_type, 'email');
  });
});

describe('CryptoScamDB YAML (real file)', () => {
  test('domains and addresses, as the whole document reads', async () => {
    const records = await collect(parseListFromDir('cryptoscamdb', SHARED_DATA));
    const doc = parseYaml(readFileSync(sharedData('web', 'cryptoscamdb-urls.yaml'), 'utf8')) as Array<{
      name: string;
      addresses?: Record<string, string[] | null>;
    }>;
    const hosts = new Set(doc.map((d) => d.name.trim()).filter((n) => !/\/./.test(n)));
    const addresses = new Set(
      doc.flatMap((d) =>
        Object.entries(d.addresses ?? {})
          .filter(([k]) => k !== 'UNKNOWN')
          .flatMap(([, v]) => (v ?? []).map((a) => String(a).trim())),
      ),
    );
    const sites = records.filter((r) => r.entity_type === 'website');
    const addrs = records.filter((r) => r.entity_type === 'crypto_address');
    assert.deepEqual(new Set(sites.map((r) => r.value)), hosts);
    assert.equal(sites.length, hosts.size);
    assert.deepEqual(new Set(addrs.map((r) => r.value)), addresses);
    assert.equal(addrs.length, addresses.size);
    assert.equal(doc.length, 9889);
    const known = records.find((r) => r.value === '0xD0cC2B24980CBCCA47EF755Da88B220a82291407');
    assert.deepEqual(known?.metadata, {
      symbol: 'ETH',
      network: 'ethereum',
      name: 'myelherwallel.com',
      category: 'Phishing',
      subcategory: 'MyEtherWallet',
    });
  });
});

describe('disposable e-mail domains (real file)', () => {
  test('one email_domain per line', async () => {
    const records = await collect(parseListFromDir('disposable_email', SHARED_DATA));
    const lines = distinctLines(sharedData('email', 'disposable-domains.txt'));
    assert.equal(records.length, lines.length);
    assert.equal(records.length, 8335);
    assert.ok(records.every((r) => r.entity_type === 'email_domain'));
    assert.equal(records[0].value, lines[0]);
  });
});

describe('eth-phishing-detect (bundled npm package)', () => {
  test('the blacklist minus the whitelist', async () => {
    const records = await collect(parseListFromDir('eth_phishing', SHARED_DATA));
    const config = createRequire(import.meta.url)('eth-phishing-detect/src/config.json') as {
      blacklist: string[];
      whitelist: string[];
    };
    const allowed = new Set(config.whitelist);
    const expected = new Set(config.blacklist.filter((d) => !allowed.has(d)));
    assert.equal(records.length, expected.size);
    assert.deepEqual(new Set(records.map((r) => r.value)), expected);
    assert.ok(records.every((r) => r.entity_type === 'website' && r.list === 'eth_phishing'));
  });
});

describe('OFAC country programmes (data file in the repo)', () => {
  test('one country entity per designation, whose canonical key is its code', async () => {
    const records = await collect(parseListFromDir('ofac_countries', SHARED_DATA));
    assert.deepEqual(
      records.map((r) => r.metadata.code),
      ['CU', 'IR', 'KP', 'SY', 'UA-43', 'UA-40', 'UA-14', 'UA-09'],
    );
    for (const r of records) {
      assert.equal(r.entity_type, 'country');
      assert.equal(canonicalKey('country', r.value), r.metadata.code, r.value);
      assert.ok(Array.isArray(r.metadata.programs) && (r.metadata.programs as string[]).length > 0);
      assert.match(
        String(r.source_url),
        /^https:\/\/ofac\.treasury\.gov\/sanctions-programs-and-country-information\//,
      );
    }
    assert.deepEqual(
      records.map((r) => r.metadata.kind),
      ['country', 'country', 'country', 'country', 'region', 'region', 'region', 'region'],
    );
  });
});
