import type { HttpResponse } from 'uWebSockets.js';
import { ResponseState } from './uws-io.js';
import type { RouteStats } from './metrics.js';

/** An answer under way: its abort state, and `finish` to call once it was sent. */
export interface Begun {
  state: ResponseState;
  finish: (status: number) => void;
}

/**
 * The requests answered after uWS's callback returned: a graceful stop waits for them, and at its
 * deadline closes their connections. Requests answered within the callback never enter it.
 */
export class InflightRequests {
  /** How many requests are running. */
  count = 0;
  /** Answers that are not sent yet, to close at the drain deadline. */
  private readonly running = new Map<ResponseState, HttpResponse>();
  private drained: (() => void) | null = null;

  /** Counts the request as running until `finish` (or the client's leaving, observed as a 499) in `stats`. */
  begin(res: HttpResponse, stats: RouteStats, started = performance.now()): Begun {
    const state = new ResponseState();
    this.count++;
    this.running.set(state, res);
    let finished = false;
    const finish = (status: number) => {
      if (finished) return;
      finished = true;
      this.count--;
      this.running.delete(state);
      stats.observe(status, (performance.now() - started) / 1000);
      if (this.count === 0 && this.drained) this.drained();
    };
    res.onAborted(() => {
      state.abort();
      finish(499);
    });
    return { state, finish };
  }

  /** Resolves true once no request is running, false after `ms`. */
  settled(ms: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.drained = null;
        resolve(false);
      }, ms);
      this.drained = () => {
        clearTimeout(timer);
        this.drained = null;
        resolve(true);
      };
    });
  }

  /** Closes the connections of the running requests: their handlers see it and finish. */
  closeAll(): void {
    for (const [state, res] of [...this.running]) {
      if (state.aborted) continue;
      state.abort();
      res.cork(() => res.close());
    }
  }
}
