import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fetchSourceFile, fetchSourceFiles, FetchError, type FetchOptions } from '../../loaders/fetch.js';
import type { SourceFile } from '../../loaders/types.js';

type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;
const handlers = new Map<string, Handler>();
const hits = new Map<string, IncomingMessage[]>();
const server = createServer((req, res) => {
  const seen = hits.get(req.url!) ?? [];
  seen.push(req);
  hits.set(req.url!, seen);
  const h = handlers.get(req.url!);
  if (!h) {
    res.writeHead(404).end();
    return;
  }
  h(req, res, seen.length);
});
let base = '';
let dataDir = '';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const file = (key: string, path: string, optional = false): SourceFile => ({
  key,
  url: `${base}${path}`,
  sourceDirPath: `t/${key}.csv`,
  optional,
});
const opts = (over: Partial<FetchOptions> = {}): FetchOptions => ({
  dataDir,
  urlOverrides: {},
  // Long enough that a busy machine never trips it; the timeout test sets its own.
  timeoutMs: 10_000,
  retries: 2,
  maxBytes: 1024,
  backoffMs: 10,
  ...over,
});

before(async () => {
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dataDir = await mkdtemp(join(tmpdir(), 'fetch-test-'));
});
after(async () => {
  server.closeAllConnections();
  server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('fetchSourceFile', () => {
  test('200 stores the file with its checksum; the next check is conditional and 304 means unchanged', async () => {
    const body = 'a,b\n1,2\n';
    handlers.set('/cond.csv', (req, res) => {
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304).end();
      res.writeHead(200, {
        etag: '"v1"',
        'last-modified': 'Tue, 01 Jul 2025 10:00:00 GMT',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
    const first = await fetchSourceFile('l', file('cond', '/cond.csv'), opts());
    assert.deepEqual(first, {
      key: 'cond',
      path: join(dataDir, 'sources', 'l', 'cond.csv'),
      url: `${base}/cond.csv`,
      changed: true,
      sha256: sha(body),
      bytes: 8,
    });
    assert.equal(await readFile(first!.path, 'utf8'), body);
    const second = await fetchSourceFile('l', file('cond', '/cond.csv'), opts());
    assert.equal(second!.changed, false);
    assert.equal(second!.sha256, sha(body));
    const reqs = hits.get('/cond.csv')!;
    assert.equal(reqs.length, 2);
    assert.equal(reqs[0].headers['if-none-match'], undefined);
    assert.equal(reqs[1].headers['if-none-match'], '"v1"');
    assert.equal(reqs[1].headers['if-modified-since'], 'Tue, 01 Jul 2025 10:00:00 GMT');
  });

  test('500 then 200: retried with backoff, then succeeds', async () => {
    handlers.set('/flaky.csv', (_req, res, n) => {
      if (n === 1) return void res.writeHead(500).end('boom');
      res.writeHead(200).end('ok\n');
    });
    const r = await fetchSourceFile('l', file('flaky', '/flaky.csv'), opts());
    assert.equal(r!.sha256, sha('ok\n'));
    assert.equal(hits.get('/flaky.csv')!.length, 2);
  });

  test('a server that never answers times out on every attempt', async () => {
    handlers.set('/slow.csv', () => {
      /* never answers */
    });
    const started = Date.now();
    await assert.rejects(
      fetchSourceFile('l', file('slow', '/slow.csv'), opts({ retries: 1, timeoutMs: 200 })),
      (err: unknown) => {
        assert.ok(err instanceof FetchError);
        assert.equal(err.message, `${base}/slow.csv: timed out after 200 ms`);
        return true;
      },
    );
    assert.equal(hits.get('/slow.csv')!.length, 2);
    assert.ok(Date.now() - started >= 400);
  });

  test('a truncated body is an error, the previous cached file stays and no temporary file is left', async () => {
    let open: ServerResponse | null = null;
    handlers.set('/trunc.csv', (_req, res, n) => {
      if (n === 1) return void res.writeHead(200, { 'content-length': 6 }).end('good\n\n');
      res.writeHead(200, { 'content-length': 100 });
      res.write('partial');
      open = res;
    });
    // The connection is cut once the client holds the 7 bytes (not after a delay, which a busy
    // machine can outlast: the body's error then discards the unread bytes).
    const cut = () => open?.socket?.destroy();
    const good = await fetchSourceFile('l', file('trunc', '/trunc.csv'), opts());
    await assert.rejects(
      fetchSourceFile('l', file('trunc', '/trunc.csv'), opts({ retries: 1, progress: cut })),
      (err: unknown) => {
        assert.ok(err instanceof FetchError);
        assert.match(err.message, /^http:\/\/127\.0\.0\.1:\d+\/trunc\.csv: body interrupted after 7 bytes/);
        return true;
      },
    );
    assert.equal(hits.get('/trunc.csv')!.length, 3);
    assert.equal(await readFile(good!.path, 'utf8'), 'good\n\n');
    assert.deepEqual((await readdir(join(dataDir, 'sources', 'l'))).filter((f) => f.startsWith('trunc')).sort(), [
      'trunc.csv',
      'trunc.meta.json',
    ]);
  });

  test('many interrupted downloads at once: each fails cleanly, the process stays up, nothing is left behind', async () => {
    handlers.set('/cut.csv', (_req, res) => {
      res.writeHead(200, { 'content-length': 100_000 });
      res.write('x'.repeat(5000));
      setImmediate(() => res.socket?.destroy());
    });
    const runs = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        fetchSourceFile(`cut${i}`, file('cut', '/cut.csv'), opts({ retries: 2, maxBytes: 1_000_000 })),
      ),
    );
    for (const r of runs) {
      assert.equal(r.status, 'rejected');
      assert.ok((r as PromiseRejectedResult).reason instanceof FetchError);
      assert.match(String((r as PromiseRejectedResult).reason.message), /: body interrupted after \d+ bytes/);
    }
    for (let i = 0; i < 40; i++) assert.deepEqual(await readdir(join(dataDir, 'sources', `cut${i}`)), []);
  });

  test('a body over the size limit is rejected without retry, by header or by counting', async () => {
    handlers.set('/big.csv', (_req, res) => res.writeHead(200, { 'content-length': 2000 }).end('x'.repeat(2000)));
    await assert.rejects(fetchSourceFile('l', file('big', '/big.csv'), opts()), {
      message: `${base}/big.csv: 2000 bytes exceeds the limit of 1024`,
    });
    assert.equal(hits.get('/big.csv')!.length, 1);
    handlers.set('/chunked.csv', (_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 20; i++) res.write('y'.repeat(100));
      res.end();
    });
    await assert.rejects(fetchSourceFile('l', file('chunked', '/chunked.csv'), opts()), {
      message: `${base}/chunked.csv: body exceeds the limit of 1024 bytes`,
    });
    assert.equal(hits.get('/chunked.csv')!.length, 1);
  });

  test('404 is final; an optional file that is missing is skipped', async () => {
    await assert.rejects(fetchSourceFile('l', file('gone', '/gone.csv'), opts()), {
      message: `${base}/gone.csv: HTTP 404`,
    });
    assert.equal(hits.get('/gone.csv')!.length, 1);
    assert.equal(await fetchSourceFile('l', file('gone', '/gone.csv', true), opts()), null);
  });

  test('SOURCE_URLS overrides the official URL per "slug.key"', async () => {
    handlers.set('/mirror.csv', (_req, res) => res.writeHead(200).end('mirror\n'));
    const r = await fetchSourceFile(
      'ofac',
      file('sdn', '/official.csv'),
      opts({ urlOverrides: { 'ofac.sdn': `${base}/mirror.csv` } }),
    );
    assert.equal(r!.url, `${base}/mirror.csv`);
    assert.equal(hits.get('/official.csv'), undefined);
  });

  test('SOURCE_DIR mode reads the laid-out file, and the digest covers all files', async () => {
    const dir = join(dataDir, 'srcdir');
    await mkdir(join(dir, 't'), { recursive: true });
    await writeFile(join(dir, 't', 'one.csv'), 'one\n');
    const files = [file('one', '/never'), file('two', '/never', true)];
    const a = await fetchSourceFiles('s', files, opts({ sourceDir: dir }));
    assert.deepEqual(a.files, { one: join(dir, 't', 'one.csv') });
    assert.equal(a.changed, true);
    assert.equal(a.digest, sha(`one:${sha('one\n')}\n`));
    const b = await fetchSourceFiles('s', files, opts({ sourceDir: dir }));
    assert.equal(b.changed, false);
    assert.equal(b.digest, a.digest);
    await assert.rejects(fetchSourceFiles('s', [file('three', '/never')], opts({ sourceDir: dir })), {
      message: `${join(dir, 't', 'three.csv')}: not found in SOURCE_DIR`,
    });
  });
});
