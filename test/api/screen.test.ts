import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { OpenApiChecker } from '../support/openapi.js';
import { sharedData } from '../../harness/paths.js';

/**
 * The screening endpoints on the real lists: exact envelopes, match kinds, list filters and the
 * sanctioned/flagged rules. Every answer is also checked against the served OpenAPI document.
 */
let svc: TestService;
let api: OpenApiChecker;
let auth: Record<string, string>;

before(async () => {
  svc = await startTestService();
  api = await OpenApiChecker.load(svc.url);
  auth = { authorization: `Bearer ${(await createCustomerToken(svc.url, 10_000)).token}` };
});
after(async () => {
  await svc?.close();
});

const screen = (path: string, headers = auth) => api.fetchJson(`${svc.url}/api/v1/screen/${path}`, { headers });

/** The default set that has data here: EU and UK have no files in ../shared/data, the mixer lists no chain. */
const DEFAULT_LOADED = [
  'ofac_sdn',
  'ofac_consolidated',
  'un_sc',
  'ofac_crypto',
  'ofac_sdn_web',
  'ofac_countries',
  'eth_phishing',
  'cryptoscamdb',
  'disposable_email',
];
const SDN = { list: 'ofac_sdn', list_name: 'OFAC Specially Designated Nationals (SDN) List', list_type: 'sanctions' };
const OFAC_CRYPTO = {
  list: 'ofac_crypto',
  list_name: 'OFAC Sanctioned Digital Currency Addresses',
  list_type: 'sanctions',
};
const XBT_FILE =
  'https://raw.githubusercontent.com/0xB10C/ofac-sanctioned-digital-currency-addresses/lists/sanctioned_addresses_XBT.txt';

test('a Bitcoin address from the SDN remarks matches the SDN entry and the per-asset list, exactly', async () => {
  const address = '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h';
  const raw =
    readFileSync(sharedData('ofac', 'sdn.csv'), 'utf8') + readFileSync(sharedData('ofac', 'sdn_comments.csv'), 'utf8');
  assert.ok(raw.includes(`Digital Currency Address - XBT ${address}`));
  assert.ok(
    readFileSync(sharedData('crypto', 'by-chain-2024', 'sanctioned_addresses_XBT.txt'), 'utf8')
      .split('\n')
      .includes(address),
  );
  const entNum = /^(\d+),"YAN, Xiaobing"/m.exec(readFileSync(sharedData('ofac', 'sdn.csv'), 'utf8'))?.[1];
  assert.equal(entNum, '25308');
  const res = await screen(`crypto/${address}`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    value: address,
    flagged: true,
    sanctioned: true,
    lists_checked: DEFAULT_LOADED,
    matches: [
      {
        ...SDN,
        match: 'exact',
        value: address,
        source_url: `https://sanctionssearch.ofac.treas.gov/Details.aspx?id=${entNum}`,
        metadata: {
          symbol: 'XBT',
          network: 'bitcoin',
          name: 'YAN, Xiaobing',
          sdn_name: 'YAN, Xiaobing',
          programs: ['SDNTK'],
          sdn_type: 'individual',
          ent_num: entNum,
          party_id: entNum,
          explanation_text: `The Bitcoin address is listed on ${SDN.list_name} as YAN, Xiaobing (program SDNTK).`,
        },
      },
      // The per-asset file has the address; the newer SDN extract names its party.
      {
        ...OFAC_CRYPTO,
        match: 'exact',
        value: address,
        source_url: `https://sanctionssearch.ofac.treas.gov/Details.aspx?id=${entNum}`,
        metadata: {
          symbol: 'XBT',
          network: 'bitcoin',
          name: 'Xiaobing YAN',
          sdn_name: 'Xiaobing YAN',
          programs: ['SDNTK'],
          ent_num: entNum,
          party_id: entNum,
          explanation_text: `The Bitcoin address is listed on ${OFAC_CRYPTO.list_name} as Xiaobing YAN (program SDNTK).`,
        },
      },
    ],
  });
});

test('EVM addresses: checksum, lower and upper case are the same address; the value stays as published', async () => {
  const published = '0x01e2919679362dFBC9ee1644Ba9C6da6D6245BB1';
  for (const variant of [published, published.toLowerCase(), '0x' + published.slice(2).toUpperCase()]) {
    const res = await screen(`crypto/${variant}?lists=ofac_crypto`);
    assert.deepEqual(res.body, {
      value: variant,
      flagged: true,
      sanctioned: true,
      lists_checked: ['ofac_crypto'],
      matches: [
        {
          ...OFAC_CRYPTO,
          match: 'exact',
          value: published,
          source_url: XBT_FILE.replace('XBT', 'ETH'),
          metadata: {
            symbol: 'ETH',
            network: 'ethereum',
            explanation_text: `The Ethereum address is listed on ${OFAC_CRYPTO.list_name}.`,
          },
        },
      ],
    });
  }
});

