import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createPepProvider } from '../../src/pep/index.js';
import { pepEndpoints } from '../../src/api/endpoints/pep.js';
import { PepInput } from '../../src/api/schemas/pep.js';
import { PepScreenResponse } from '../../src/pep/schema.js';
import type { AnyEndpoint, RequestContext } from '../../src/core/endpoint.js';
import { parseInput } from '../../src/core/validation.js';
import { ValidationFailed } from '../../src/core/errors.js';
import { SHARED_DATA } from '../../harness/paths.js';

const log = pino({ level: 'silent' });

function issues(query: Record<string, string>): unknown {
  try {
    parseInput(PepInput, { path: {}, query });
  } catch (err) {
    assert.ok(err instanceof ValidationFailed);
    return err.issues.map((i) => [i.type, i.loc, i.msg]);
  }
  return 'valid';
}

describe('/screen/pep parameters', () => {
  test('defaults and accepted forms', () => {
    assert.deepEqual(parseInput(PepInput, { path: {}, query: { name: 'Jo' } }), { name: 'Jo', limit: 5 });
    for (const birth_date of ['1988', '1988-01', '1988-01-29', '2000-02-29']) {
      assert.equal(parseInput(PepInput, { path: {}, query: { name: 'Jake', birth_date } }).birth_date, birth_date);
    }
    for (const country of ['US', 'us', 'USA', '840', 'United States', 'Crimea']) {
      assert.equal(parseInput(PepInput, { path: {}, query: { name: 'Jake', country } }).country, country);
    }
    assert.equal(parseInput(PepInput, { path: {}, query: { name: 'Jake', limit: '10' } }).limit, 10);
  });

  test('invalid values are 422 in FastAPI form', () => {
    assert.deepEqual(issues({}), [['missing', ['query', 'name'], 'Field required']]);
    assert.deepEqual(issues({ name: 'J' }), [
      ['string_too_short', ['query', 'name'], 'String should have at least 2 characters'],
    ]);
    assert.deepEqual(issues({ name: 'J'.repeat(201) }), [
      ['string_too_long', ['query', 'name'], 'String should have at most 200 characters'],
    ]);
    assert.deepEqual(issues({ name: 'Jake', limit: '0' }), [
      ['greater_than_equal', ['query', 'limit'], 'Input should be greater than or equal to 1'],
    ]);
    assert.deepEqual(issues({ name: 'Jake', limit: '11' }), [
      ['less_than_equal', ['query', 'limit'], 'Input should be less than or equal to 10'],
    ]);
    assert.deepEqual(issues({ name: 'Jake', limit: 'five' }), [
      ['int_parsing', ['query', 'limit'], 'Input should be a valid integer, unable to parse string as an integer'],
    ]);
    assert.deepEqual(issues({ name: 'Jake', birth_date: '29.01.1988' }), [
      [
        'string_pattern_mismatch',
        ['query', 'birth_date'],
        "String should match pattern '^\\d{4}(-\\d{2}(-\\d{2})?)?$'",
      ],
    ]);
    assert.deepEqual(issues({ name: 'Jake', birth_date: '1988-13' }), [
      ['value_error', ['query', 'birth_date'], 'Value error, not a calendar date'],
    ]);
    assert.deepEqual(issues({ name: 'Jake', birth_date: '2001-02-29' }), [
      ['value_error', ['query', 'birth_date'], 'Value error, not a calendar date'],
    ]);
    assert.deepEqual(issues({ name: 'Jake', country: 'Atlantis' }), [
      ['value_error', ['query', 'country'], 'Value error, not a known country name or ISO code'],
    ]);
  });
});

describe('/screen/pep endpoint', () => {
  let ep: AnyEndpoint;
  before(async () => {
    const pep = await createPepProvider({ config: loadConfig({ SOURCE_DIR: SHARED_DATA }), log });
    [ep] = pepEndpoints({ pep });
  });

  test('definition', () => {
    assert.deepEqual(
      [ep.id, ep.method, ep.path, ep.access, ep.errors],
      ['screen.pep', 'GET', '/screen/pep', 'metered', [502, 503]],
    );
    assert.deepEqual(PepScreenResponse.parse(ep.example), ep.example);
  });

  test('handler output fits the schema; matches are audited, non-matches are not', async () => {
    const ctx = { meta: { clientIp: '127.0.0.1' }, log, caller: { kind: 'anonymous' } } as unknown as RequestContext;
    const input = parseInput(PepInput, { path: {}, query: { name: 'Mike Rogers', birth_date: '1963' } });
    const out = await ep.handler(input, ctx);
    assert.deepEqual(PepScreenResponse.parse(out), out);
    assert.deepEqual(ep.audit!(input, out, ctx), [
      {
        screened_value: 'Mike Rogers',
        matched_value: 'Mike Rogers',
        list: 'peps',
        list_type: 'risk',
        match: 'fuzzy',
        list_version: '',
        as_of: null,
        evidence: (out as { matches: unknown[] }).matches[0],
      },
    ]);
    const matches = (out as { matches: { caption: string; score: number; match: boolean; birth_dates: string[] }[] })
      .matches;
    assert.deepEqual(
      matches.map((m) => [m.caption, m.score, m.match, m.birth_dates]),
      [
        ['Mike Rogers', 1, true, ['1963']],
        ['Mike Rogers', 0.6, false, ['1958']],
        // Mike Pompeo, born 1963 too, is left out: a replaced surname keeps the name far under 0.5.
      ],
    );
  });
});
