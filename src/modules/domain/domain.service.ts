import { randomBytes, randomUUID } from 'node:crypto'
import { JSON_LIMITS, nestingPastLimit } from '../../json-limits.js'
import type { Clock } from '../../adapters/clock.js'
import type { DnsResolver } from '../../adapters/dns.js'
import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import type { Database } from '../../db/database.js'
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js'
import type { DidResolver } from '../did/did-resolver.js'
import { normalizeDid } from '../did/did-normalize.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import { verifyDidConfiguration } from './domain-linkage.js'
import { normalizeDomain, proofLocations } from './domain-name.js'
import { checkDnsTxtToken, checkWellKnownToken, fetchProofDocument, proofFailure } from './domain-proofs.js'
import * as repo from './domain.repository.js'
import type { DomainProofMethod } from './domain.table.js'

/** DNS changes can take hours to propagate: a day to publish and verify. */
export const DEFAULT_CHALLENGE_TTL_SECONDS = 24 * 3600
/** Domains one DID may track; bounds the rows and outgoing checks one account can cause. */
export const MAX_DOMAINS_PER_DID = 100
const DID_CONFIGURATION_MAX_BYTES = 256 * 1024

export interface DomainServiceDeps {
  db: Database
  clock: Clock
  httpGet: HttpGet
  dns: DnsResolver
  resolver: DidResolver
  /** Cap on a DNS lookup (HTTP fetches carry their own, in the HttpGet). */
  timeoutMs: number
  challengeTtlSeconds?: number
}

export interface ChallengeView {
  challenge: repo.DomainChallengeRow
  locations: ReturnType<typeof proofLocations>
}

/**
 * Domain ownership for issuers and verifiers (DESIGN.md "Domains", docs/domains.md): a DID gets
 * a challenge token for a domain, publishes it (HTTPS well-known file or DNS TXT record) or
 * publishes a DIF DID configuration, and asks for the check. The outcome is kept per DID and
 * domain. Outgoing I/O happens outside any transaction; only the final write is one.
 */
export class DomainService {
  private readonly ttlMs: number

  constructor(private readonly deps: DomainServiceDeps) {
    this.ttlMs = (deps.challengeTtlSeconds ?? DEFAULT_CHALLENGE_TTL_SECONDS) * 1000
  }

  /**
   * A new challenge replaces the domain's earlier one (whose token stops working), so a retry
   * would void the answer the client may have acted on: `claim`, an Idempotency-Key, is recorded
   * with the challenge so that a retry answers it instead.
   */
  async createChallenge(
    callerDid: string,
    input: { did: string; domain: string },
    claim?: ClaimKey,
  ): Promise<ChallengeView> {
    const did = actingDid(callerDid, input.did)
    const domain = normalizeDomain(input.domain)
    const now = this.deps.clock.now()
    const id = `domch-${randomUUID()}`
    const challenge = await this.deps.db.transaction().execute(async (trx) => {
      await claimIn(trx, claim, id)
      await this.checkCapacity(trx, did, domain)
      await repo.ensurePending(trx, did, domain, now)
      return repo.replaceChallenge(trx, {
        id,
        did,
        domain,
        // 256 bits from the CSPRNG: unguessable, so only who can publish on the domain can answer.
        token: randomBytes(32).toString('base64url'),
        created_at: now,
        expires_at: new Date(now.getTime() + this.ttlMs),
        used_at: null,
      })
    })
    return { challenge, locations: proofLocations(domain) }
  }

  /** The caller's challenge as its creation answered it (an Idempotency-Key replay); 404 once a newer one replaced it. */
  async challenge(callerDid: string, id: string): Promise<ChallengeView> {
    const found = await repo.findChallenge(this.deps.db, id)
    if (!found || found.did !== callerDid)
      throw new NotFoundError(
        'The domain challenge this Idempotency-Key created no longer exists (a newer challenge for the domain replaced it)',
      )
    return { challenge: found, locations: proofLocations(found.domain) }
  }

  async verify(
    callerDid: string,
    input: { did: string; domain: string; method: DomainProofMethod; challenge_id?: string },
  ): Promise<repo.DomainVerificationRow> {
    const did = actingDid(callerDid, input.did)
    const domain = normalizeDomain(input.domain)
    const locations = proofLocations(domain)
    const { method } = input
    if (method === 'did_configuration') {
      if (input.challenge_id !== undefined) {
        throw new ValidationError(
          'challenge_id applies to the well_known and dns_txt methods only: a DID configuration needs no challenge',
          { details: { field: 'challenge_id' } },
        )
      }
      const linkage = await this.recordingFailure(did, domain, () => this.checkDidConfiguration(did, locations))
      return this.deps.db.transaction().execute(async (trx) => {
        await this.checkCapacity(trx, did, domain)
        return repo.recordVerified(trx, {
          did,
          domain,
          method,
          now: this.deps.clock.now(),
          validUntil: linkage.expiresAt,
        })
      })
    }

    const challenge = await this.openChallenge(did, domain, input.challenge_id)
    await this.recordingFailure(did, domain, () =>
      method === 'well_known'
        ? checkWellKnownToken({
            httpGet: this.deps.httpGet,
            domain,
            url: locations.wellKnownUrl,
            token: challenge.token,
          })
        : checkDnsTxtToken({
            dns: this.deps.dns,
            name: locations.txtName,
            token: challenge.token,
            timeoutMs: this.deps.timeoutMs,
          }),
    )
    return this.deps.db.transaction().execute(async (trx) => {
      const now = this.deps.clock.now()
      // Single use, also under concurrency: only one verification can spend the challenge.
      if (!(await repo.consumeChallenge(trx, challenge.id, now))) {
        const current = await repo.findChallenge(trx, challenge.id)
        throw challengeClosed(current ?? challenge, now)
      }
      return repo.recordVerified(trx, { did, domain, method, now, validUntil: null })
    })
  }

