import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import uWS from 'uWebSockets.js';
import { BodyStream } from '../../src/server/body-stream.js';
import { ResponseState } from '../../src/server/uws-io.js';

/**
 * Regression: the 1M-row upload benchmark's request failed ("other side closed") in one run of
 * two or three, 10 s into the upload's processing. When a chunked body's last data and its end
 * arrive in one read, uWS delivers the end while the socket is paused (the data crossed the
 * high-water mark); the body stream then resumed the socket as its reader caught up, and uWS's
 * resume() arms its 10 s idle timeout, which only more data resets: none came, and uWS closed
 * the connection under the request still being processed.
 *
 * Real uWS and a raw TCP client, so the body's bytes arrive exactly so: one chunk of 1.1 MB and
 * the chunked terminator in one write. The reader starts late (the socket pauses with the end
 * delivered), and the answer comes 14 s after the body ended: past uWS's timeout. The
 * connection then serves a second request (the socket reads again once the answer is written).
 */
test('a body that ended while its socket was paused keeps its connection until the answer, however long the processing, and the connection serves the next request', async () => {
  const app = uWS.App();
  let requests = 0;
  const bodies: number[] = [];
  app.post('/up', (res) => {
    requests++;
    const state = new ResponseState();
    res.onAborted(() => state.abort());
    const body = new BodyStream(res, state, 1 << 30);
    void (async () => {
      await new Promise((r) => setTimeout(r, 300));
      let bytes = 0;
      for await (const chunk of body) bytes += chunk.byteLength;
      bodies.push(bytes);
      if (requests === 1) await new Promise((r) => setTimeout(r, 14_000));
      if (state.aborted) return;
      body.release();
      res.cork(() => res.end(`got ${bytes}`));
    })();
  });
  const listening = await new Promise<uWS.us_listen_socket>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (token) => (token ? resolve(token) : reject(new Error('listen failed')))),
  );
  const port = uWS.us_socket_local_port(listening);
  const socket = net.connect(port, '127.0.0.1');
  try {
    let received = '';
    const answers: string[] = [];
    let closed = false;
    let next: (() => void) | null = null;
    socket.on('data', (d) => {
      received += d.toString('latin1');
      for (let end = received.indexOf('\r\n\r\n'); end >= 0; end = received.indexOf('\r\n\r\n')) {
        const length = Number(/content-length: (\d+)/i.exec(received.slice(0, end))?.[1] ?? 0);
        if (received.length < end + 4 + length) break;
        answers.push(`${received.split('\r\n')[0]} ${received.slice(end + 4, end + 4 + length)}`);
        received = received.slice(end + 4 + length);
        next?.();
      }
    });
    socket.on('close', () => {
      closed = true;
      next?.();
    });
    const answered = (n: number) =>
      new Promise<void>((resolve) => {
        next = () => {
          if (answers.length >= n || closed) resolve();
        };
        next();
      });
    await new Promise((r) => socket.once('connect', r));
    const size = 1_100_000;
    socket.write(
      Buffer.concat([
        Buffer.from(`POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${size.toString(16)}\r\n`),
        Buffer.alloc(size, 120),
        Buffer.from('\r\n0\r\n\r\n'),
      ]),
    );
    await answered(1);
    assert.deepEqual(answers, [`HTTP/1.1 200 OK got ${size}`]);
    socket.write('POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
    await answered(2);
    assert.deepEqual(answers, [`HTTP/1.1 200 OK got ${size}`, 'HTTP/1.1 200 OK got 5']);
    assert.deepEqual(bodies, [size, 5]);
  } finally {
    socket.destroy();
    uWS.us_listen_socket_close(listening);
  }
});
