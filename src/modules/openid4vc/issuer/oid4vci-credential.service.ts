import { randomBytes, randomUUID } from 'node:crypto'
import { decodeJwt, Oauth2ResourceServer, type Jwk, type JwtSignerWithJwk, type RequestLike } from '@openid4vc/oauth2'
import { Openid4vciIssuer } from '@openid4vc/openid4vci'
import type { Clock } from '../../../adapters/clock.js'
import type { Database } from '../../../db/database.js'
import { AppError } from '../../../errors.js'
import { didJwkFor } from '../../did/methods/registered-methods.js'
import type { IssuanceService, IssueGuard, IssueOptions } from '../../issuer/issuance.service.js'
import type { IssuedCredentialsService } from '../../issuer/issued-credentials.service.js'
import type { OfferService } from '../../issuer/offers.service.js'
import type { CredentialRequestService } from '../../issuer/requests.service.js'
import { MicroBatcher } from '../../../shared/micro-batcher.js'
import { recordActivity } from '../../wallet/wallet-activity.js'
import { carriesPrivateKey, issuerContext, sha256Hex, type ContextDeps, type IssuerContext } from './oid4vci-context.js'
import type { DpopFreshness } from './oid4vci-dpop.js'
import { attestedKeys, checkKeyAttestation } from './oid4vci-key-attestation.js'
import { encryptResponse, responseEncryptionOf } from './oid4vci-response-encryption.js'
import { withWalletTrust } from './oid4vci-wallet-trust.js'
import { fromLibrary, oid4vciError } from './oid4vci-errors.js'
import { firstLine } from '../shared/library-message.js'
import { BATCH_SIZE, DEFERRED_INTERVAL_S, parseConfigurationId, PROOF_ALGS } from './oid4vci-metadata.js'
import * as repo from './oid4vci.repository.js'

const NONCE_TTL_S = 300
/** Expired nonces are swept at most this often per instance, not on every nonce. */
const NONCE_SWEEP_MS = 10_000
/** How far a key proof's `iat` may be from now (OID4VCI 1.0 §8.2.1.1 leaves the window to the issuer). */
const PROOF_MAX_AGE_S = 300

export interface CredentialDeps extends ContextDeps {
  db: Database
  clock: Clock
  offers: OfferService
  issuance: IssuanceService
  issued: IssuedCredentialsService
  requests: CredentialRequestService
  dpop: DpopFreshness
}

interface Holder {
  did: string
  jwk: Jwk
}

const NOTIFICATION_EVENTS = {
  credential_accepted: 'credential_accepted',
  credential_failure: 'credential_failure',
  credential_deleted: 'credential_deleted',
} as const

/**
 * The nonce, credential, deferred credential and notification endpoints (OID4VCI 1.0 §7, §8, §9,
 * §11). A credential request spends its access token's grant once; its jwt key proofs must be
 * fresh, for this issuer, and carry one unspent c_nonce; each proof's key gets one copy
 * (batch), issued through the spec's IssuanceService so records, anchoring and activity are the same.
 */
export class Oid4vciCredentialService {
  private lastSweep = 0
  // Concurrent nonce requests share one INSERT (group commit, as the issue route's writer).
  private readonly nonces: MicroBatcher<repo.NonceRow, void>

  constructor(private readonly deps: CredentialDeps) {
    this.nonces = new MicroBatcher<repo.NonceRow, void>(async (rows) => {
      await repo.insertNonces(deps.db, rows)
      return rows.map(() => undefined)
    })
  }

  async nonce(webId: string): Promise<Record<string, unknown>> {
    const ctx = await issuerContext(this.deps, webId)
    const nonce = randomBytes(32).toString('base64url')
    const now = this.deps.clock.now()
    await this.nonces.submit({
      nonce_digest: sha256Hex(nonce),
      issuer_did: ctx.identity.did,
      expires_at: new Date(now.getTime() + NONCE_TTL_S * 1000),
    })
    // Expired nonces go as new ones come (an indexed range delete, every few seconds): the table
    // stays as small as the traffic of the last minutes.
    if (now.getTime() - this.lastSweep >= NONCE_SWEEP_MS || now.getTime() < this.lastSweep) {
      this.lastSweep = now.getTime()
      await repo.deleteExpiredNonces(this.deps.db, now)
    }
    return new Openid4vciIssuer({ callbacks: ctx.callbacks }).createNonceResponse({
      cNonce: nonce,
      cNonceExpiresIn: NONCE_TTL_S,
    })
  }

