import type { HttpResponse } from 'uWebSockets.js';
import { payloadTooLarge } from '../core/errors.js';
import type { ResponseState } from './uws-io.js';

/** Bytes buffered before the socket is paused (and resumed below half of it). */
const HIGH_WATER = 1 << 20;

/**
 * The request body as an async iterable of chunks. uWS lends each chunk only during its
 * callback, so it is copied; reading pauses the socket above HIGH_WATER buffered bytes (while its
 * reader, a spool file, catches up). More than `limit` bytes end the iteration with a 413; a
 * client that goes away ends it with an error.
 */
export class BodyStream implements AsyncIterable<Uint8Array> {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private received = 0;
  private ended = false;
  private paused = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly state: ResponseState,
    private readonly limit: number,
  ) {
    res.onData((ab, isLast) => {
      if (this.failure || state.aborted || state.done) return;
      this.received += ab.byteLength;
      if (this.received > limit) {
        this.fail(
          payloadTooLarge(`Request body too large: an upload holds at most ${limit} bytes (LIST_UPLOAD_MAX_BYTES)`),
        );
        return;
      }
      if (ab.byteLength > 0) {
        this.chunks.push(Buffer.from(new Uint8Array(ab)));
        this.buffered += ab.byteLength;
      }
      if (isLast) this.ended = true;
      else if (this.buffered > HIGH_WATER && !this.paused) {
        this.paused = true;
        res.pause();
      }
      this.notify();
    });
  }

  /** The whole body arrived. */
  get complete(): boolean {
    return this.ended;
  }

  /**
   * Reads the socket again if the body ended while it was paused: called when the answer is
   * written, so that the connection serves its next request.
   */
  release(): void {
    if (this.paused) this.resume();
  }

  private resume(): void {
    if (this.state.aborted || this.state.done) return;
    this.paused = false;
    this.res.resume();
  }

  aborted(): void {
    this.fail(new Error('the client went away during the upload'));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      if (this.failure) throw this.failure;
      const chunk = this.chunks.shift();
      if (chunk) {
        this.buffered -= chunk.byteLength;
        // Only while the body is still arriving: uWS's resume() starts its 10 s idle timeout, which
        // only more data resets. A body that ended while the socket was paused (its last data and
        // its end read together) had its connection closed 10 s later, under the upload still being
        // processed, and the client got no answer; `release` resumes it when the answer is written.
        if (this.paused && !this.ended && this.buffered < HIGH_WATER / 2) this.resume();
        yield chunk;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((r) => (this.wake = r));
    }
  }
}
