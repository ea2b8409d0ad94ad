/**
 * Group commit for hot single-row writes: items submitted while a batch is being written wait
 * and go together in the next one, so N concurrent callers cost one statement instead of N.
 * At low load a batch is a single item written on the next turn of the event loop, so the added
 * latency is one loop turn. Each batch is one statement, hence atomic as a whole; every caller
 * still gets its own result.
 */
export class MicroBatcher<I, O> {
  private queue: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = []
  private running = false

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 256,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      if (!this.running) {
        this.running = true
        setImmediate(() => void this.drain())
      }
    })
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch)
      try {
        const results = await this.write(batch.map((b) => b.item))
        batch.forEach((b, i) => b.resolve(results[i]!))
      } catch (error) {
        for (const b of batch) b.reject(error)
      }
    }
    this.running = false
  }
}
