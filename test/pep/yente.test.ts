import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createPepProvider, type PepProvider } from '../../src/pep/index.js';
import { yentePepProvider } from '../../src/pep/yente.js';
import { PepScreenResponse } from '../../src/pep/schema.js';
import { HttpError } from '../../src/core/errors.js';

const log = pino({ level: 'silent' });

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  auth: string | undefined;
  body: unknown;
}

/** One result in yente's /match response format. */
function result(id: string, caption: string, score: number, properties: Record<string, string[]>, datasets: string[]) {
  return {
    id,
    caption,
    schema: 'Person',
    properties: { name: [caption], ...properties },
    datasets,
    referents: [],
    target: false,
    first_seen: '2023-03-01T00:00:00',
    last_seen: '2026-01-10T00:00:00',
    last_change: '2025-11-05T08:44:02',
    score,
    features: { name_literal_match: score, person_name_jaro_winkler: score },
    match: score >= 0.7,
    token: null,
  };
}

function matchResponse(results: unknown[], query: unknown) {
  return {
    responses: { q: { status: 200, results, total: { value: results.length, relation: 'eq' }, query } },
    matcher: { name: 'logic-v1', version: 1 },
    limits: { 'yente.match.results': 5, 'yente.match.candidates': 10 },
  };
}

describe('yente provider against a local server speaking the /match format', () => {
  let server: Server;
  let url: string;
  let seen: Seen[] = [];
  /** What the server does on each request, in order; the last one repeats. */
  let script: ((req: IncomingMessage, res: ServerResponse, body: unknown) => void)[] = [];

  const answerMatch = (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const q = (body as { queries: { q: unknown } }).queries.q;
    const payload = matchResponse(
      [
        result(
          'Q101196632',
          'Jake Auchincloss',
          0.98,
          {
            topics: ['role.pep'],
            country: ['us'],
            birthDate: ['1988-01-29'],
            position: ['United States representative'],
          },
          ['us_congress', 'wd_peps'],
        ),
        result('NK-fixture-2', 'Jake Auchinclose', 0.61, { topics: ['role.rca'] }, ['wd_peps']),
      ],
      q,
    );
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
  };

  before(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const u = new URL(req.url!, 'http://x');
        const body = raw ? JSON.parse(raw) : null;
        seen.push({
          method: req.method!,
          path: u.pathname,
          query: Object.fromEntries(u.searchParams),
          auth: req.headers.authorization,
          body,
        });
        const step = script[Math.min(seen.length - 1, script.length - 1)];
        step(req, res, body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    seen = [];
    script = [answerMatch];
  });

  async function provider(env: Record<string, string> = {}): Promise<PepProvider> {
    return createPepProvider({ config: loadConfig({ PEP_PROVIDER: 'yente', PEP_YENTE_URL: url, ...env }), log });
  }

  async function rejectsWith(p: Promise<unknown>, status: number, detail: RegExp): Promise<void> {
    await assert.rejects(p, (err: unknown) => {
      assert.ok(err instanceof HttpError, String(err));
      assert.equal(err.status, status);
      assert.match(String(err.detail), detail);
      return true;
    });
  }

  test('request: path, threshold, limit, Person query, API key', async () => {
    const pep = await provider({ PEP_YENTE_API_KEY: 'k-123', PEP_DATASET: 'default' });
    await pep.screen({ name: 'Jake Auchincloss', birth_date: '1988', country: 'United States', limit: 3 });
    assert.deepEqual(seen, [
      {
        method: 'POST',
        path: '/match/default',
        query: { threshold: '0.7', limit: '3' },
        auth: 'ApiKey k-123',
        body: {
          queries: {
            q: { schema: 'Person', properties: { name: ['Jake Auchincloss'], birthDate: ['1988'], country: ['us'] } },
          },
        },
      },
    ]);
  });

  test('no API key, no optional properties', async () => {
    const pep = await provider();
    await pep.screen({ name: 'Jake Auchincloss', limit: 5 });
    assert.equal(seen[0].auth, undefined);
    assert.equal(seen[0].path, '/match/peps');
    assert.deepEqual(seen[0].body, {
      queries: { q: { schema: 'Person', properties: { name: ['Jake Auchincloss'] } } },
    });
  });

  test('response: match and score as upstream, properties mapped, entity pages', async () => {
    const r = await (await provider()).screen({ name: 'Jake Auchincloss', limit: 5 });
    assert.deepEqual(PepScreenResponse.parse(r), r);
    assert.deepEqual(r, {
      value: 'Jake Auchincloss',
      pep: true,
      dataset: 'peps',
      matches: [
        {
          id: 'Q101196632',
          caption: 'Jake Auchincloss',
          score: 0.98,
          match: true,
          topics: ['role.pep'],
          countries: ['us'],
          birth_dates: ['1988-01-29'],
          positions: ['United States representative'],
          datasets: ['us_congress', 'wd_peps'],
          source_url: 'https://www.opensanctions.org/entities/Q101196632/',
        },
        {
          id: 'NK-fixture-2',
          caption: 'Jake Auchinclose',
          score: 0.61,
          match: false,
          topics: ['role.rca'],
          countries: [],
          birth_dates: [],
          positions: [],
          datasets: ['wd_peps'],
          source_url: 'https://www.opensanctions.org/entities/NK-fixture-2/',
        },
      ],
    });
  });

  test('pep is false when no candidate is a match', async () => {
    script = [
      (_req, res, body) =>
        res.end(
          JSON.stringify(
            matchResponse(
              [result('NK-x', 'Someone Else', 0.55, {}, ['peps'])],
              (body as { queries: { q: unknown } }).queries.q,
            ),
          ),
        ),
    ];
    const r = await (await provider()).screen({ name: 'Someone', limit: 5 });
    assert.deepEqual([r.pep, r.matches.map((m) => m.match)], [false, [false]]);
  });

  test('a 5xx is retried, then the answer is used', async () => {
    script = [(_q, res) => res.writeHead(502).end('bad gateway'), (_q, res) => res.writeHead(500).end(), answerMatch];
    const r = await yentePepProvider({ url, dataset: 'peps', timeoutMs: 5000, log, backoffMs: 10 }).screen({
      name: 'Jake Auchincloss',
      limit: 5,
    });
    assert.equal(r.pep, true);
    assert.equal(seen.length, 3);
  });

  test('persistent 5xx → 503 after the bounded attempts', async () => {
    script = [(_q, res) => res.writeHead(503).end()];
    await rejectsWith(
      yentePepProvider({ url, dataset: 'peps', timeoutMs: 5000, log, backoffMs: 10 }).screen({
        name: 'Jake',
        limit: 5,
      }),
      503,
      /PEP provider unavailable: HTTP 503/,
    );
    assert.equal(seen.length, 3);
  });

  test('a slow upstream → 503 within the timeout', async () => {
    script = [(_q, res) => setTimeout(() => res.end('{}'), 1500)];
    const started = Date.now();
    await rejectsWith((await provider({ PEP_TIMEOUT_MS: '300' })).screen({ name: 'Jake', limit: 5 }), 503, /timed out/);
    assert.ok(Date.now() - started < 1000);
  });

  test('an unreachable upstream → 503', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const pep = yentePepProvider({
      url: `http://127.0.0.1:${port}`,
      dataset: 'peps',
      timeoutMs: 2000,
      log,
      backoffMs: 10,
    });
    await rejectsWith(pep.screen({ name: 'Jake', limit: 5 }), 503, /PEP provider unavailable: unreachable/);
  });

  test('a refused request (401) → 502 without retry', async () => {
    script = [(_q, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"bad key"}')];
    await rejectsWith(
      (await provider({ PEP_YENTE_API_KEY: 'wrong' })).screen({ name: 'Jake', limit: 5 }),
      502,
      /rejected the request \(HTTP 401\)/,
    );
    assert.equal(seen.length, 1);
  });

  test('an unreadable answer → 502', async () => {
    script = [(_q, res) => res.end('<html>oops</html>')];
    await rejectsWith((await provider()).screen({ name: 'Jake', limit: 5 }), 502, /invalid response/);
    script = [(_q, res) => res.end('{"responses":{"q":{"status":400,"results":[]}}}')];
    await rejectsWith((await provider()).screen({ name: 'Jake', limit: 5 }), 502, /invalid response/);
    script = [(_q, res) => res.end('{"responses":{"q":{"status":200,"results":[{"id":"x"}]}}}')];
    await rejectsWith((await provider()).screen({ name: 'Jake', limit: 5 }), 502, /invalid response/);
  });
});
