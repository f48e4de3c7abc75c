import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { RE2JS } from 're2js';
import { startTestService, type TestService } from '../../harness/service.js';
import { RegexTooCostly } from '../../engine/engine.js';

/**
 * Regex search never answers in part (issue #20, item 7): its budget counts the CPU time each
 * shard spends scanning, so a busy machine slows a scan without cutting it; a pattern that needs
 * more is refused whole with a 422 `regex_too_costly`. The corpus of ordinary patterns runs on the
 * real lists while two processes keep both cores busy, each pattern the first time it is seen.
 */
let svc: TestService;
const hogs: ChildProcess[] = [];

before(async () => {
  svc = await startTestService();
});
after(async () => {
  for (const h of hogs) h.kill('SIGKILL');
  await svc?.close();
});

/** Keeps a core busy for at most two minutes (stops by itself; killed when the test ends). */
function cpuHog(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 120000; while (Date.now() < end) {}'], {
    stdio: 'ignore',
  });
  hogs.push(child);
  return child;
}

const corpus = readFileSync(new URL('../fixtures/search/regex-corpus.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

/** Every active entity of the lists /search covers by default, as list|value. */
function everyEntity(): { list: string; value: string }[] {
  const { engine } = svc.service;
  const out: { list: string; value: string }[] = [];
  for (const [slug, s] of Object.entries(svc.service.lists().status())) {
    if (!s.loaded) continue;
    for (const e of engine.entities(slug, { limit: 10_000_000 }).entities) out.push({ list: slug, value: e.value });
  }
  return out;
}

type Row = { list: string; value: string; match: string };

test('a corpus of ordinary patterns is answered completely on the real lists with both cores busy', async () => {
  const entities = everyEntity();
  assert.ok(entities.length > 70_000, `${entities.length} entities`);
  cpuHog();
  cpuHog();
  for (const pattern of corpus) {
    const res = await fetch(`${svc.url}/api/v1/search?mode=regex&limit=25&q=${encodeURIComponent(pattern)}`);
    assert.equal(res.status, 200, `${pattern}: ${res.status} ${await res.clone().text()}`);
    const rows = (await res.json()) as Row[];
    const re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    const expected = entities.filter((e) => re.test(e.value)).map((e) => `${e.list}|${e.value}`);
    const got = rows.map((r) => `${r.list}|${r.value}`);
    assert.ok(expected.length > 0, `${pattern} matches nothing on the real lists: not a useful corpus entry`);
    for (const r of rows) assert.equal(r.match, 'regex');
    if (expected.length <= 25) assert.deepEqual(got.sort(), expected.sort(), pattern);
    else {
      assert.equal(got.length, 25, pattern);
      for (const g of got) assert.ok(expected.includes(g), `${pattern}: ${g}`);
    }
  }
});

test('a pattern whose scan needs more than the budget is refused whole: 422 regex_too_costly, documented', async () => {
  const q = '(?:.{0,40}[a-z]{1,30}){3}qqqzzz';
  const res = await fetch(`${svc.url}/api/v1/search?mode=regex&q=${encodeURIComponent(q)}`);
  assert.equal(res.status, 422);
  assert.deepEqual(await res.json(), {
    detail: [
      {
        type: 'regex_too_costly',
        loc: ['query', 'q'],
        msg: 'Value error, the regular expression needs more than the 250 ms of scanning allowed per search; anchor it or make it more specific',
        input: q,
        ctx: { budget_ms: 250 },
      },
    ],
  });
  const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, { get: { description: string; responses: Record<string, unknown> } }>;
  };
  assert.match(doc.paths['/api/v1/search'].get.description, /regex_too_costly/);
  assert.ok(doc.paths['/api/v1/search'].get.responses['422']);
});

test('the engine refuses rather than cuts: a scan over its budget throws, never returns what it found so far', async () => {
  const lists = Object.entries(svc.service.lists().status())
    .filter(([, s]) => s.loaded)
    .map(([slug]) => slug);
  await assert.rejects(
    svc.service.engine.search({ q: 'zzzqqqzzz', mode: 'regex', lists, limit: 10, budgetMs: 1 }),
    (err: unknown) => {
      assert.ok(err instanceof RegexTooCostly);
      assert.equal(err.budgetMs, 1);
      return true;
    },
  );
  assert.deepEqual(
    await svc.service.engine.search({ q: 'zzzqqqzzz', mode: 'regex', lists, limit: 10, budgetMs: 60_000 }),
    [],
  );
});
