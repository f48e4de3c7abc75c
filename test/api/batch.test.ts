import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { batchItem } from '../../src/api/schemas/screen.js';
import { KINDS } from '../../src/core/kinds.js';

const BatchItem = batchItem(KINDS);

/**
 * Batch screening over HTTP: the hand-written item check agrees with the BatchItem schema on every
 * shape of item, and a large body of multi-byte text (split by uWS into many chunks, sequences cut
 * in the middle) arrives intact.
 */
let svc: TestService;
let auth: Record<string, string>;

before(async () => {
  svc = await startTestService();
  auth = {
    authorization: `Bearer ${(await createCustomerToken(svc.url, 100_000)).token}`,
    'content-type': 'application/json',
  };
});
after(async () => {
  await svc?.close();
});

async function batch(items: unknown[]): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ items }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
  const text = await res.text();
  assert.ok(text.endsWith('\n'));
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('each item is valid exactly when the BatchItem schema says so, invalid ones at their own index', async () => {
  const items: unknown[] = [
    { type: 'crypto', value: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h' },
    { type: 'crypto', value: '' },
    { type: 'email', value: 'x'.repeat(512) },
    { type: 'email', value: 'x'.repeat(513) },
    { type: 'website', value: ' example.com ' },
    { type: 'nope', value: 'x' },
    { type: 'email', value: 5 },
    { type: 'email' },
    { value: 'x' },
    { type: 'crypto', value: 'x', extra: 1 },
    { type: 'Crypto', value: 'x' },
    null,
    [],
    ['crypto', 'x'],
    'crypto',
    7,
    {},
    JSON.parse('{"type":"crypto","value":"x","__proto__":{"a":1}}'),
    { type: 'country', value: '😀'.repeat(256) },
    { type: 'country', value: '😀'.repeat(257) },
  ];
  const lines = await batch(items);
  assert.equal(lines.length, items.length);
  lines.forEach((line, i) => {
    const expected = BatchItem.safeParse(items[i]);
    if (expected.success) {
      assert.equal(line.value, expected.data.value, `item ${i}`);
      assert.ok(Array.isArray(line.matches), `item ${i}`);
    } else {
      const detail = line.detail as { loc: unknown[] }[];
      assert.ok(Array.isArray(detail) && detail.length > 0, `item ${i} should be invalid`);
      for (const d of detail) assert.deepEqual(d.loc.slice(0, 3), ['body', 'items', i], `item ${i}`);
    }
  });
  assert.equal((lines[0].matches as unknown[]).length, 2);
});

test('a large body of multi-byte values arrives intact (UTF-8 sequences cut between chunks)', async () => {
  const items = Array.from({ length: 10_000 }, (_, i) => ({
    type: 'email',
    value: `😀值${i}ü${'é'.repeat(i % 7)}@例え.jp`,
  }));
  const lines = await batch(items);
  assert.equal(lines.length, items.length);
  lines.forEach((line, i) => assert.equal(line.value, items[i].value));
});

test('query parameters named after Object.prototype members are ignored like any unknown parameter (they were a 500)', async () => {
  const res = await fetch(`${svc.url}/api/v1/screen/batch?constructor=1&toString=x&hasOwnProperty=y`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ items: [{ type: 'email', value: 'nobody@example.org' }] }),
  });
  assert.equal(res.status, 200);
  assert.equal((JSON.parse(await res.text()) as { flagged: boolean }).flagged, false);
});
