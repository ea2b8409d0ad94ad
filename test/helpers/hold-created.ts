/**
 * Preload for a server process (`startServer(env, { preload: [<this file's path>] })`): every 201
 * leaves TEST_HOLD_CREATED_MS after the handler finished, i.e. after its transaction committed.
 * Widens the window a SIGKILL must hit to leave a resource created whose client never saw the
 * answer (test/process/idempotent-retry.test.ts), and says how many it holds on stderr, so the
 * test kills the process while one is held; nothing else about the response changes.
 */
import { ServerResponse } from 'node:http'

/** The line the process writes (to stderr) whenever the number of 201s it holds changes. */
export const HELD_MARK = 'hold-created: held='

/** How many 201s a server's output says it holds now (the last count it wrote). */
export function heldNow(output: string): number {
  const at = output.lastIndexOf(HELD_MARK)
  return at < 0 ? 0 : Number.parseInt(output.slice(at + HELD_MARK.length), 10)
}

const holdMs = Number(process.env.TEST_HOLD_CREATED_MS ?? 0)
let held = 0
if (Number.isFinite(holdMs) && holdMs > 0) {
  const end = ServerResponse.prototype.end
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
    if (this.statusCode !== 201) return (end as (...a: unknown[]) => ServerResponse).apply(this, args)
    held++
    process.stderr.write(`${HELD_MARK}${held}\n`)
    setTimeout(() => {
      held--
      process.stderr.write(`${HELD_MARK}${held}\n`)
      ;(end as (...a: unknown[]) => ServerResponse).apply(this, args)
    }, holdMs)
    return this
  } as typeof end
}

export {}
