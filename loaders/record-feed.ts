import type { EntityRecord } from '../engine/model.js';

/**
 * Records handed from a producer that writes them synchronously (the diff writing a version's
 * files) to a consumer that pulls them (the engine loading that version), so that the engine
 * takes the version as it is written instead of parsing its files again. The producer's `ready()`
 * holds it back while `limit` records wait, until the consumer takes them (it takes them all at
 * once, so at most about twice `limit` are held between the two). A consumer that
 * stops early never holds the producer back again; what is written after that is dropped.
 */
export class RecordFeed {
  private queue: EntityRecord[] = [];
  private ended = false;
  private failure: { err: unknown } | null = null;
  private abandoned = false;
  private wakeConsumer: (() => void) | null = null;
  private wakeProducer: (() => void) | null = null;

  constructor(private readonly limit = 16_384) {}

  push(r: EntityRecord): void {
    if (this.abandoned) return;
    this.queue.push(r);
    this.wake('consumer');
  }

  /** Resolves once fewer than `limit` records wait (at once when the consumer has stopped). */
  async ready(): Promise<void> {
    while (!this.abandoned && this.queue.length >= this.limit)
      await new Promise<void>((resolve) => (this.wakeProducer = resolve));
  }

  /** The producer wrote its last record. */
  end(): void {
    this.ended = true;
    this.wake('consumer');
  }

  /** The producer failed: the consumer's next read throws `err`. */
  fail(err: unknown): void {
    this.failure = { err };
    this.wake('consumer');
  }

  /** The records in the order pushed; ends when the producer does, throws when it fails. Read once. */
  async *records(): AsyncIterable<EntityRecord> {
    try {
      for (;;) {
        if (this.failure) throw this.failure.err;
        if (this.queue.length > 0) {
          const batch = this.queue;
          this.queue = [];
          this.wake('producer');
          yield* batch;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
      }
    } finally {
      this.abandoned = true;
      this.queue = [];
      this.wake('producer');
    }
  }

  private wake(who: 'consumer' | 'producer'): void {
    const wake = who === 'consumer' ? this.wakeConsumer : this.wakeProducer;
    if (!wake) return;
    if (who === 'consumer') this.wakeConsumer = null;
    else this.wakeProducer = null;
    wake();
  }
}
