/**
 * Preload for a server process (`startServer(env, { preload: [<this file's path>] })`): every 201
 * leaves TEST_HOLD_CREATED_MS after the handler finished, i.e. after its transaction committed.
 * Widens the window a SIGKILL must hit to leave a resource created whose client never saw the
 * answer (test/process/idempotent-retry.test.ts); nothing else about the response changes.
 */
import { ServerResponse } from 'node:http'

const holdMs = Number(process.env.TEST_HOLD_CREATED_MS ?? 0)
if (Number.isFinite(holdMs) && holdMs > 0) {
  const end = ServerResponse.prototype.end
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
    if (this.statusCode !== 201) return (end as (...a: unknown[]) => ServerResponse).apply(this, args)
    setTimeout(() => (end as (...a: unknown[]) => ServerResponse).apply(this, args), holdMs)
    return this
  } as typeof end
}

export {}
