import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineFile } from '../../engine/snapshot.js';

/**
 * Regression: a commit that failed early left its temporary files behind. `abort` removed the
 * temporary file while its stream was still opening it; the open then created it after the
 * removal (seen as a test's cleanup failing with ENOTEMPTY while the file appeared).
 */
test('a line file given up at once, before its file was opened, leaves nothing behind', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'line-file-'));
  try {
    for (let i = 0; i < 20; i++) {
      const f = new LineFile(join(dir, `f${i}.ndjson`));
      await f.abort();
    }
    const written = new LineFile(join(dir, 'kept.ndjson'));
    written.write('a');
    await written.close();
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await readdir(dir), ['kept.ndjson']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
