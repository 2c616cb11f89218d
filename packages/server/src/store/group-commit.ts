/**
 * Group commit: writes that arrive while the database is busy (or in the same turn of the event
 * loop) are committed together in one transaction. Each caller's promise settles only when the
 * transaction holding its write has committed, so an acknowledged write is a committed one.
 *
 * Batches are written one at a time, in arrival order, and hold at most `maxBatch` writes. When a
 * batch of several fails, each of its writes is tried again alone, so one bad write (a duplicate
 * key) fails only its own caller; when the database itself fails, every write of that batch
 * fails, and no other batch's caller sees the error.
 *
 * Why: on PGlite every transaction runs on the server's one thread, and its commit is the
 * expensive part; under load, one commit for many exchanges instead of one each.
 */
export class GroupCommit<T> {
  private queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: { maxBatch?: number; onBatch?: (size: number) => void } = {},
  ) {}

  /** Resolves once `item` is committed; rejects with the error of the write that held it. */
  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        // Writes submitted in this turn of the event loop join the first batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Writes waiting for the batch being written (or the next one). */
  get pending(): number {
    return this.queue.length;
  }

  private async flush(): Promise<void> {
    const maxBatch = this.options.maxBatch ?? 256;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, maxBatch);
      this.options.onBatch?.(batch.length);
      try {
        await this.write(batch.map((waiter) => waiter.item));
        for (const waiter of batch) waiter.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.reject(error);
          continue;
        }
        for (const waiter of batch) {
          try {
            await this.write([waiter.item]);
            waiter.resolve();
          } catch (alone) {
            waiter.reject(alone);
          }
        }
      }
    }
    this.flushing = false;
  }
}
