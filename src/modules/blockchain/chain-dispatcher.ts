import type { Hex } from 'viem'
import type { Clock } from '../../adapters/clock.js'
import { backoffDelayMs } from '../../shared/backoff.js'
import { PollLoop } from '../../shared/poll-loop.js'
import { ChainRevertError, type ChainClient, type ChainWrite } from '../../adapters/chain/chain-client.js'
import type { Database } from '../../db/database.js'
import { asBytes32, batchValue, didKey, schemaKey } from './chain-keys.js'
import * as repo from './chain-outbox.repository.js'
import { buildBatchTree } from './merkle.js'
import { batchRegistry, isV1Batch } from './merkle-v1.js'
import { createRegistryCheck } from './registry-check.js'

/**
 * Works the chain outbox (docs/blockchain.md "Outbox"): forms Merkle batches of queued
 * credential hashes, sends each due job's transaction, then follows it until its receipt.
 *
 * - Claims use FOR UPDATE SKIP LOCKED with a lease (as the callback outbox), so instances share
 *   the work and a crashed instance's claims come back.
 * - A chain that cannot be reached is retried with back-off, without limit: nothing is lost and
 *   nothing is given up while the chain is down. Only a revert (the contract refuses the call)
 *   counts towards `maxRevertAttempts`, after which the job is failed with the reason.
 * - A sent transaction whose receipt does not appear within `resendAfterMs` is sent again. Every
 *   registry write is idempotent, so a duplicate that is mined after all is a harmless no-op.
 * - Transactions of one instance go out one at a time (the account's nonce is sequential).
 */
export interface ChainDispatcherLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface ChainDispatcherOptions {
  db: Database
  client: ChainClient
  clock: Clock
  /** Poll interval when idle, the receipt polling interval and the first retry delay. */
  pollMs: number
  batchSize: number
  batchWaitMs: number
  backoffMaxMs?: number
  maxRevertAttempts?: number
  resendAfterMs?: number
  leaseMs?: number
  /** Jobs claimed per round. */
  claimLimit?: number
  logger?: ChainDispatcherLogger
}

const MAX_ERROR_LENGTH = 300

export class ChainDispatcher {
  private readonly loop: PollLoop
  private stopping = false
  private readonly backoffMaxMs: number
  private readonly maxRevertAttempts: number
  private readonly resendAfterMs: number
  private readonly leaseMs: number
  private readonly claimLimit: number
  private readonly registryTakesStandardTrees: () => Promise<boolean>

  constructor(private readonly options: ChainDispatcherOptions) {
    this.backoffMaxMs = options.backoffMaxMs ?? Math.max(options.pollMs, 5 * 60_000)
    this.maxRevertAttempts = options.maxRevertAttempts ?? 5
    this.resendAfterMs = options.resendAfterMs ?? 10 * 60_000
    this.leaseMs = options.leaseMs ?? 5 * 60_000
    this.claimLimit = options.claimLimit ?? 16
    this.registryTakesStandardTrees = createRegistryCheck(options.client, (registry) =>
      this.options.logger?.error(
        { registry },
        'BLOCKCHAIN_CREDENTIAL_REGISTRY is a version-1 registry: new batches wait until it is replaced (docs/blockchain.md "Upgrading a deployment")',
      ),
    )
    this.loop = new PollLoop(
      () => this.tick(),
      options.pollMs,
      (err) => this.options.logger?.warn({ err }, 'chain outbox round failed; retrying at the next poll'),
    )
  }

  get state(): { running: boolean } {
    return { running: this.loop.running }
  }

  start(): void {
    if (this.loop.running) return
    this.stopping = false
    this.loop.start()
  }

  async stop(): Promise<void> {
    this.stopping = true
    await this.loop.stop()
  }

  nudge(): void {
    this.loop.kick()
  }

  /** One full round now (tests drive the dispatcher with this instead of waiting for the poll). */
  async runOnce(): Promise<void> {
    await this.loop.idle()
    await this.tick()
  }