test('no match: flagged and sanctioned false, matches empty, lists_checked still filled', async () => {
  const res = await screen('crypto/0x000000000000000000000000000000000000dEaD');
  assert.deepEqual(res.body, {
    value: '0x000000000000000000000000000000000000dEaD',
    flagged: false,
    sanctioned: false,
    lists_checked: DEFAULT_LOADED,
    matches: [],
  });
});

test('lists filter: named lists only, in the order given; unknown slug 400; a list without data 503', async () => {
  const res = await screen('crypto/12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h?lists=eth_phishing,ofac_crypto,eth_phishing');
  assert.deepEqual((res.body as { lists_checked: string[] }).lists_checked, ['eth_phishing', 'ofac_crypto']);
  assert.deepEqual(
    (res.body as { matches: { list: string }[] }).matches.map((m) => m.list),
    ['ofac_crypto'],
  );
  const unknown = await screen('crypto/12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h?lists=nope,ofac_sdn,nada');
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.body, { detail: 'unknown lists: nope, nada (see /api/v1/screen/lists)' });
  const missing = await screen('email/a@b.com?lists=eu_fsf');
  assert.equal(missing.status, 503);
  assert.deepEqual(missing.body, { detail: 'list not loaded yet: eu_fsf (see /api/v1/stats)' });
});

test('a crime-only match is flagged but not sanctioned; a listed domain matches its subdomains', async () => {
  const config = JSON.parse(
    readFileSync(new URL('../../node_modules/eth-phishing-detect/src/config.json', import.meta.url), 'utf8'),
  ) as { blacklist: string[] };
  assert.ok(config.blacklist.includes('azukishop.live'));
  const exact = await screen('website?address=azukishop.live&lists=eth_phishing');
  assert.deepEqual(exact.body, {
    value: 'azukishop.live',
    flagged: true,
    sanctioned: false,
    lists_checked: ['eth_phishing'],
    matches: [
      {
        list: 'eth_phishing',
        list_name: 'MetaMask eth-phishing-detect Blocklist',
        list_type: 'crime',
        match: 'exact',
        value: 'azukishop.live',
        source_url: 'https://github.com/MetaMask/eth-phishing-detect',
        metadata: {
          explanation_text: 'The website azukishop.live is listed on MetaMask eth-phishing-detect Blocklist.',
        },
      },
    ],
  });
  const sub = await screen(
    `website?address=${encodeURIComponent('HTTPS://www.Sub.AzukiShop.live./path?q=1')}&lists=eth_phishing`,
  );
  assert.equal((sub.body as { matches: { match: string }[] }).matches[0].match, 'subdomain');
  assert.equal(
    (sub.body as { matches: { metadata: { explanation_text: string } }[] }).matches[0].metadata.explanation_text,
    'The website matched MetaMask eth-phishing-detect Blocklist by its host: listed domain azukishop.live, a parent of sub.azukishop.live.',
  );
  assert.equal((sub.body as { sanctioned: boolean }).sanctioned, false);
});

test('e-mail: a listed address matches whatever its case; a disposable domain matches as a risk `domain` match', async () => {
  const raw = readFileSync(sharedData('ofac', 'sdn.csv'), 'utf8');
  assert.ok(raw.includes('Email Address info@aqsatv.ps'));
  const res = await screen('email/INFO@AQSATV.PS?lists=ofac_sdn');
  assert.deepEqual(res.body, {
    value: 'INFO@AQSATV.PS',
    flagged: true,
    sanctioned: true,
    lists_checked: ['ofac_sdn'],
    matches: [
      {
        ...SDN,
        match: 'exact',
        value: 'info@aqsatv.ps',
        source_url: 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=11911',
        metadata: {
          name: 'AL-AQSA TV',
          sdn_name: 'AL-AQSA TV',
          programs: ['SDGT'],
          sdn_type: 'entity',
          ent_num: '11911',
          party_id: '11911',
          explanation_text: `The e-mail address info@aqsatv.ps is listed on ${SDN.list_name} as AL-AQSA TV (program SDGT).`,
        },
      },
    ],
  });
  assert.ok(readFileSync(sharedData('email', 'disposable-domains.txt'), 'utf8').split('\n').includes('mailinator.com'));
  const disposable = await screen('email/someone@mailinator.com');
  assert.deepEqual((disposable.body as { matches: unknown[] }).matches, [
    {
      list: 'disposable_email',
      list_name: 'Disposable E-mail Domains',
      list_type: 'risk',
      match: 'domain',
      value: 'mailinator.com',
      source_url:
        'https://raw.githubusercontent.com/disposable-email-domains/disposable-email-domains/main/disposable_email_blocklist.conf',
      metadata: {
        explanation_text:
          'The e-mail address matched Disposable E-mail Domains by its domain: listed domain mailinator.com.',
      },
    },
  ]);
  assert.equal((disposable.body as { sanctioned: boolean }).sanctioned, false);
  assert.equal((disposable.body as { flagged: boolean }).flagged, true);
});

