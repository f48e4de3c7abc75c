import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainListed, explainName, explainPep, type NameMatch } from '../../engine/explain.js';
import type { MatchExplanation } from '../../engine/names/party.js';

/** The sentences of engine/explain.ts, word for word, for each kind of match. */

const SDN = 'OFAC Specially Designated Nationals (SDN) List';
const none = { effect: 'not_compared' as const, change: 0 };

function kim(explanation: Partial<MatchExplanation>, rest: Partial<NameMatch> = {}): NameMatch {
  return {
    screened: 'Kim Jong Un',
    listName: SDN,
    name: 'KIM, Jong Un',
    partyId: 'ofac_sdn:20157',
    caption: 'KIM, Jong Un',
    score: 0.9,
    threshold: 0.7,
    explanation: {
      name_score: 0.9,
      birth_date: none,
      country: none,
      party_type: none,
      weak_names_left_out: 0,
      ...explanation,
    },
    birthDates: ['1984-01-08', '1983-01-08'],
    countries: ['KP'],
    birthDateGiven: false,
    countryGiven: false,
    ...rest,
  };
}

test('a name match without a birth date: every name part agrees', () => {
  assert.equal(
    explainName(kim({})),
    `All three name parts of 'KIM, Jong Un' (primary name of ${SDN} party 20157) agree; no birth date given; score 0.90, threshold 0.70.`,
  );
});

test('a name match whose birth date and country agree, through an alias', () => {
  assert.equal(
    explainName(
      kim(
        { birth_date: { effect: 'agrees', change: 0.03 }, country: { effect: 'agrees', change: 0.01 } },
        { name: 'KIM Jong-un', score: 0.94, birthDateGiven: true, countryGiven: true },
      ),
    ),
    `All three name parts of 'KIM Jong-un' (alias of ${SDN} party 20157) agree; the birth date agrees with 1984-01-08, 1983-01-08 (+0.03); the country agrees (+0.01); score 0.94, threshold 0.70.`,
  );
});

test('a name match with a conflicting birth date, a differing part and a part the screened name adds', () => {
  assert.equal(
    explainName(
      kim(
        { birth_date: { effect: 'conflicts', change: -0.3 } },
        { screened: 'Kim Jong Woon Pak', score: 0.52, threshold: 0.5, birthDateGiven: true },
      ),
    ),
    `Two of three name parts of 'KIM, Jong Un' (primary name of ${SDN} party 20157) agree ('JONG', 'KIM'); 'UN' is close to 'WOON'; the screened name adds 'PAK'; the birth date conflicts with 1984-01-08, 1983-01-08 (-0.30); score 0.52, threshold 0.50.`,
  );
});

test('a name match given a birth date and country the party has none of, weak names left out', () => {
  assert.equal(
    explainName(
      kim(
        { weak_names_left_out: 2 },
        { birthDates: [], countries: [], birthDateGiven: true, countryGiven: true, name: 'Jong Un KIM' },
      ),
    ),
    `All three name parts of 'Jong Un KIM' (alias of ${SDN} party 20157) agree; the party has no birth date on record; the party has no country on record; two weak names left out; score 0.90, threshold 0.70.`,
  );
});

test('a crypto address: its network, list, party and programmes', () => {
  assert.equal(
    explainListed({
      screened: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
      listName: SDN,
      entityType: 'crypto_address',
      match: 'exact',
      value: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
      metadata: { symbol: 'XBT', network: 'bitcoin', sdn_name: 'YAN, Xiaobing', programs: ['SDNTK'] },
    }),
    `The Bitcoin address is listed on ${SDN} as YAN, Xiaobing (program SDNTK).`,
  );
});

test('an e-mail address under a listed parent domain, and on the domain itself', () => {
  const m = {
    listName: 'Disposable E-mail Domains',
    entityType: 'email_domain',
    match: 'domain',
    value: 'example.com',
    metadata: {},
  };
  assert.equal(
    explainListed({ ...m, screened: 'Someone@A.Example.com' }),
    'The e-mail address matched Disposable E-mail Domains by its domain: listed domain example.com, a parent of a.example.com.',
  );
  assert.equal(
    explainListed({ ...m, screened: 'someone@example.com' }),
    'The e-mail address matched Disposable E-mail Domains by its domain: listed domain example.com.',
  );
});

test('a country holding a designated region, a region lying in a designated country, a designated country', () => {
  const lists = 'OFAC Sanctioned Countries and Regions';
  const crimea = { name: 'Crimea', code: 'UA-43', kind: 'region', programs: ['UKRAINE-EO13685'] };
  assert.equal(
    explainListed({
      screened: 'UA',
      listName: lists,
      entityType: 'country',
      match: 'region',
      value: 'Crimea',
      metadata: crimea,
    }),
    `Ukraine contains Crimea, a region designated on ${lists} (program UKRAINE-EO13685).`,
  );
  assert.equal(
    explainListed({
      screened: 'Crimea',
      listName: lists,
      entityType: 'country',
      match: 'exact',
      value: 'Crimea',
      metadata: crimea,
    }),
    `Crimea is designated on ${lists} (program UKRAINE-EO13685).`,
  );
  assert.equal(
    explainListed({
      screened: 'Sevastopol',
      listName: 'Operator Embargoes',
      entityType: 'country',
      match: 'region',
      value: 'Ukraine',
      metadata: { name: 'Ukraine', code: 'UA', kind: 'country', programs: ['A', 'B'] },
    }),
    'Sevastopol lies in Ukraine, which is designated on Operator Embargoes (programs A, B).',
  );
});

test("an operator's list: its own display name, the website and the subdomain that matched", () => {
  const m = {
    listName: 'Acme Fraud Desk Blocklist',
    entityType: 'website',
    value: 'scam.example',
    metadata: { note: 'reported 2025-05' },
  };
  assert.equal(
    explainListed({ ...m, screened: 'https://scam.example/login', match: 'exact' }),
    'The website scam.example is listed on Acme Fraud Desk Blocklist.',
  );
  assert.equal(
    explainListed({ ...m, screened: 'pay.scam.example', match: 'subdomain' }),
    'The website matched Acme Fraud Desk Blocklist by its host: listed domain scam.example, a parent of pay.scam.example.',
  );
});

test('an identifier, exact and close', () => {
  const m = {
    screened: 'AB123456',
    listName: 'UK Sanctions List',
    entityType: 'government_id',
    value: 'AB123456',
    metadata: { name: 'DOE, John', programs: ['Russia'] },
  };
  assert.equal(
    explainListed({ ...m, match: 'exact' }),
    'The identifier AB123456 is listed on UK Sanctions List as DOE, John (program Russia).',
  );
  assert.equal(
    explainListed({ ...m, match: 'fuzzy' }),
    'The identifier is close to AB123456, listed on UK Sanctions List as DOE, John (program Russia).',
  );
});

test('a PEP candidate, above and below the threshold', () => {
  const c = {
    caption: 'Jake Auchincloss',
    positions: ['United States representative'],
    countries: ['us'],
    threshold: 0.7,
  };
  assert.equal(
    explainPep({ ...c, score: 1 }),
    'Jake Auchincloss, United States representative (US) is a politically exposed person candidate; score 1.00 reaches the threshold 0.70.',
  );
  assert.equal(
    explainPep({ ...c, positions: [], countries: [], score: 0.55 }),
    'Jake Auchincloss is a politically exposed person candidate; score 0.55 is below the threshold 0.70.',
  );
});
