import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { PollLoop } from '../../shared/poll-loop.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import type { StatusChecker, StatusListMemo, StatusState } from '../status-list/status-check.js'
import { recordActivity } from './wallet-activity.js'
import * as repo from './wallet-credentials.repository.js'

export interface ImportedStatusRefresherOptions {
  db: Database
  status: StatusChecker
  /** How each import's format reads its status entry (format-registry.ts). */
  formats: FormatRegistry
  clock: Clock
  /** An import's status list is read again once its last reading is this old. */
  intervalMs: number
  /** Imports claimed per round; a full round asks for another right after it. */
  batchSize?: number
  logger?: Pick<FastifyBaseLogger, 'info' | 'warn'>
}

export interface RefreshRound {
  checked: number
  revoked: number
  /** Lists that could not be read: the status is kept and read again after the interval. */
  unknown: number
}

// Remote lists fetched at once within a round (each list once per round, whatever the count of its credentials).
const CONCURRENCY = 8

/**
 * Keeps the wallet's imported credentials' `status` current (docs/wallet.md "Status of imported
 * credentials"): an import is checked against its issuer's status list when imported, and again
 * every `intervalMs`. A revocation found marks the import revoked (final) and writes the holder's
 * `credential_revoked` activity in one transaction; a list that cannot be read changes nothing.
 * Credentials issued here need none of this: the wallet reads their issuer's record.
 */
export class ImportedStatusRefresher {
  private readonly loop: PollLoop
  private readonly batchSize: number

  constructor(private readonly options: ImportedStatusRefresherOptions) {
    this.batchSize = options.batchSize ?? 100
    // Looks for due imports at most every minute, and never more often than every second.
    const pollMs = Math.max(1000, Math.min(options.intervalMs, 60_000))
    this.loop = new PollLoop(
      async () => void (await this.refreshDue()),
      pollMs,
      (err) =>
        options.logger?.warn({ err }, "refreshing imported credentials' status failed; retrying at the next poll"),
    )
  }

  start(): void {
    this.loop.start()
  }

  stop(): Promise<void> {
    return this.loop.stop()
  }

  /** One round: claims the imports due (oldest reading first) and reads their lists again. */
  async refreshDue(): Promise<RefreshRound> {
    const { db, status, formats, clock, intervalMs, logger } = this.options
    const now = clock.now()
    const due = await repo.claimImportsDue(db, new Date(now.getTime() - intervalMs), now, this.batchSize)
    const memo: StatusListMemo = new Map()
    const round: RefreshRound = { checked: due.length, revoked: 0, unknown: 0 }
    const reasons = new Set<string>()
    let next = 0
    const work = async () => {
      for (let item = due[next++]; item; item = due[next++]) {
        const format = formats.recognize(item.jwt)
        const state: StatusState = format
          ? await format.status(item.jwt, item.issuer_did, { status, statusMemo: memo })
          : { state: 'unknown', reason: 'in no format this service reads' }
        if (state.state === 'revoked' && (await this.markRevoked(item, now))) round.revoked++
        if (state.state === 'unknown') {
          round.unknown++
          reasons.add(state.reason)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, work))
    // One line per round, not per credential: a list that is down fails all of its credentials alike.
    if (round.unknown > 0)
      logger?.info(
        { credentials: round.unknown, reasons: [...reasons].slice(0, 5) },
        "imported credentials' status could not be read; kept, read again later",
      )
    if (due.length === this.batchSize) this.loop.runAgain()
    return round
  }

  private markRevoked(item: repo.ImportDue, at: Date): Promise<boolean> {
    return this.options.db.transaction().execute(async (trx) => {
      // Deleted from the wallet meanwhile, or marked by another instance: nothing to record.
      if (!(await repo.markImportRevoked(trx, item.id, at))) return false
      await recordActivity(trx, {
        holder_did: item.holder_did,
        type: 'credential_revoked',
        credential_id: item.id,
        details: { credential_type: item.credential_type, issuer_did: item.issuer_did, source: 'imported' },
        at,
      })
      return true
    })
  }
}
