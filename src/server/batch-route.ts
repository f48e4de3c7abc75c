import type { TemplatedApp } from 'uWebSockets.js';
import type { AnyEndpoint } from '../core/endpoint.js';
import { parseInput, parseJsonBody } from '../core/validation.js';
import { executeStreamed, errorOutcome } from '../core/pipeline.js';
import type { ScreenEnvelope } from '../api/endpoints/screen.js';
import type { BatchLineT } from '../api/endpoints/batch.js';
import { screenResponseJson, writeScreenResponseLine } from '../api/screen-json.js';
import type { RouteHelpers } from './app.js';
import { refuseUnread, StreamWriter } from './uws-io.js';

/**
 * The REST route of batch screening (`screen.batch`): the answer is streamed as NDJSON with
 * backpressure, so it is registered here rather than from the endpoint definition.
 */

/** Bytes of NDJSON handed to uWS at a time. */
const CHUNK_BYTES = 64 * 1024;
/**
 * Where answers encode their lines. One buffer serves every batch in flight: a batch fills it
 * and hands it to uWS, which copies the bytes before `write` returns (its first await comes
 * after), without an await between the two, so another batch never sees it half-filled.
 */
const lineBytes = Buffer.allocUnsafe(CHUNK_BYTES);

/** Writes an NDJSON line into `out` at `at`; returns where it ends, or -1 when it may not fit. */
function putLine(line: BatchLineT, out: Buffer, at: number): number {
  if ('matches' in line) return writeScreenResponseLine(line as ScreenEnvelope, out, at);
  const text = lineText(line);
  return at + 3 * text.length > out.length ? -1 : at + out.write(text, at, 'utf8');
}

/** An NDJSON line as text (one too long for the line buffer). */
function lineText(line: BatchLineT): string {
  return `${'matches' in line ? screenResponseJson(line as ScreenEnvelope) : JSON.stringify(line)}\n`;
}

/**
 * The whole answer as sent (stored for an Idempotency-Key). A function of the lines, not a closure
 * over them: see StreamedAnswer in core/pipeline.ts.
 */
const answerText = (lines: readonly unknown[]): string => (lines as BatchLineT[]).map(lineText).join('');

/** The REST route: validate, run the pipeline, then stream the lines with backpressure. */
export function registerBatchRoute(app: TemplatedApp, helpers: RouteHelpers, ep: AnyEndpoint): void {
  const route = 'POST /api/v1/screen/batch';
  app.post('/api/v1/screen/batch', (res, req) => {
    const meta = helpers.readMeta(res, req, 'batch');
    const query = req.getQuery();
    const { state, finish } = helpers.begin(res, route, 'POST');
    void (async () => {
      let status = 200;
      try {
        const text = await helpers.readText(res, state);
        const body = parseJsonBody(text, 'items');
        const queryParams = Object.fromEntries(new URLSearchParams(query));
        const input = parseInput(ep.input, { path: {}, query: queryParams, body });
        const streamed = await executeStreamed(ep, input, meta, helpers.pipeline);
        const { outcome } = streamed;
        if (outcome.raw) {
          // A replay (Idempotency-Key): the answer as it was first sent.
          await helpers.sendOutcome(res, state, outcome, meta.requestId);
          finish(200);
          return;
        }
        const lines = outcome.body as BatchLineT[];
        const writer = new StreamWriter(res, state);
        await writer.start(200, {
          ...outcome.headers,
          'Content-Type': 'application/x-ndjson',
          'X-Request-Id': meta.requestId,
        });
        // Lines are encoded into a reused buffer and sent a buffer at a time: joining them into
        // strings first made every chunk a large string to flatten, each a large-object allocation.
        const out = lineBytes;
        let used = 0;
        // Lines sent: what the batch is charged and audited for when it is cut off. uWS may keep
        // the tail of a chunk in its buffer without saying so (the flush at the end of a cork does
        // not report), so a chunk's lines count as sent once a piece of a later write went through
        // without backpressure: uWS drains its buffer before it takes more (StreamWriter.write).
        // A client may then hold at most the two chunks after those counted.
        let sent = 0;
        let handed = 0;
        // AUDIT_STRICT: the rows of a chunk's lines are stored before the chunk is handed to uWS.
        let recorded = 0;
        let settling = false;
        const send = async (bytes: Buffer | string, upTo: number) => {
          if (streamed.recordsParts && upTo > recorded) {
            // The chunk is copied first: `out` is shared with the other batches while this one waits.
            const held = typeof bytes === 'string' ? bytes : Buffer.from(bytes);
            await streamed.record(recorded, upTo);
            recorded = upTo;
            if (state.aborted) return;
            bytes = held;
          }
          const through = await writer.write(bytes);
          if (state.aborted) return;
          if (through) sent = handed;
          handed = upTo;
        };
        try {
          for (let i = 0; i < lines.length && !state.aborted; i++) {
            const line = lines[i];
            let end = putLine(line, out, used);
            if (end < 0 && used > 0) {
              await send(out.subarray(0, used), i);
              used = 0;
              end = putLine(line, out, 0);
            }
            if (end >= 0) used = end;
            else await send(lineText(line), i + 1);
          }
          if (used > 0 && !state.aborted) await send(out.subarray(0, used), lines.length);
          if (!state.aborted) sent = lines.length;
          settling = true;
          await streamed.delivered(sent, answerText);
        } catch (err) {
          // AUDIT_STRICT and the rows could not be stored: the answer is not completed. The parts
          // recorded before are charged.
          helpers.log.error({ err, reqId: meta.requestId }, 'batch rows not stored; answer left incomplete');
          if (!settling) await streamed.delivered(0, answerText).catch(() => undefined);
          if (!state.aborted) res.cork(() => res.close());
          status = 503;
        }
        if (status === 200) writer.end();
      } catch (err) {
        const outcome = errorOutcome(err, helpers.log, meta);
        status = outcome.status;
        await helpers.sendOutcome(res, state, outcome, meta.requestId);
      }
      finish(status);
    })();
  });
  app.any('/api/v1/screen/batch', (res, req) =>
    refuseUnread(res, req, 405, '{"detail":"Method Not Allowed"}', { Allow: 'POST' }),
  );
}
