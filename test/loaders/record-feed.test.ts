import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EntityRecord } from '../../engine/model.js';
import { RecordFeed } from '../../loaders/record-feed.js';

const rec = (i: number): EntityRecord => ({
  list: 'l',
  entity_type: 'email',
  value: `u${i}@x.org`,
  metadata: {},
  source_url: null,
  listed_at: null,
  removed_at: null,
});

/** Writes `n` records in batches of `batch`, awaiting `ready` after each batch (as the diff does); `pushed` counts them. */
async function produce(feed: RecordFeed, n: number, batch: number, pushed: { n: number }): Promise<void> {
  for (let i = 0; i < n; i++) {
    feed.push(rec(i));
    pushed.n++;
    if (i % batch === batch - 1) await feed.ready();
  }
  feed.end();
}

test('the feed hands every record over in order, holding the producer back while `limit` records wait', async () => {
  const feed = new RecordFeed(100);
  const pushed = { n: 0 };
  const producing = produce(feed, 10_000, 30, pushed);
  const seen: string[] = [];
  let ahead = 0;
  for await (const r of feed.records()) {
    seen.push(r.value);
    ahead = Math.max(ahead, pushed.n - seen.length);
    // A slow consumer: the producer must wait for it rather than queue everything.
    if (seen.length % 50 === 0) await new Promise((r2) => setImmediate(r2));
  }
  await producing;
  assert.equal(seen.length, 10_000);
  assert.deepEqual(seen.slice(0, 3), ['u0@x.org', 'u1@x.org', 'u2@x.org']);
  assert.equal(seen.at(-1), 'u9999@x.org');
  // The limit waiting plus the batch the producer writes before it asks again, twice: the
  // consumer takes the waiting records at once, and the producer fills the queue again meanwhile.
  assert.ok(ahead <= 260, `producer ran ${ahead} records ahead`);
  assert.ok(ahead >= 100, `producer ran only ${ahead} records ahead: it was held back below the limit`);
});

test('a consumer that stops early never holds the producer back; a failed producer makes the consumer throw', async () => {
  const feed = new RecordFeed(10);
  const seen: string[] = [];
  const producing = produce(feed, 1_000, 20, { n: 0 });
  for await (const r of feed.records()) {
    seen.push(r.value);
    if (seen.length === 5) break;
  }
  await producing;
  assert.equal(seen.length, 5);

  const failing = new RecordFeed(10);
  failing.push(rec(1));
  failing.fail(new Error('disk full'));
  const got: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const r of failing.records()) got.push(r.value);
    })(),
    { message: 'disk full' },
  );
  assert.deepEqual(got, []);
});
