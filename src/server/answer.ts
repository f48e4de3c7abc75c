import type { HttpResponse } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { Outcome } from '../core/pipeline.js';
import { JSON_TYPE, ResponseState, sendBody, StreamWriter } from './uws-io.js';

/** An outcome as a transport sends it (the caller is the pipeline's business). */
export type Answer = Omit<Outcome, 'caller'>;

/** Turns an endpoint's 200 body into its bytes (a faster writer than JSON.stringify for its shape). */
export type Serializer = (body: unknown) => string | Buffer;

export interface WholeBody {
  contentType: string;
  body: string | Buffer;
}

/** What an answer sends in one piece (JSON, or a raw string or Buffer); null for a streamed body. */
export function wholeBody(answer: Answer, serialize?: Serializer): WholeBody | null {
  const raw = answer.raw;
  if (!raw)
    return {
      contentType: JSON_TYPE,
      body: answer.status === 200 && serialize ? serialize(answer.body) : JSON.stringify(answer.body),
    };
  return typeof raw.body === 'string' || Buffer.isBuffer(raw.body)
    ? { contentType: raw.contentType, body: raw.body }
    : null;
}

/**
 * Sends an answer after uWS's request callback returned (each write corked, nothing once the client
 * left); a streamed body resolves when its last chunk was written. Throws when the body cannot be
 * serialized, before anything was sent.
 */
export function sendAnswer(
  res: HttpResponse,
  state: ResponseState,
  answer: Answer,
  requestId: string,
  log: Logger,
  serialize?: Serializer,
): void | Promise<void> {
  const whole = wholeBody(answer, serialize);
  if (whole) return sendBody(res, state, answer.status, whole.contentType, whole.body, answer.headers, requestId);
  const raw = answer.raw!;
  return streamBody(
    res,
    state,
    answer.status,
    raw.contentType,
    raw.body as AsyncIterable<string> | Iterable<string>,
    {
      ...answer.headers,
      'X-Request-Id': requestId,
    },
    log,
  );
}

/** A failed stream closes the connection: the client must not take a cut-off body for a whole one. */
async function streamBody(
  res: HttpResponse,
  state: ResponseState,
  status: number,
  contentType: string,
  body: AsyncIterable<string> | Iterable<string>,
  headers: Record<string, string>,
  log: Logger,
): Promise<void> {
  const writer = new StreamWriter(res, state);
  try {
    await writer.start(status, { ...headers, 'Content-Type': contentType });
    for await (const chunk of body) {
      if (state.aborted) return;
      await writer.write(chunk);
    }
    writer.end();
  } catch (err) {
    log.error({ err }, 'stream failed');
    if (!state.aborted) res.cork(() => res.close());
  }
}