  /**
   * The credential request, its response encrypted to the wallet's key when it asks and the
   * issuer offers it (OID4VCI 1.0 §10): the encryption checked before anything is spent.
   */
  async credential(
    webId: string,
    body: Record<string, unknown>,
    request: RequestLike,
  ): Promise<{ status: 200 | 202; body: Record<string, unknown> } | { status: 200 | 202; jwe: string }> {
    // The library reads the draft form of this member; the service reads it itself (1.0 and the draft).
    const { credential_response_encryption: asked, ...plain } = body
    const encryption = responseEncryptionOf((await issuerContext(this.deps, webId)).policy, asked)
    const answer = await this.plainCredential(webId, plain, request)
    return encryption ? { status: answer.status, jwe: await encryptResponse(encryption, answer.body) } : answer
  }

  private async plainCredential(
    webId: string,
    body: Record<string, unknown>,
    request: RequestLike,
  ): Promise<{ status: 200 | 202; body: Record<string, unknown> }> {
    const kept = await issuerContext(this.deps, webId)
    // The grant, its OpenID4VCI offer and the spec offer in one read.
    const found = await repo.findGrantWithOffers(this.deps.db, await this.grantIdOf(kept, request))
    if (!found || found.grant.issuer_did !== kept.identity.did) {
      throw oid4vciError('invalid_token', 'The access token names no grant of this issuer')
    }
    const { grant, published, offer } = found
    // A context kept from before the grant's schema existed (made on another instance) is rebuilt
    // for the grant's configuration, never for one a request names: that would be a rebuild per request.
    const stale = published && !(published.configuration_id in kept.metadata.credential_configurations_supported)
    const ctx = stale ? await issuerContext(this.deps, webId, published.configuration_id) : kept
    if (grant.used_at) throw oid4vciError('invalid_token', 'This access token has been used for its credential request')
    // Key attestations (Appendix D) are verified against the wallet providers the issuer trusts.
    const library = new Openid4vciIssuer({
      callbacks: withWalletTrust(ctx.callbacks, ctx.policy.trusted_wallet_providers, () => this.deps.clock.now()),
    })
    // §8.3.1.2: a configuration the metadata does not list is its own error (the library's parse would call it malformed).
    const asked = body.credential_configuration_id
    if (typeof asked === 'string' && !(asked in ctx.metadata.credential_configurations_supported))
      throw oid4vciError('unknown_credential_configuration', `Unknown credential configuration "${asked}"`)
    let parsed
    try {
      parsed = library.parseCredentialRequest({ issuerMetadata: ctx.metadataResult, credentialRequest: body })
    } catch (error) {
      throw fromLibrary(error, 'invalid_credential_request')
    }
    const configurationId = parsed.credentialConfigurationId
    if (configurationId === undefined)
      throw oid4vciError('invalid_credential_request', 'credential_configuration_id is required')
    const configuration = parseConfigurationId(this.deps.formats, configurationId)
    if (!configuration || !(configurationId in ctx.metadata.credential_configurations_supported))
      throw oid4vciError('unknown_credential_configuration', `Unknown credential configuration "${configurationId}"`)
    if (!published || published.configuration_id !== configurationId)
      throw oid4vciError('invalid_credential_request', 'The access token does not cover this credential configuration')
    if (!offer) throw oid4vciError('invalid_token', 'The offer of this access token is gone')

    // Appendix F.3: an `attestation` proof is a key attestation naming every key to bind.
    const attested = parsed.proofs?.attestation ?? []
    const proofs = attested.length > 0 ? attested : (parsed.proofs?.jwt ?? [])
    if (proofs.length === 0) throw oid4vciError('invalid_proof', 'A jwt key proof is required (proofs.jwt)')
    if (proofs.length > (attested.length > 0 ? 1 : BATCH_SIZE))
      throw oid4vciError('invalid_credential_request', `At most ${BATCH_SIZE} proofs (batch_size), or one attestation`)
    const nonce = sharedNonce(proofs)
    const holders =
      attested.length > 0
        ? (await attestedKeys(library, ctx.metadataResult, attested[0]!, nonce, this.deps.clock.now())).map(holderOfJwk)
        : await this.verifyProofs(library, ctx, proofs, nonce, configuration.format)
    if (holders.length > BATCH_SIZE)
      throw oid4vciError('invalid_credential_request', `At most ${BATCH_SIZE} attested keys (batch_size)`)
    if (offer.subject_did && holders.some((h) => h.did !== offer.subject_did))
      throw oid4vciError(
        'invalid_proof',
        'The offer is addressed to another holder: the proof key must be its subject DID',
      )
    // Authorization code flow: the holder signed in with its DID, so the credentials are bound to that DID's keys.
    if (grant.holder_did && holders.some((h) => h.did !== grant.holder_did))
      throw oid4vciError('invalid_proof', 'The key proofs must be signed by a key of the DID that signed in')

    const spend = {
      grantId: grant.id,
      issuerDid: ctx.identity.did,
      nonceDigest: sha256Hex(nonce),
      now: this.deps.clock.now(),
    }
    if (published.requires_approval) {
      throwUnlessSpent(await repo.spendGrantAndNonce(this.deps.db, spend))
      try {
        return {
          status: 202,
          body: await this.defer(library, parsed, ctx, grant.id, offer, configuration.format, holders),
        }
      } catch (error) {
        await repo.releaseGrant(this.deps.db, grant.id)
        throw asDenied(error)
      }
    }

    // The first copy is stored in the transaction that spends the grant and the nonce and records
    // the copy against the grant: it fails as a whole (the request can be made again) or commits
    // as a whole (a crash after it leaves the credential recorded, never the grant spent for
    // nothing). That transaction is the issue route's group commit, shared with other requests.
    const notificationId = randomUUID()
    const guard: IssueGuard = async (trx, row) => {
      const outcome = await repo.spendGrantAndNonce(trx, spend, {
        holder_did: holders[0]!.did,
        credential_ids: [row.id],
        notification_id: notificationId,
      })
      return outcome === 'spent' ? undefined : refusal(outcome)
    }
    let first
    try {
      first = await this.issueTo(ctx, offer, configuration.format, holders[0]!, guard)
    } catch (error) {
      throw asDenied(error)
    }
    const settled = await Promise.allSettled(
      holders.slice(1).map((holder) => this.issueTo(ctx, offer, configuration.format, holder)),
    )
    const results = [first, ...settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))]
    if (results.length > 1)
      await repo.recordIssued(this.deps.db, grant.id, {
        holder_did: holders[0]!.did,
        credential_ids: results.map((r) => r.id),
        notification_id: notificationId,
      })
    const failed = settled.find((r) => r.status === 'rejected')
    // Some copies of a batch stored, one not: they stay recorded against the spent grant (a retry would issue them twice).
    if (failed) throw asDenied(failed.reason)
    const credentialResponse = library.createCredentialResponse({
      credentialRequest: parsed,
      credentials: results.map((r) => ({ credential: this.wireForm(configuration.format, r.jwt) })),
      notificationId,
    })
    return { status: 200, body: credentialResponse as Record<string, unknown> }
  }

  async deferred(
    webId: string,
    body: Record<string, unknown>,
    request: RequestLike,
  ): Promise<{ status: 200 | 202; body: Record<string, unknown> }> {
    const ctx = await issuerContext(this.deps, webId)
    const grant = await this.authorize(ctx, request)
    const library = new Openid4vciIssuer({ callbacks: ctx.callbacks })
    let transactionId
    try {
      transactionId = library.parseDeferredCredentialRequest({ deferredCredentialRequest: body })
        .deferredCredentialRequest.transaction_id
    } catch (error) {
      throw fromLibrary(error, 'invalid_credential_request')
    }
    const found = await repo.findGrantByTransaction(this.deps.db, ctx.identity.did, transactionId)
    if (!found || found.id !== grant.id || !found.request_id)
      throw oid4vciError('invalid_transaction_id', 'Unknown transaction_id, or already answered')
    const pending = await this.deps.requests.get(ctx.identity.did, found.request_id)
    if (pending.status === 'pending')
      return {
        status: 202,
        body: library.createDeferredCredentialResponse({ transactionId, interval: DEFERRED_INTERVAL_S }),
      }
    if (pending.status !== 'approved' || !pending.credential_id)
      throw oid4vciError(
        'credential_request_denied',
        `The issuer rejected the request${pending.reason ? `: ${pending.reason}` : ''}`,
      )
    const credential = await this.deps.issued.get(ctx.identity.did, pending.credential_id)
    if (!(await repo.deliverDeferred(this.deps.db, found.id, transactionId)))
      throw oid4vciError('invalid_transaction_id', 'The transaction was answered meanwhile')
    // The approval issued the first proof's copy; a batch's other keys get theirs now, with what was approved.
    const copies = await Promise.all(
      (found.holder_keys ?? []).slice(1).map((holder) =>
        this.deps.issuance.issue(
          ctx.identity.did,
          {
            credential_type: credential.credential_type,
            schema_id: credential.schema_id,
            subject_did: holder.did,
            attributes: credential.credential_data as Record<string, unknown>,
            ...(credential.format ? { format: credential.format } : {}),
            ...(credential.expiration_date ? { expiration_date: credential.expiration_date } : {}),
          },
          { steppedUp: true, holderJwk: holder.jwk },
        ),
      ),
    )
    await repo.recordDelivered(this.deps.db, found.id, [credential.id, ...copies.map((c) => c.id)])
    // No notification_id here: @openid4vc/openid4vci 0.4.6 refuses a deferred response that has
    // one beside its credentials (its check is inverted), so wallets built on it could not read it
    // (docs/decisions.md "OpenID4VCI (issue 24)").
    const format = credential.format ?? this.deps.formats.defaultId
    const credentials = [credential.jwt, ...copies.map((c) => c.jwt)].map((jwt) => ({
      credential: this.wireForm(format, jwt),
    }))
    return { status: 200, body: library.createDeferredCredentialResponse({ credentials }) }
  }

  async notification(webId: string, body: Record<string, unknown>, request: RequestLike): Promise<void> {
    const ctx = await issuerContext(this.deps, webId)
    const grant = await this.authorize(ctx, request)
    const { notification_id: id, event, event_description: description } = body
    if (
      typeof id !== 'string' ||
      typeof event !== 'string' ||
      !(event in NOTIFICATION_EVENTS) ||
      (description !== undefined && typeof description !== 'string')
    ) {
      throw oid4vciError(
        'invalid_notification_request',
        `notification_id and event (${Object.keys(NOTIFICATION_EVENTS).join(', ')}) are required`,
      )
    }
    const found = await repo.findGrantByNotification(this.deps.db, ctx.identity.did, id)
    if (!found || found.id !== grant.id || !found.holder_did)
      throw oid4vciError('invalid_notification_id', 'Unknown notification_id')
    const holderDid = found.holder_did
    // Each event is recorded once per grant: a repeated one is answered alike and writes nothing.
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.takeNotificationEvent(trx, found.id, event))) return
      await recordActivity(trx, {
        holder_did: holderDid,
        type: NOTIFICATION_EVENTS[event as keyof typeof NOTIFICATION_EVENTS],
        credential_id: found.credential_ids[0] ?? null,
        details: {
          source: 'openid4vci_notification',
          issuer_did: ctx.identity.did,
          credential_ids: found.credential_ids,
          ...(description ? { event_description: description.slice(0, 300) } : {}),
        },
        at: this.deps.clock.now(),
      })
    })
  }

  /** A stored credential as a credential response carries it, in its format's wire form. */
  private wireForm(formatId: string, stored: string): string | Record<string, unknown> {
    const wire = this.deps.formats.byId(formatId)?.oid4vci?.wireForm
    return wire ? wire(stored) : stored
  }

  /** The grant a resource request's access token (and DPoP proof) stands for (RFC 6750, RFC 9449). */
  private async authorize(ctx: IssuerContext, request: RequestLike): Promise<repo.GrantRow> {
    const grant = await repo.findGrant(this.deps.db, await this.grantIdOf(ctx, request))
    if (!grant || grant.issuer_did !== ctx.identity.did)
      throw oid4vciError('invalid_token', 'The access token names no grant of this issuer')
    return grant
  }

  /** The grant id (`sub`) of a resource request's verified access token. */
  private async grantIdOf(ctx: IssuerContext, request: RequestLike): Promise<string> {
    let verified
    try {
      verified = await new Oauth2ResourceServer({ callbacks: ctx.callbacks }).verifyResourceRequest({
        request,
        resourceServer: ctx.endpoints.issuer,
        authorizationServers: [ctx.authorizationServer],
        now: this.deps.clock.now(),
      })
    } catch (error) {
      throw fromLibrary(error, 'invalid_token')
    }
    // A DPoP-bound token: the library checked the proof's signature, key, htm, htu and ath; its
    // server nonce, age and single use are checked here (RFC 9449 §9, §4.3 check 11, §11.1).
    const jwt = request.headers.get('dpop')
    const jkt = verified.tokenPayload.cnf?.jkt
    if (verified.dpop && jwt && jkt)
      await this.deps.dpop.check(ctx.identity.web_id, { jwt, jkt }, 'resource', ctx.policy.dpop_nonce_required)
    const subject = verified.tokenPayload.sub
    if (typeof subject !== 'string')
      throw oid4vciError('invalid_token', 'The access token names no grant of this issuer')
    return subject
  }

  /** Each proof verified (signature, typ, aud, nonce, alg, fresh iat): the holder key and DID it proves. */
  private async verifyProofs(
    library: Openid4vciIssuer,
    ctx: IssuerContext,
    proofs: string[],
    nonce: string,
    format: string,
  ): Promise<Holder[]> {
    const now = this.deps.clock.now()
    const face = this.deps.formats.byId(format)?.oid4vci
    const holders: Holder[] = []
    for (const jwt of proofs) {
      let verified
      try {
        verified = await library.verifyCredentialRequestJwtProof({
          issuerMetadata: ctx.metadataResult,
          jwt,
          expectedNonce: nonce,
          now,
        })
      } catch (error) {
        throw oid4vciError('invalid_proof', `Key proof refused: ${firstLine(error)}`, error)
      }
      // OID4VCI 1.0 Appendix F.1: the header key is the public key to bind; its private part is nobody's to send.
      if (carriesPrivateKey(decodeJwt({ jwt }).header.jwk)) {
        throw oid4vciError('invalid_proof', "The key proof's jwk must be a public key: it carries private key members")
      }
      if (!PROOF_ALGS.includes(verified.signer.alg))
        throw oid4vciError('invalid_proof', `Key proofs are signed ${PROOF_ALGS.join(' or ')}`)
      // The format binds only some keys (an mdoc's device key is P-256): refused before anything is spent.
      if (face?.proofAlgs && !face.proofAlgs.includes(verified.signer.alg))
        throw oid4vciError(
          'invalid_proof',
          face.proofAlgsReason ?? `Key proofs for this credential are signed ${face.proofAlgs.join(' or ')}`,
        )
      if (Math.abs(now.getTime() / 1000 - verified.payload.iat) > PROOF_MAX_AGE_S)
        throw oid4vciError('invalid_proof', 'The key proof is not fresh (iat)')
      checkKeyAttestation(ctx.policy, verified.keyAttestation, nonce)
      holders.push(holderOf(verified.signer))
    }
    return holders
  }

  private async issueTo(
    ctx: IssuerContext,
    offer: NonNullable<Awaited<ReturnType<OfferService['find']>>>,
    format: string,
    holder: Holder,
    guard?: IssueOptions['guard'],
  ) {
    return this.deps.issuance.issue(
      ctx.identity.did,
      {
        credential_type: offer.credential_type,
        schema_id: offer.schema_id,
        ...(offer.template_id ? { template_id: offer.template_id } : {}),
        subject_did: holder.did,
        attributes: offer.attributes,
        format,
      },
      // The issuer authorized this issuance when it created the offer.
      { steppedUp: true, holderJwk: holder.jwk as Record<string, unknown>, ...(guard ? { guard } : {}) },
    )
  }

  /** A spec credential request the issuer approves with its existing route; the wallet polls the deferred endpoint. */
  private async defer(
    library: Openid4vciIssuer,
    parsed: Parameters<Openid4vciIssuer['createCredentialResponse']>[0]['credentialRequest'],
    ctx: IssuerContext,
    grantId: string,
    offer: NonNullable<Awaited<ReturnType<OfferService['find']>>>,
    format: string,
    holders: Holder[],
  ) {
    const created = await this.deps.requests.create(holders[0]!.did, {
      issuer_did: ctx.identity.did,
      schema_id: offer.schema_id,
      credential_type: offer.credential_type,
      attributes: offer.attributes,
      format,
      message: `OpenID4VCI deferred issuance of offer ${offer.id}`,
    })
    const transactionId = randomUUID()
    await repo.recordDeferred(this.deps.db, grantId, {
      holder_did: holders[0]!.did,
      transaction_id: transactionId,
      request_id: created.id,
      holder_keys: holders.map((h) => ({ did: h.did, jwk: h.jwk as Record<string, unknown> })),
    })
    return library.createCredentialResponse({
      credentialRequest: parsed,
      transactionId,
      interval: DEFERRED_INTERVAL_S,
    }) as Record<string, unknown>
  }
}