  /** Every domain record of the DID (optionally one domain), with its current challenge. */
  async status(
    did: string,
    domainFilter?: string,
  ): Promise<Array<{ record: repo.DomainVerificationRow; challenge: repo.DomainChallengeRow | undefined }>> {
    const domain = domainFilter === undefined ? undefined : normalizeDomain(domainFilter)
    const [records, challenges] = await Promise.all([
      repo.listVerifications(this.deps.db, did, domain),
      repo.challengesOf(this.deps.db, did),
    ])
    const byDomain = new Map(challenges.map((c) => [c.domain, c]))
    return records.map((record) => ({ record, challenge: byDomain.get(record.domain) }))
  }

  /** A verification whose proof has a lifetime reads as expired past it. */
  effectiveStatus(record: repo.DomainVerificationRow): 'pending' | 'verified' | 'failed' | 'expired' {
    if (
      record.status === 'verified' &&
      record.valid_until !== null &&
      new Date(record.valid_until).getTime() <= this.deps.clock.now().getTime()
    )
      return 'expired'
    return record.status
  }

  challengeState(challenge: repo.DomainChallengeRow): 'open' | 'used' | 'expired' {
    if (challenge.used_at !== null) return 'used'
    return new Date(challenge.expires_at).getTime() <= this.deps.clock.now().getTime() ? 'expired' : 'open'
  }

  private async openChallenge(
    did: string,
    domain: string,
    challengeId: string | undefined,
  ): Promise<repo.DomainChallengeRow> {
    const found =
      challengeId === undefined
        ? await repo.latestChallenge(this.deps.db, did, domain)
        : await repo.findChallenge(this.deps.db, challengeId)
    // Another DID's challenge is as unknown as a missing one (DESIGN.md "Ownership").
    if (!found || found.did !== did) {
      throw new NotFoundError(
        challengeId === undefined
          ? `No challenge for ${domain}: request one with POST /api/domain/challenge`
          : 'Domain challenge not found',
      )
    }
    if (found.domain !== domain)
      throw new ValidationError(`challenge_id is a challenge for ${found.domain}, not ${domain}`, {
        details: { field: 'challenge_id' },
      })
    const now = this.deps.clock.now()
    if (found.used_at !== null || new Date(found.expires_at).getTime() <= now.getTime())
      throw challengeClosed(found, now)
    return found
  }

  private async checkDidConfiguration(did: string, locations: ReturnType<typeof proofLocations>) {
    const url = locations.didConfigurationUrl
    const response = await fetchProofDocument({
      httpGet: this.deps.httpGet,
      method: 'did_configuration',
      domain: locations.origin.slice('https://'.length),
      url,
      accept: 'application/json',
      maxBytes: DID_CONFIGURATION_MAX_BYTES,
    })
    let document: unknown
    let text: string
    try {
      text = new TextDecoder().decode(response.body)
      document = JSON.parse(text)
    } catch {
      throw proofFailure('did_configuration', 'invalid_configuration', `${url} is not JSON`)
    }
    if (nestingPastLimit(text, JSON_LIMITS.documentDepth))
      throw proofFailure(
        'did_configuration',
        'invalid_configuration',
        `${url} nests deeper than ${JSON_LIMITS.documentDepth} levels`,
      )
    return verifyDidConfiguration({
      resolver: this.deps.resolver,
      document,
      did,
      origin: locations.origin,
      url,
      now: this.deps.clock.now(),
    })
  }

  /** Runs a check; a failure is written to the domain record (last_error) before it propagates. */
  private async recordingFailure<T>(did: string, domain: string, check: () => Promise<T>): Promise<T> {
    try {
      return await check()
    } catch (error) {
      if (error instanceof AppError) {
        await repo.recordFailure(this.deps.db, { did, domain, now: this.deps.clock.now(), error: error.message })
      }
      throw error
    }
  }

  private async checkCapacity(
    db: Parameters<typeof repo.findVerification>[0],
    did: string,
    domain: string,
  ): Promise<void> {
    if (await repo.findVerification(db, did, domain)) return
    if ((await repo.countVerifications(db, did)) >= MAX_DOMAINS_PER_DID) {
      throw new ConflictError(`A DID can track at most ${MAX_DOMAINS_PER_DID} domains`)
    }
  }
}

/** The body's DID must be the token's (DESIGN.md "Ownership": 403 otherwise). */
function actingDid(callerDid: string, bodyDid: string): string {
  if (normalizeDid(bodyDid) !== callerDid) throw new ForbiddenError('did is not the authenticated DID')
  return callerDid
}

/**
 * A spent or expired challenge cannot be verified again: an invalid state transition (409). Not
 * 401 as for login challenges: the caller's session is fine, only this challenge is closed.
 */
function challengeClosed(challenge: repo.DomainChallengeRow, now: Date): ConflictError {
  if (challenge.used_at !== null) {
    return new ConflictError(
      'This domain challenge was already used: request a new one with POST /api/domain/challenge',
      { details: { reason: 'challenge_used' } },
    )
  }
  const expired = new Date(challenge.expires_at)
  return new ConflictError(
    `This domain challenge expired at ${expired.toISOString()} (now ${now.toISOString()}): request a new one`,
    {
      details: { reason: 'challenge_expired' },
    },
  )
}
