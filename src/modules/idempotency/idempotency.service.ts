import type { Clock } from '../../adapters/clock.js'
import type { SecretBox } from '../../crypto/secret-box.js'
import type { Database, DB, Executor } from '../../db/database.js'
import type { Transaction } from 'kysely'
import { ConflictError, UnprocessableError } from '../../errors.js'
import { claimKey, deleteExpiredKeys, findKey, type KeyScope } from './idempotency.repository.js'
import { parseIdempotencyKey, requestFingerprint } from './idempotency-key.js'

/**
 * Records the key for the resource `resourceId`, inside the transaction that creates it; an Error
 * when the key is taken. `secret` is what the answer shows once and the service keeps nowhere
 * else (a tx_code, a client secret): it is sealed with the key so that a replay can show it again.
 */
export type ClaimKey = (trx: Transaction<DB>, resourceId: string, secret?: unknown) => Promise<Error | undefined>

/** Rebuilds the first answer from the resource it created (and the secret its claim sealed). */
export type Replay<T> = (resourceId: string, secret: unknown) => Promise<T>

export interface KeyedRequest {
  callerDid: string
  method: string
  /** The request's path: keys are scoped to it as well as to the caller. */
  path: string
  header: string | string[] | undefined
  body: unknown
}

/** The key was recorded meanwhile by another request (another instance, or a crash's survivor). */
class KeyTaken extends Error {}

/**
 * Idempotency-Key on creating POSTs (draft-ietf-httpapi-idempotency-key-header, docs/idempotency.md).
 * The record is written by the transaction that creates the resource, so a response either
 * exists with its record or not at all: a retry after a crash anywhere answers the one resource.
 * A failed request writes nothing and can be retried with its key.
 */
export class IdempotencyService {
  // Requests of this instance in progress, by key: a duplicate meanwhile answers 409 (draft §2.6).
  // Another instance's duplicate is not seen here; its claim waits on ours in the database and
  // then answers the first result.
  private readonly inFlight = new Set<string>()

  constructor(private readonly deps: { db: Database; clock: Clock; ttlSeconds: number; box: SecretBox }) {}

  /**
   * Runs `create` once per key: `create` gets the claim to run in its transaction and answers
   * the body; a repeat answers `replay(resourceId)` of the first. Without a key, `create` runs as is.
   */
  async run<T>(
    request: KeyedRequest,
    create: (claim: ClaimKey | undefined) => Promise<T>,
    replay: Replay<T>,
  ): Promise<{ body: T; replayed: boolean }> {
    const key = parseIdempotencyKey(request.header)
    if (key === undefined) return { body: await create(undefined), replayed: false }
    const route = `${request.method} ${request.path}`
    const scope: KeyScope = { caller_did: request.callerDid, route, key }
    const fingerprint = requestFingerprint(request.method, request.path, request.body)

    const recorded = await this.answerRecorded(scope, fingerprint, replay)
    if (recorded) return recorded
    const slot = JSON.stringify([scope.caller_did, route, key])
    if (this.inFlight.has(slot))
      throw new ConflictError(
        'A request with this Idempotency-Key is still being processed; retry once it has answered',
        { details: { header: 'Idempotency-Key', retry_after_seconds: 1 } },
      )
    this.inFlight.add(slot)
    try {
      const claim: ClaimKey = async (trx, resourceId, secret) => {
        const now = this.deps.clock.now()
        const expires = new Date(now.getTime() + this.deps.ttlSeconds * 1000)
        const sealed =
          secret === undefined
            ? null
            : this.deps.box.seal(Buffer.from(JSON.stringify(secret), 'utf8'), sealedFor(scope, resourceId))
        const claimed = await claimKey(trx, {
          ...scope,
          fingerprint,
          resource_id: resourceId,
          sealed_secret: sealed,
          created_at: now,
          expires_at: expires,
        })
        return claimed ? undefined : new KeyTaken()
      }
      try {
        return { body: await create(claim), replayed: false }
      } catch (error) {
        if (!(error instanceof KeyTaken)) throw error
        const first = await this.answerRecorded(scope, fingerprint, replay)
        if (first) return first
        // Claimed and then expired between the two reads: a key older than its lifetime.
        throw new ConflictError('This Idempotency-Key was used meanwhile; retry', {
          details: { header: 'Idempotency-Key' },
        })
      }
    } finally {
      this.inFlight.delete(slot)
    }
  }

  /** Expired records, a bounded batch per call (the app's minute sweep). */
  sweep(limit: number): Promise<number> {
    return deleteExpiredKeys(this.deps.db, this.deps.clock.now(), limit)
  }

  private async answerRecorded<T>(scope: KeyScope, fingerprint: string, replay: Replay<T>) {
    const record = await findKey(this.deps.db, scope, this.deps.clock.now())
    if (!record) return undefined
    if (record.fingerprint !== fingerprint) {
      throw new UnprocessableError(
        'This Idempotency-Key was already used with another request; use a new key for a new request',
        { details: { header: 'Idempotency-Key' } },
      )
    }
    const secret = record.sealed_secret
      ? (JSON.parse(
          Buffer.from(this.deps.box.open(record.sealed_secret, sealedFor(scope, record.resource_id))).toString('utf8'),
        ) as unknown)
      : undefined
    return { body: await replay(record.resource_id, secret), replayed: true }
  }
}

// Binds a sealed secret to its key and resource, so a row's secret cannot be moved to another row.
function sealedFor(scope: KeyScope, resourceId: string): string {
  return JSON.stringify([scope.caller_did, scope.route, scope.key, resourceId])
}

/** Records the key (when there is one) in `trx`, throwing its refusal so that the transaction rolls back. */
export async function claimIn(
  trx: Transaction<DB>,
  claim: ClaimKey | undefined,
  resourceId: string,
  secret?: unknown,
): Promise<void> {
  const refused = await claim?.(trx, resourceId, secret)
  if (refused) throw refused
}

/**
 * Runs a create that needs no transaction of its own (often one statement) with the claim: in
 * one transaction when there is a claim, so the resource and its key commit together, as is otherwise.
 */
export async function withClaim<R>(
  db: Database,
  claim: ClaimKey | undefined,
  resourceId: string,
  create: (executor: Executor) => Promise<R>,
  secret?: unknown,
): Promise<R> {
  if (!claim) return create(db)
  return db.transaction().execute(async (trx) => {
    await claimIn(trx, claim, resourceId, secret)
    return create(trx)
  })
}