/** What the issuance refused (a 4xx of the service without an OAuth code) as the protocol's credential_request_denied. */
function asDenied(error: unknown): unknown {
  if (
    !(error instanceof AppError) ||
    error.details?.oauth_error !== undefined ||
    ['INTERNAL', 'DEPENDENCY_UNAVAILABLE'].includes(error.code)
  )
    return error
  return oid4vciError('credential_request_denied', error.message, error)
}

/** Why the grant and nonce could not be spent, as the protocol's error. */
function refusal(outcome: 'grant used' | 'nonce refused'): AppError {
  return outcome === 'grant used'
    ? oid4vciError('invalid_token', 'This access token has been used for its credential request, or has expired')
    : oid4vciError('invalid_nonce', 'The c_nonce is unknown, spent or expired: get a fresh one from the nonce endpoint')
}

function throwUnlessSpent(outcome: Awaited<ReturnType<typeof repo.spendGrantAndNonce>>): void {
  if (outcome !== 'spent') throw refusal(outcome)
}

/** All proofs of one request carry the one c_nonce the nonce endpoint gave. */
function sharedNonce(proofs: string[]): string {
  const nonces = new Set(
    proofs.map((jwt) => {
      try {
        return decodeJwt({ jwt }).payload.nonce
      } catch (error) {
        throw oid4vciError('invalid_proof', `Key proof unreadable: ${firstLine(error)}`, error)
      }
    }),
  )
  const [nonce] = nonces
  if (nonces.size !== 1 || typeof nonce !== 'string')
    throw oid4vciError(
      'invalid_nonce',
      'Each key proof must carry the c_nonce of the nonce endpoint (one nonce per request)',
    )
  return nonce
}

/** The holder DID a proof key stands for: the `kid` DID, or the did:jwk of a `jwk`. */
function holderOf(signer: JwtSignerWithJwk): Holder {
  if (signer.method === 'did') return { did: signer.didUrl.split('#')[0]!, jwk: signer.publicJwk }
  return holderOfJwk(signer.publicJwk)
}

function holderOfJwk(publicJwk: Jwk): Holder {
  const { kid: _kid, alg: _alg, use: _use, key_ops: _ops, ...jwk } = publicJwk
  return { did: didJwkFor(jwk), jwk }
}
