interface Queued<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: callers that would each take the same row lock in a transaction of their own add their item here
 * instead, and one `commit` at a time handles everything added while the previous one was in flight. Under load
 * the lock is taken once per batch, not once per caller; alone, a caller waits for nothing. `commit` returns one
 * result per item in order, an Error for an item that failed on its own; when `commit` throws, every item of the
 * batch is rejected with that error.
 */
export class GroupCommit<Item, Result> {
  private queued: Queued<Item, Result>[] = [];
  private running = false;

  constructor(
    private readonly commit: (items: Item[]) => Promise<(Result | Error)[]>,
    private readonly maxBatch = 200,
  ) {}

  add(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, this.maxBatch);
      try {
        const results = await this.commit(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => {
          const result = results[index];
          if (result instanceof Error) entry.reject(result);
          else entry.resolve(result as Result);
        });
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.running = false;
  }
}
