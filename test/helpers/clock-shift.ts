/**
 * Preload for a server process (`startServer(env, { preload: [<this file's path>] })`): moves
 * the process's wall clock forward by TEST_CLOCK_SHIFT_MS, so a restarted server sees the time
 * it would see had it come back that much later. The crash test uses it to let the leases a
 * killed instance held on outbox rows run out (callbacks 60 s, chain jobs 5 min) without
 * sleeping through them. Only `Date` moves: timers, and the process's view of elapsed time, do not.
 */
const shift = Number(process.env.TEST_CLOCK_SHIFT_MS ?? 0)
if (Number.isFinite(shift) && shift !== 0) {
  const RealDate = Date
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + shift)
      else super(...(args as [string | number | Date]))
    }
    static override now(): number {
      return RealDate.now() + shift
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor
}

export {}
