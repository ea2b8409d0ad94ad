import type { Database, Executor } from '../../db/database.js'
import { MicroBatcher } from '../../shared/micro-batcher.js'
import type { Clock } from '../../adapters/clock.js'
import { spendChallengesAndTouchUsers, type LoginWrite, type UserSummary } from './users.repository.js'

/**
 * The one database write of a login, batched across concurrent logins (group commit). Embedded
 * PGlite runs one statement at a time on its thread, each with a fixed cost (a message each way,
 * a call into WebAssembly, a commit) that a few more rows barely change, so
 * batching is what lets logins scale with concurrency. A nonce submitted twice in one batch is written once:
 * the second submission gets undefined, like a replay.
 */
export class LoginWriter {
  private readonly batcher: MicroBatcher<LoginWrite, UserSummary | undefined>

  constructor(db: Database, clock: Clock) {
    this.batcher = new MicroBatcher(async (items) => {
      const seen = new Set<string>()
      const unique = items.filter((item) => !seen.has(item.nonce) && seen.add(item.nonce))
      const written = await spendChallengesAndTouchUsers(db, unique, clock.now())
      const byNonce = new Map(unique.map((item, i) => [item.nonce, { item, user: written[i] }]))
      // Only the first submission of a nonce may receive its user.
      return items.map((item) => (byNonce.get(item.nonce)?.item === item ? byNonce.get(item.nonce)!.user : undefined))
    })
  }

  write(login: LoginWrite): Promise<UserSummary | undefined> {
    return this.batcher.submit(login)
  }

  /** Inside a caller's transaction: not batched. */
  static async writeIn(trx: Executor, login: LoginWrite, now: Date): Promise<UserSummary | undefined> {
    return (await spendChallengesAndTouchUsers(trx, [login], now))[0]
  }
}
