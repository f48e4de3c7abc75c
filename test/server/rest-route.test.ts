import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeParam, malformedParamAnswer, parseQuery, routeShape } from '../../src/server/rest-route.js';

test('routeShape: OpenAPI placeholders become uWS parameters, named in order; the label keeps the OpenAPI path', () => {
  assert.deepEqual(routeShape({ method: 'GET', path: '/lists/{list}/entities/{id}' }), {
    pattern: '/api/v1/lists/:list/entities/:id',
    paramNames: ['list', 'id'],
    route: 'GET /api/v1/lists/{list}/entities/{id}',
  });
  assert.deepEqual(routeShape({ method: 'POST', path: '/screen' }), {
    pattern: '/api/v1/screen',
    paramNames: [],
    route: 'POST /api/v1/screen',
  });
});

test('decodeParam: percent-decodes, keeps a value without a percent sign, and refuses malformed encoding', () => {
  assert.equal(decodeParam('plain'), 'plain');
  assert.equal(decodeParam('a%20b%2Fc'), 'a b/c');
  assert.equal(decodeParam('%C3%A9'), 'é');
  assert.equal(decodeParam('%E0%A4%A'), null);
  assert.equal(decodeParam('%'), null);
  assert.equal(decodeParam('%ZZ'), null);
});

test('parseQuery: the first of a repeated name wins; an empty query is no parameters; __proto__ changes nothing', () => {
  assert.deepEqual(parseQuery(''), {});
  assert.deepEqual(parseQuery('limit=5&limit=9&q=a+b%21&empty='), { limit: '5', q: 'a b!', empty: '' });
  const tricky = parseQuery('__proto__=1&a=2');
  assert.equal(Object.getPrototypeOf(tricky), Object.prototype);
  assert.deepEqual(Object.entries(tricky), [['a', '2']]);
});

test('malformedParamAnswer: a 422 shaped like a validation error, naming the parameter', () => {
  assert.deepEqual(malformedParamAnswer('id'), {
    status: 422,
    headers: {},
    body: {
      detail: [
        {
          type: 'value_error',
          loc: ['path', 'id'],
          msg: 'Value error, malformed percent-encoding',
          input: null,
          ctx: { error: 'malformed percent-encoding' },
        },
      ],
    },
  });
});
