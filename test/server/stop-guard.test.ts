import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import uWS from 'uWebSockets.js';
import { guarded } from '../../src/server/stop-guard.js';

/** One request's status and Connection header. */
function call(port: number, method: string): Promise<[number, string | undefined]> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/x', method }, (res) => {
      res.resume();
      res.on('end', () => resolve([res.statusCode!, res.headers.connection]));
    });
    req.on('error', reject);
    req.end();
  });
}

test('once stopping, every kind of route answers 503 and closes its connection; HEAD without a body (HEAD and OPTIONS were not guarded)', async () => {
  let stopping = false;
  const app = guarded(uWS.App(), () => stopping);
  const ok = (res: uWS.HttpResponse) => {
    res.cork(() => res.end());
  };
  app.get('/x', ok).post('/x', ok).put('/x', ok).patch('/x', ok).del('/x', ok).head('/x', ok).options('/x', ok);
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen failed')))),
  );
  const port = uWS.us_socket_local_port(socket);
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
  try {
    for (const m of methods) assert.equal((await call(port, m))[0], 200, m);
    stopping = true;
    for (const m of methods) assert.deepEqual(await call(port, m), [503, 'close'], m);
  } finally {
    uWS.us_listen_socket_close(socket);
  }
});
