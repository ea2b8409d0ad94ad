/**
 * The scheduling shared by the outbox dispatchers (callbacks, chain): one round at a time; a
 * `kick()` during a round asks for another right after it instead of overlapping; when idle, the
 * next round comes after `pollMs` (an unref'd timer, so an idle loop never keeps the process
 * alive). A failed round is reported and the loop goes on at the next poll.
 */
export class PollLoop {
  private active = false
  private timer: NodeJS.Timeout | undefined
  private current: Promise<void> | undefined
  private again = false

  constructor(
    private readonly round: () => Promise<void>,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  get running(): boolean {
    return this.active
  }

  /** A round is running or the next one is scheduled. */
  get polling(): boolean {
    return this.timer !== undefined || this.current !== undefined
  }

  start(): void {
    if (this.active) return
    this.active = true
    this.kick()
  }

  /** No new round starts; resolves once the one running (if any) has finished. */
  async stop(): Promise<void> {
    this.active = false
    clearTimeout(this.timer)
    this.timer = undefined
    await this.current
  }

  /** Waits for the round running now, if any. */
  async idle(): Promise<void> {
    await this.current
  }

  /** Run a round now, or right after the one running. Ignored when stopped. */
  kick(): void {
    if (!this.active) return
    if (this.current) {
      this.again = true
      return
    }
    clearTimeout(this.timer)
    this.timer = undefined
    this.current = this.round()
      .catch(this.onError)
      .finally(() => {
        this.current = undefined
        if (!this.active) return
        if (this.again) {
          this.again = false
          this.kick()
        } else {
          this.timer = setTimeout(() => {
            this.timer = undefined
            this.kick()
          }, this.pollMs)
          this.timer.unref()
        }
      })
  }

  /** From inside a round: more work is waiting, run another round right after this one. */
  runAgain(): void {
    this.again = true
  }
}
