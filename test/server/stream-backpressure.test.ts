import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';

/**
 * Streamed answers stay well framed while clients read slowly. uWS 20.30 dropped the data of a
 * chunk larger than its cork buffer when the socket was full at that moment (the client read a
 * chunk header followed by the next chunk, or a connection cut in the middle of a chunk): a
 * listed-address batch of 10,000 lines (about 4 MB) was cut for about one reader in 25 while
 * other work kept the machine busy. Readers here pause every few milliseconds, half of them, so
 * the server meets a full socket many times per answer; every answer is parsed byte by byte.
 */
let svc: TestService;
let token: string;

before(async () => {
  svc = await startTestService();
  token = (await createCustomerToken(svc.url, 10_000_000)).token;
});
after(async () => {
  await svc?.close();
});

/** Listed in the OFAC crypto data: long answer lines. */
const LISTED = [
  '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
  '0x8589427373d6d84e98730d7795d8f6f8731fda16',
  '0x098b716b8aaf21512996dc57eb0615e2383e2f96',
];
const ITEMS = 10_000;

/** The body of a chunked answer, or why its framing is broken. */
function dechunk(raw: Buffer): { body: Buffer } | { error: string } {
  const head = raw.indexOf('\r\n\r\n');
  if (head < 0) return { error: 'no head' };
  const parts: Buffer[] = [];
  let at = head + 4;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = eol < 0 ? NaN : parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (Number.isNaN(size)) return { error: `no chunk size at byte ${at} of ${raw.length}` };
    if (size === 0) return { body: Buffer.concat(parts) };
    const end = eol + 2 + size;
    if (raw.subarray(end, end + 2).toString('latin1') !== '\r\n')
      return { error: `chunk of ${size} bytes at byte ${eol + 2} not followed by CRLF (${raw.length} bytes read)` };
    parts.push(raw.subarray(eol + 2, end));
    at = end + 2;
  }
}

/** One batch over a raw socket; a slow reader pauses two turns of every three. */
function readBatch(body: string, slow: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(svc.url).port), '127.0.0.1', () => {
      socket.write(
        `POST /api/v1/screen/batch HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    const parts: Buffer[] = [];
    let turn = 0;
    const pacer = slow ? setInterval(() => (turn++ % 3 === 0 ? socket.resume() : socket.pause()), 2) : undefined;
    const done = (result: Buffer | Error) => {
      clearInterval(pacer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    // The last chunk's framing; answer lines hold no CR, so it cannot occur inside the body.
    let tail = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      parts.push(d);
      tail = Buffer.concat([tail, d.subarray(-5)]).subarray(-5);
      if (tail.toString('latin1') === '0\r\n\r\n') done(Buffer.concat(parts));
    });
    socket.on('error', done);
    socket.on('close', () => done(Buffer.concat(parts)));
  });
}

test('batch answers to slow and fast readers side by side arrive whole and well framed', async () => {
  const items = Array.from({ length: ITEMS }, (_, i) => ({ type: 'crypto', value: LISTED[i % LISTED.length] }));
  const body = JSON.stringify({ items });
  // The line of each address, from an answer read at once.
  const reference = await fetch(`${svc.url}/api/v1/screen/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ items: items.slice(0, LISTED.length) }),
  });
  const expected = (await reference.text()).trim().split('\n');
  assert.ok(expected.every((line) => (JSON.parse(line) as { flagged: boolean }).flagged));
  for (let round = 0; round < 2; round++) {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => readBatch(body, i % 2 === 0)));
    answers.forEach((raw, reader) => {
      const where = `round ${round}, reader ${reader}`;
      assert.match(raw.subarray(0, 15).toString('latin1'), /^HTTP\/1\.1 200 /, where);
      const framed = dechunk(raw);
      if ('error' in framed) assert.fail(`${where}: ${framed.error}`);
      const lines = framed.body.toString('utf8').split('\n');
      assert.equal(lines.pop(), '', where);
      assert.equal(lines.length, ITEMS, where);
      lines.forEach((line, i) => assert.equal(line, expected[i % LISTED.length], `${where}, line ${i}`));
    });
  }
});