  private async tick(): Promise<void> {
    await this.formBatches()
    const now = this.options.clock.now()
    const claimed = await repo.claimDue(this.options.db, {
      now,
      leaseUntil: new Date(now.getTime() + this.leaseMs),
      limit: this.claimLimit,
    })
    let unavailable = false
    for (const job of claimed) {
      try {
        if (unavailable || this.stopping) {
          // The chain just failed (or we are stopping): hand the rest back instead of hammering it.
          await repo.reschedule(this.options.db, job, {
            next: new Date(now.getTime() + this.options.pollMs),
            uncount: job.status === 'pending',
          })
          continue
        }
        const outcome = job.status === 'sent' ? await this.followReceipt(job) : await this.send(job)
        unavailable = outcome === 'unavailable'
      } catch (err) {
        // Bookkeeping failed (database trouble): the lease runs out and the job is claimed again.
        this.options.logger?.warn(
          { err, job_id: job.id },
          'recording a chain job outcome failed; it is retried after its lease',
        )
      }
    }
    if (claimed.length === this.claimLimit && !unavailable) this.loop.runAgain()
  }

  /** Full batches go at once; a partial one when its oldest hash has waited batchWaitMs. */
  private async formBatches(): Promise<void> {
    const { db, clock, batchSize, batchWaitMs } = this.options
    for (let round = 0; round < 10; round++) {
      const { count, oldest } = await repo.unbatchedSummary(db)
      if (count === 0) return
      const now = clock.now()
      if (count < batchSize && oldest !== null && now.getTime() - oldest.getTime() < batchWaitMs) return
      const formed = await repo.formBatch(db, now, batchSize, (rows) =>
        buildBatchTree(rows.map((r) => batchValue(r.issuer_did, r.credential_hash))),
      )
      if (!formed) return
      this.options.logger?.info(
        { job_id: formed.jobId, size: formed.size, root: formed.root },
        'credential batch formed',
      )
    }
  }

  private async send(job: repo.ChainJob): Promise<'ok' | 'unavailable'> {
    const { db, client, clock } = this.options
    let call: ChainWrite | 'wait'
    try {
      call = await this.callFor(job)
    } catch (err) {
      await repo.markFailed(db, job, truncate(err instanceof Error ? err.message : 'unusable job'))
      return 'ok'
    }
    if (call === 'wait') {
      await repo.reschedule(db, job, { next: new Date(clock.now().getTime() + this.options.pollMs), uncount: true })
      return 'ok'
    }
    let txHash: Hex
    try {
      txHash = await client.write(call)
    } catch (err) {
      if (err instanceof ChainRevertError) {
        if (job.attempts >= this.maxRevertAttempts) {
          this.options.logger?.warn(
            { job_id: job.id, kind: job.kind, error: err.message },
            'chain job failed: the contract refused it',
          )
          await repo.markFailed(db, job, truncate(err.message))
        } else {
          await repo.reschedule(db, job, { next: this.retryAt(job.attempts), error: truncate(err.message) })
        }
        return 'ok'
      }
      await repo.reschedule(db, job, {
        next: this.retryAt(job.attempts),
        error: truncate(`chain unavailable: ${shortMessage(err)}`),
      })
      return 'unavailable'
    }
    const now = clock.now()
    await repo.markSent(db, job, { txHash, now, checkAt: now })
    // The receipt is looked at in the same round when the chain mines at once (dev chains).
    const sent = await repo.findJob(db, job.id)
    return sent?.status === 'sent' ? this.followReceipt(sent) : 'ok'
  }

