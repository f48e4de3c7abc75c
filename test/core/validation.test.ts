import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { parseInput, parseJsonBody } from '../../src/core/validation.js';
import { ValidationFailed } from '../../src/core/errors.js';

const search = z.object({
  q: z.string().min(3).max(100),
  limit: z.number().int().min(1).max(25).default(10),
  mode: z.enum(['fuzzy', 'regex']).default('fuzzy'),
  format: z
    .string()
    .regex(/^(json|csv)$/)
    .default('json'),
});

function issues(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ValidationFailed, String(err));
    return { status: err.status, body: err.toBody() };
  }
  assert.fail('expected a validation failure');
}

test('valid query parameters are coerced and defaulted', () => {
  assert.deepEqual(parseInput(search, { path: {}, query: { q: 'abc', limit: '25' } }), {
    q: 'abc',
    limit: 25,
    mode: 'fuzzy',
    format: 'json',
  });
});

test('missing required parameter → missing', () => {
  assert.deepEqual(
    issues(() => parseInput(search, { path: {}, query: {} })),
    {
      status: 422,
      body: { detail: [{ type: 'missing', loc: ['query', 'q'], msg: 'Field required', input: null }] },
    },
  );
});

test('string bounds → string_too_short / string_too_long with ctx', () => {
  assert.deepEqual(issues(() => parseInput(search, { path: {}, query: { q: 'ab' } })).body, {
    detail: [
      {
        type: 'string_too_short',
        loc: ['query', 'q'],
        msg: 'String should have at least 3 characters',
        input: 'ab',
        ctx: { min_length: 3 },
      },
    ],
  });
  const long = 'x'.repeat(101);
  assert.deepEqual(issues(() => parseInput(search, { path: {}, query: { q: long } })).body, {
    detail: [
      {
        type: 'string_too_long',
        loc: ['query', 'q'],
        msg: 'String should have at most 100 characters',
        input: long,
        ctx: { max_length: 100 },
      },
    ],
  });
});

test('integer bounds and parsing → greater_than_equal / less_than_equal / int_parsing', () => {
  assert.deepEqual(issues(() => parseInput(search, { path: {}, query: { q: 'abc', limit: '0' } })).body, {
    detail: [
      {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        input: '0',
        ctx: { ge: 1 },
      },
    ],
  });
  assert.deepEqual(issues(() => parseInput(search, { path: {}, query: { q: 'abc', limit: '26' } })).body, {
    detail: [
      {
        type: 'less_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 25',
        input: '26',
        ctx: { le: 25 },
      },
    ],
  });
  for (const bad of ['abc', '1.5', '', '1e3']) {
    assert.deepEqual(issues(() => parseInput(search, { path: {}, query: { q: 'abc', limit: bad } })).body, {
      detail: [
        {
          type: 'int_parsing',
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: bad,
        },
      ],
    });
  }
});

test('enum and pattern → literal_error / string_pattern_mismatch', () => {
  assert.deepEqual(issues(() => parseInput(search, { path: {}, query: { q: 'abc', mode: 'exact' } })).body, {
    detail: [
      {
        type: 'literal_error',
        loc: ['query', 'mode'],
        msg: "Input should be 'fuzzy' or 'regex'",
        input: 'exact',
        ctx: { expected: "'fuzzy' or 'regex'" },
      },
    ],
  });
  assert.deepEqual(issues(() => parseInput(search, { path: {}, query: { q: 'abc', format: 'xml' } })).body, {
    detail: [
      {
        type: 'string_pattern_mismatch',
        loc: ['query', 'format'],
        msg: "String should match pattern '^(json|csv)$'",
        input: 'xml',
        ctx: { pattern: '^(json|csv)$' },
      },
    ],
  });
});

test('several failures are all reported, path parameters located as path', () => {
  const schema = z.object({ address: z.string().min(5), limit: z.number().int().min(1) });
  assert.deepEqual(issues(() => parseInput(schema, { path: { address: 'abc' }, query: { limit: '0' } })).body, {
    detail: [
      {
        type: 'string_too_short',
        loc: ['path', 'address'],
        msg: 'String should have at least 5 characters',
        input: 'abc',
        ctx: { min_length: 5 },
      },
      {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        input: '0',
        ctx: { ge: 1 },
      },
    ],
  });
});

test('a singular bound says character, not characters', () => {
  const schema = z.object({ v: z.string().min(1) });
  assert.equal(
    (issues(() => parseInput(schema, { path: {}, query: { v: '' } })).body as { detail: { msg: string }[] }).detail[0]
      .msg,
    'String should have at least 1 character',
  );
});

test('JSON bodies: syntax errors are json_invalid, non-objects model_attributes_type, body fields located in body', () => {
  assert.equal(
    (issues(() => parseJsonBody('{"items": [')).body as { detail: { type: string }[] }).detail[0].type,
    'json_invalid',
  );
  const schema = z.object({ items: z.array(z.unknown()).min(1).max(2) });
  assert.deepEqual(issues(() => parseInput(schema, { path: {}, query: {}, body: [1] })).body, {
    detail: [
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: [1],
      },
    ],
  });
  assert.deepEqual(issues(() => parseInput(schema, { path: {}, query: {}, body: { items: [1, 2, 3] } })).body, {
    detail: [
      {
        type: 'too_long',
        loc: ['body', 'items'],
        msg: 'List should have at most 2 items after validation, not 3',
        input: [1, 2, 3],
        ctx: { field_type: 'List', max_length: 2, actual_length: 3 },
      },
    ],
  });
});

test('a name given in several places: the path wins over the query, the query over the body; booleans coerce like FastAPI', () => {
  const schema = z.object({
    id: z.string(),
    n: z.number().int().optional(),
    flag: z.boolean().optional(),
    note: z.string().optional(),
  });
  assert.deepEqual(
    parseInput(schema, {
      path: { id: 'from-path' },
      query: { id: 'from-query', n: '7', flag: 'on' },
      body: { id: 'from-body', note: 'kept' },
    }),
    {
      id: 'from-path',
      n: 7,
      flag: true,
      note: 'kept',
    },
  );
  assert.deepEqual(parseInput(schema, { path: { id: 'x' }, query: { flag: 'No' } }), { id: 'x', flag: false });
  assert.deepEqual(issues(() => parseInput(schema, { path: { id: 'x' }, query: { n: '7.5', flag: 'maybe' } })).body, {
    detail: [
      {
        type: 'int_parsing',
        loc: ['query', 'n'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: '7.5',
      },
      {
        type: 'bool_parsing',
        loc: ['query', 'flag'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'maybe',
      },
    ],
  });
});

test('parameters named after Object.prototype members are unknown parameters, not a crash', () => {
  assert.deepEqual(
    parseInput(search, {
      path: {},
      query: { q: 'abc', constructor: '1', toString: 'x', __proto__: 'y', hasOwnProperty: 'z' },
    }),
    {
      q: 'abc',
      limit: 10,
      mode: 'fuzzy',
      format: 'json',
    },
  );
});
