import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import uWS, { type us_listen_socket } from 'uWebSockets.js';
import { InflightRequests, type Begun } from '../../src/server/inflight.js';
import { RouteStats } from '../../src/server/metrics.js';

/** A uWS app whose one route begins a request and hands it to the test, which answers it when it likes. */
async function server(inflight: InflightRequests, stats: RouteStats, onBegun: (begun: Begun, end: () => void) => void) {
  let socket: us_listen_socket | null = null;
  const app = uWS.App().get('/*', (res) => {
    const begun = inflight.begin(res, stats);
    onBegun(begun, () => {
      if (!begun.state.aborted) res.cork(() => res.end('done'));
    });
  });
  const port = await new Promise<number>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (s) => {
      if (!s) return reject(new Error('cannot listen'));
      socket = s;
      resolve(uWS.us_socket_local_port(s));
    }),
  );
  return { port, close: () => socket && uWS.us_listen_socket_close(socket) };
}

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a begun request counts as running until finished; settled reports false at its deadline, then true', async () => {
  const inflight = new InflightRequests();
  const stats = new RouteStats('GET /', 'GET');
  assert.equal(await inflight.settled(0), true);
  let answer!: () => void;
  let began!: () => void;
  const begun = new Promise<void>((resolve) => (began = resolve));
  const srv = await server(inflight, stats, (b, end) => {
    answer = () => {
      end();
      b.finish(200);
      b.finish(500);
    };
    began();
  });
  const body = get(srv.port);
  await begun;
  assert.equal(inflight.count, 1);
  assert.equal(await inflight.settled(1), false);
  const settled = inflight.settled(60_000);
  answer();
  assert.equal(await settled, true);
  assert.equal(await body, 'done');
  assert.equal(inflight.count, 0);
  // A second finish is not counted again.
  assert.deepEqual([...stats.statuses], [[200, 1]]);
  srv.close();
});

test('closeAll closes the running connections: the request is observed as a 499 and no longer running', async () => {
  const inflight = new InflightRequests();
  const stats = new RouteStats('GET /', 'GET');
  let began!: () => void;
  const begun = new Promise<void>((resolve) => (began = resolve));
  const srv = await server(inflight, stats, () => began());
  const failed = get(srv.port).then(
    () => 'answered',
    (err: NodeJS.ErrnoException) => err.code,
  );
  await begun;
  const settled = inflight.settled(60_000);
  inflight.closeAll();
  assert.equal(await settled, true);
  assert.equal(inflight.count, 0);
  assert.equal(await failed, 'ECONNRESET');
  assert.deepEqual([...stats.statuses], [[499, 1]]);
  srv.close();
});