test('government IDs: punctuation ignored (exact), one wrong character (fuzzy), a different ID no match', async () => {
  assert.ok(readFileSync(sharedData('un', 'consolidated.xml'), 'utf8').includes('<NUMBER>AB850901</NUMBER>'));
  const kinds = async (id: string) =>
    (
      (await screen(`id/${encodeURIComponent(id)}?lists=un_sc`)).body as { matches: { match: string; value: string }[] }
    ).matches.map((m) => [m.match, m.value]);
  assert.deepEqual(await kinds('AB850901'), [['exact', 'AB850901']]);
  assert.deepEqual(await kinds('ab-850 901'), [['exact', 'AB850901']]);
  assert.deepEqual(await kinds('AB850907'), [['fuzzy', 'AB850901']]);
  assert.deepEqual(await kinds('ZQ123456'), []);
});

test('countries: codes, names and regions; a country containing designated regions matches them as `region`', async () => {
  const matches = async (c: string) =>
    (
      (await screen(`country/${encodeURIComponent(c)}`)).body as { matches: { match: string; value: string }[] }
    ).matches.map((m) => `${m.match}:${m.value}`);
  for (const iran of ['Iran', 'IR', 'irn', '364', 'Islamic Republic of Iran'])
    assert.deepEqual(await matches(iran), ['exact:Iran'], iran);
  assert.deepEqual(await matches('Crimea'), ['exact:Crimea']);
  assert.deepEqual(await matches('UA-43'), ['exact:Crimea']);
  assert.deepEqual(await matches('Ukraine'), [
    'region:Crimea',
    'region:Sevastopol',
    "region:so-called Donetsk People's Republic",
    "region:so-called Luhansk People's Republic",
  ]);
  assert.deepEqual(await matches('France'), []);
  const res = await screen('country/KP');
  assert.equal((res.body as { sanctioned: boolean }).sanctioned, true);
});

test('validation: empty and over-long values, bad lists parameter', async () => {
  const blank = await screen('website?address=');
  assert.equal(blank.status, 422);
  assert.deepEqual(blank.body, {
    detail: [
      {
        type: 'string_too_short',
        loc: ['query', 'address'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ],
  });
  const missing = await screen('website');
  assert.deepEqual(missing.body, {
    detail: [{ type: 'missing', loc: ['query', 'address'], msg: 'Field required', input: null }],
  });
  const long = 'a'.repeat(513);
  const tooLong = await screen(`id/${long}`);
  assert.deepEqual(tooLong.body, {
    detail: [
      {
        type: 'string_too_long',
        loc: ['path', 'government_id'],
        msg: 'String should have at most 512 characters',
        input: long,
        ctx: { max_length: 512 },
      },
    ],
  });
});

test('metered: no credentials is a 402 challenge, an invalid token a 401 with WWW-Authenticate', async () => {
  const unpaid = await screen('crypto/12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', {});
  assert.equal(unpaid.status, 402);
  assert.equal((unpaid.body as { x402Version: number }).x402Version, 1);
  assert.ok(unpaid.headers.get('payment-required'));
  const bad = await screen('crypto/12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', { authorization: 'Bearer sk_notarealtoken' });
  assert.equal(bad.status, 401);
  assert.equal(bad.headers.get('www-authenticate'), 'Bearer');
  assert.deepEqual(bad.body, { detail: 'Invalid or revoked API token' });
});

test('every answer above matched the OpenAPI document', () => {
  assert.ok(api.checked >= 30, `checked ${api.checked}`);
});