  private async followReceipt(job: repo.ChainJob): Promise<'ok' | 'unavailable'> {
    const { db, client, clock } = this.options
    let receipt
    try {
      receipt = await client.receipt(job.tx_hash as Hex)
    } catch (err) {
      await repo.reschedule(db, job, {
        next: new Date(clock.now().getTime() + this.options.pollMs),
        error: truncate(`chain unavailable: ${shortMessage(err)}`),
      })
      return 'unavailable'
    }
    const now = clock.now()
    if (receipt === null) {
      const dropped = job.sent_at !== null && now.getTime() - job.sent_at.getTime() > this.resendAfterMs
      await repo.reschedule(db, job, {
        next: new Date(now.getTime() + this.options.pollMs),
        resend: dropped,
        ...(dropped ? { error: 'no receipt in time: sending again' } : {}),
      })
      return 'ok'
    }
    if (receipt.status === 'reverted') {
      // Simulated before sending, so a revert here means the state changed in between: send again.
      await repo.reschedule(db, job, {
        next: this.retryAt(job.attempts),
        resend: true,
        error: 'transaction reverted on chain',
      })
      return 'ok'
    }
    await repo.markMined(db, job, { now, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed })
    return 'ok'
  }

  /** The transaction of a job, or 'wait' while a job it depends on is not mined yet. */
  private async callFor(job: repo.ChainJob): Promise<ChainWrite | 'wait'> {
    const p = job.payload as Record<string, string>
    switch (job.kind) {
      case 'batch':
        if (!isV1Batch(job.payload) && !(await this.registryTakesStandardTrees())) return 'wait'
        return {
          fn: 'anchorBatch',
          registry: batchRegistry(this.options.client.contracts, job.payload),
          root: p.root as Hex,
          size: Number(job.payload.size),
        }
      case 'schema':
        return {
          fn: 'registerSchema',
          schemaId: schemaKey(p.schema_id!),
          issuer: didKey(p.issuer_did!),
          schemaHash: asBytes32(p.schema_hash!),
        }
      // One key's grants and revocations land in the order they were queued, whatever retries
      // delayed: a revocation mined after a later grant would leave the chain saying revoked.
      case 'consent-grant':
        if (await repo.earlierUnfinished(this.options.db, job, ['consent-grant', 'consent-revoke'])) return 'wait'
        return {
          fn: 'grantConsent',
          consentKey: p.consent_key as Hex,
          expiresAt: BigInt(job.payload.expires_at as number),
        }
      case 'consent-revoke':
        if (await repo.earlierUnfinished(this.options.db, job, ['consent-grant', 'consent-revoke'])) return 'wait'
        return { fn: 'revokeConsent', consentKey: p.consent_key as Hex }
      case 'credential-revoke': {
        const issuer = didKey(p.issuer_did!)
        const credentialHash = asBytes32(p.credential_hash!)
        const leaf = await repo.findLeaf(this.options.db, p.issuer_did!, p.credential_hash!)
        if (!leaf) return { fn: 'revokeCredential', issuer, credentialHash }
        // A batched credential is revoked with its inclusion proof, once its batch is on chain.
        if (!leaf.batch || leaf.batch.status !== 'mined') {
          if (leaf.batch?.status === 'failed') throw new Error('the batch of this credential failed to anchor')
          return 'wait'
        }
        const registry = batchRegistry(this.options.client.contracts, leaf.batch.payload)
        return {
          fn: 'revokeBatchedCredential',
          registry,
          issuer,
          credentialHash,
          root: leaf.batch.payload.root as Hex,
          proof: (leaf.proof ?? []) as Hex[],
        }
      }
    }
  }

  private retryAt(attempts: number): Date {
    return new Date(
      this.options.clock.now().getTime() +
        backoffDelayMs(attempts, { baseMs: this.options.pollMs, maxMs: this.backoffMaxMs }),
    )
  }
}

function shortMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'shortMessage' in err && typeof err.shortMessage === 'string')
    return err.shortMessage
  return err instanceof Error ? err.message.split('\n')[0]! : 'unknown error'
}

const truncate = (s: string) => s.slice(0, MAX_ERROR_LENGTH)
