import { createPrivateKey, randomUUID, type JsonWebKey } from 'node:crypto'
import type { Jwk, RequestDpopOptions } from '@openid4vc/oauth2'
import { Openid4vciClient, type CredentialOfferObject, type IssuerMetadataResult } from '@openid4vc/openid4vci'
import * as jose from 'jose'
import type { Clock } from '../../../adapters/clock.js'
import { JWS_ALGORITHMS } from '../../../crypto/jws.js'
import { isP256Point } from '../../../crypto/p256.js'
import type { SecretBox } from '../../../crypto/secret-box.js'
import type { Database } from '../../../db/database.js'
import { ConflictError, NotFoundError, UnprocessableError, ValidationError } from '../../../errors.js'
import type { DidResolver } from '../../did/did-resolver.js'
import { withClaim, type ClaimKey } from '../../idempotency/idempotency.service.js'
import { serviceCallbacks } from '../shared/oid4vc-callbacks.js'
import type { WalletCredentialService } from '../../wallet/wallet-credentials.service.js'
import type { WalletCredentialRow } from '../../wallet/wallet-credentials.service.js'
import { capturingSigner, checkHolderJws, holderSigningKey, type PreparedJws } from './prepared-jws.js'
import * as sessions from './protocol-sessions.repository.js'
import { protocolStep } from './protocol-step.js'
import { describeOffer } from './offer-preview.service.js'
import { offerText } from './offer-uri.js'
import { recordActivity } from '../../wallet/wallet-activity.js'

const SESSION_TTL_MS = 5 * 60_000
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'

export interface AcceptInput {
  offer_uri: string
  tx_code?: string
  credential_configuration_id?: string
  /** The issuer the holder approved in the preview: an offer by reference is fetched again, and may answer otherwise. */
  credential_issuer?: string
  /** A P-256 public key the holder keeps, to bind the credential to instead of its DID. */
  device_key?: { kty: 'EC'; crv: 'P-256'; x: string; y: string }
}

/** What the holder signs to finish accepting an offer: the OpenID4VCI key proof (§F.1), prepared. */
export interface PreparedAcceptance {
  session_id: string
  credential_issuer: string
  credential_configuration_id: string
  format: string
  proof: PreparedJws
  expires_at: Date
}

export type AcceptanceOutcome =
  | { status: 'issued'; credentials: WalletCredentialRow[] }
  | { status: 'pending'; interval: number | undefined }

/** What an Idempotency-Key of a completion records: the credentials it stored, or the issuer's deferral. */
type CompletionRecord = { credentials: string[] } | { pending: string; interval: number | null }

interface SessionState {
  offer: CredentialOfferObject
  metadata: IssuerMetadataResult
  configurationId: string
  format: string
  proof: PreparedJws
  transactionId?: string
}

interface SessionSecrets {
  accessToken: string
  dpop?: { privateJwk: Jwk; publicJwk: Jwk; nonce?: string }
}

/**
 * The hosted wallet as an OpenID4VCI 1.0 wallet (docs/openid4vc.md "The hosted wallet"): it
 * accepts a credential offer from any issuer, this service or another. The service runs the
 * protocol with @openid4vc/openid4vci (offer, metadata, pre-authorized code token with tx_code
 * and DPoP, nonce); the key proof is signed by the holder's own DID key, which the service never
 * holds: `prepare` answers the proof's signing input, `complete` sends the signed proof, verifies
 * what comes back exactly as an import, and keeps it in the holder's wallet.
 */
export class OfferAcceptanceService {
  constructor(
    private readonly deps: {
      db: Database
      wallet: WalletCredentialService
      resolver: DidResolver
      /** The guarded fetch (SSRF checks, size cap, deadline): offers name any URL. */
      fetch: typeof fetch
      box: SecretBox
      clock: Clock
    },
  ) {}

  /** Starts the exchange; `claim` (an Idempotency-Key) commits with the session. */
  async prepare(holderDid: string, input: AcceptInput, claim?: ClaimKey): Promise<PreparedAcceptance> {
    const dpopKey = await jose.generateKeyPair('ES256', { extractable: true })
    const dpopPrivate = (await jose.exportJWK(dpopKey.privateKey)) as Jwk
    const dpopPublic = (await jose.exportJWK(dpopKey.publicKey)) as Jwk
    const client = this.client(dpopPrivate)
    const uri = offerText(input.offer_uri)
    const offer = await protocolStep('reading the credential offer', 'offer_uri', () =>
      client.resolveCredentialOffer(uri),
    )
    if (input.credential_issuer !== undefined && input.credential_issuer !== offer.credential_issuer) {
      throw new ConflictError(
        `The offer now names the issuer ${offer.credential_issuer}, not ${input.credential_issuer} that was previewed: look at it again before accepting`,
      )
    }
    const metadata = await protocolStep('reading the issuer metadata', 'offer_uri', () =>
      client.resolveIssuerMetadata(offer.credential_issuer),
    )
    const configurationId = input.credential_configuration_id ?? offer.credential_configuration_ids[0]!
    if (!offer.credential_configuration_ids.includes(configurationId)) {
      throw new ValidationError(
        `credential_configuration_id "${configurationId}" is not in the offer (${offer.credential_configuration_ids.join(', ')})`,
        { details: { field: 'credential_configuration_id' } },
      )
    }
    const configuration = metadata.credentialIssuer.credential_configurations_supported[configurationId]
    if (!configuration)
      throw new UnprocessableError(`The issuer's metadata has no credential configuration "${configurationId}"`)
    const grant = offer.grants?.[PRE_AUTHORIZED]
    if (!grant)
      throw new UnprocessableError(
        'The offer has no pre-authorized code: the authorization code flow needs a browser, which the hosted wallet has not',
      )
    if (grant.tx_code && input.tx_code === undefined)
      throw new ValidationError('The offer asks for a transaction code: send it as tx_code', {
        details: { field: 'tx_code', tx_code: grant.tx_code },
      })

    const algs = proofAlgs(configuration)
    const binding = configuration.cryptographic_binding_methods_supported ?? []
    const key = input.device_key
      ? deviceKeySigner(input.device_key, algs, binding)
      : await holderSigningKey(this.deps.resolver, holderDid, algs)
    if (!key)
      throw new UnprocessableError(
        `The holder's DID has no authentication key for ${algs.join(' or ')}, which the issuer accepts for key proofs: give a device_key`,
        { details: { field: 'device_key' } },
      )

    const dpopAlgs = metadata.authorizationServers[0]?.dpop_signing_alg_values_supported
    const dpop: RequestDpopOptions | undefined = dpopAlgs?.includes('ES256')
      ? { signer: { method: 'jwk', alg: 'ES256', publicJwk: dpopPublic } }
      : undefined
    const token = await protocolStep('obtaining an access token', 'offer_uri', () =>
      client.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer: offer,
        issuerMetadata: metadata,
        txCode: input.tx_code,
        ...(dpop ? { dpop } : {}),
      }),
    )
    const nonce = metadata.credentialIssuer.nonce_endpoint
      ? (await protocolStep('obtaining a nonce', 'offer_uri', () => client.requestNonce({ issuerMetadata: metadata })))
          .c_nonce
      : (token.accessTokenResponse.c_nonce as string | undefined)

    // The issuer binds the credential to the DID when it accepts DIDs, else to the bare key; a device key is always bare.
    const byDid =
      !input.device_key &&
      (binding.length === 0 || binding.some((m) => m === 'did' || m.startsWith(`did:${holderDid.split(':')[1]}`)))
    const capture = capturingSigner()
    const capturingClient = new Openid4vciClient({
      callbacks: { ...this.callbacks(dpopPrivate), signJwt: capture.signJwt },
    })
    await capturingClient.createCredentialRequestJwtProof({
      issuerMetadata: metadata,
      credentialConfigurationId: configurationId,
      signer: byDid
        ? { method: 'did', didUrl: key.kid, alg: key.alg }
        : { method: 'jwk', publicJwk: key.jwk, alg: key.alg },
      nonce,
      issuedAt: this.deps.clock.now(),
    })
    const proof = capture.prepared()

    const id = `wps-${randomUUID()}`
    const expiresAt = new Date(this.deps.clock.now().getTime() + SESSION_TTL_MS)
    const state: SessionState = { offer, metadata, configurationId, format: configuration.format, proof }
    const secrets: SessionSecrets = {
      accessToken: token.accessTokenResponse.access_token,
      ...(dpop ? { dpop: { privateJwk: dpopPrivate, publicJwk: dpopPublic, nonce: token.dpop?.nonce } } : {}),
    }
    await withClaim(this.deps.db, claim, id, (executor) =>
      sessions.insertSession(executor, {
        id,
        holder_did: holderDid,
        kind: 'oid4vci',
        status: 'prepared',
        state: JSON.stringify(state),
        sealed: this.deps.box.seal(Buffer.from(JSON.stringify(secrets)), id),
        expires_at: expiresAt,
      }),
    )
    return prepared(id, state, expiresAt)
  }

  /** The answer of `prepare`, rebuilt from its session (an Idempotency-Key replay). */
  async replayPrepare(holderDid: string, sessionId: string): Promise<PreparedAcceptance> {
    const row = await sessions.findSession(this.deps.db, holderDid, sessionId)
    if (!row || row.kind !== 'oid4vci')
      throw new NotFoundError('The offer acceptance this Idempotency-Key started has expired')
    return prepared(row.id, JSON.parse(row.state) as SessionState, new Date(row.expires_at))
  }

  /** The answer of `complete`, rebuilt from what it stored (an Idempotency-Key replay). */
  async replayComplete(holderDid: string, resourceId: string): Promise<AcceptanceOutcome> {
    const record = JSON.parse(resourceId) as CompletionRecord
    if ('pending' in record) return { status: 'pending', interval: record.interval ?? undefined }
    return {
      status: 'issued',
      credentials: await Promise.all(record.credentials.map((id) => this.deps.wallet.get(holderDid, id))),
    }
  }

  /**
   * Sends the holder's signed proof once (a second completion of the same session is a 404), or,
   * for an issuance the issuer deferred, asks its deferred endpoint again. `claim` (an
   * Idempotency-Key) commits with the deferral's session update or with the wallet's import of
   * the (last) credential, under what a replay answers from.
   */
  async complete(
    holderDid: string,
    sessionId: string,
    input: { proof_jwt?: string },
    claim?: ClaimKey,
  ): Promise<AcceptanceOutcome> {
    const now = this.deps.clock.now()
    const existing = await sessions.findSession(this.deps.db, holderDid, sessionId)
    if (!existing || existing.kind !== 'oid4vci') throw new NotFoundError('Offer acceptance not found')
    const state = JSON.parse(existing.state) as SessionState
    if (existing.status === 'prepared') {
      if (input.proof_jwt === undefined)
        throw new ValidationError('proof_jwt is required: the holder signs the prepared proof', {
          details: { field: 'proof_jwt' },
        })
      await checkHolderJws(this.deps.resolver, holderDid, state.proof, input.proof_jwt, 'proof_jwt')
    }
    const from = existing.status === 'pending' ? 'pending' : 'prepared'
    const taken = await sessions.takeSession(this.deps.db, holderDid, sessionId, 'oid4vci', from, 'sent', now)
    if (!taken) throw new NotFoundError('Offer acceptance not found, expired or already completed')
    const secrets = JSON.parse(Buffer.from(this.deps.box.open(taken.sealed!, taken.id)).toString()) as SessionSecrets
    const client = this.client(secrets.dpop?.privateJwk)
    const dpop: RequestDpopOptions | undefined = secrets.dpop
      ? { signer: { method: 'jwk', alg: 'ES256', publicJwk: secrets.dpop.publicJwk }, nonce: secrets.dpop.nonce }
      : undefined
    const response =
      from === 'prepared'
        ? (
            await protocolStep('requesting the credential', 'offer_uri', () =>
              client.retrieveCredentials({
                issuerMetadata: state.metadata,
                credentialConfigurationId: state.configurationId,
                proofs: { jwt: [input.proof_jwt!] },
                accessToken: secrets.accessToken,
                ...(dpop ? { dpop } : {}),
              }),
            )
          ).credentialResponse
        : (
            await protocolStep('requesting the deferred credential', 'offer_uri', () =>
              client.retrieveDeferredCredentials({
                issuerMetadata: state.metadata,
                transactionId: state.transactionId!,
                accessToken: secrets.accessToken,
                ...(dpop ? { dpop } : {}),
              }),
            )
          ).deferredCredentialResponse

    const issued = response.credentials ?? []
    if (issued.length === 0) {
      const transactionId = (response as { transaction_id?: string }).transaction_id ?? state.transactionId
      if (!transactionId) throw new UnprocessableError('The issuer answered neither a credential nor a transaction_id')
      const interval = (response as { interval?: number }).interval
      const record: CompletionRecord = { pending: taken.id, interval: interval ?? null }
      await withClaim(this.deps.db, claim, JSON.stringify(record), (executor) =>
        sessions.updateSessionState(executor, taken.id, {
          status: 'pending',
          state: JSON.stringify({ ...state, transactionId }),
          expires_at: new Date(now.getTime() + 24 * 3600_000),
        }),
      )
      return { status: 'pending', interval }
    }
    const stored: WalletCredentialRow[] = []
    let failure: unknown
    for (const [index, entry] of issued.entries()) {
      // OID4VCI 1.0: `{credential}` objects; earlier drafts: the credentials themselves.
      const credential = typeof entry === 'object' && 'credential' in entry ? entry.credential : entry
      // The key is claimed with the last import, naming every credential stored: one credential
      // (the usual answer to one proof) and its key commit together; a failed import claims nothing.
      const last = index === issued.length - 1
      const claimWith: ClaimKey | undefined =
        claim && last && failure === undefined
          ? (trx, id) =>
              claim(trx, JSON.stringify({ credentials: [...stored.map((c) => c.id), id] } satisfies CompletionRecord))
          : undefined
      // The holder's consent to the offer (docs/wallet.md "Consent records"), in the import's own transaction.
      const consented: ClaimKey = async (trx, id, secret) => {
        await recordActivity(trx, {
          holder_did: holderDid,
          type: 'credential_offer_accepted',
          credential_id: id,
          details: acceptedDetails(state),
          at: this.deps.clock.now(),
        })
        return claimWith?.(trx, id, secret)
      }
      try {
        const text = typeof credential === 'string' ? credential : JSON.stringify(credential)
        stored.push((await this.deps.wallet.import(holderDid, text, consented, { received: true })).credential)
      } catch (error) {
        failure ??= error
      }
    }
    const notificationId = (response as { notification_id?: string }).notification_id
    if (notificationId) {
      // OID4VCI §11: the issuer learns whether the wallet kept what it sent (best effort).
      const event = failure ? 'credential_failure' : 'credential_accepted'
      await client
        .sendNotification({
          issuerMetadata: state.metadata,
          notification: { notificationId, event },
          accessToken: secrets.accessToken,
          ...(dpop ? { dpop } : {}),
        })
        .catch(() => undefined)
    }
    if (failure) throw failure
    return { status: 'issued', credentials: stored }
  }

  private callbacks(dpopPrivate?: Jwk) {
    const callbacks = serviceCallbacks({
      resolver: this.deps.resolver,
      keys: {
        signingKey: async () => {
          if (!dpopPrivate) throw new Error('no DPoP key in this exchange')
          return createPrivateKey({ key: dpopPrivate as JsonWebKey, format: 'jwk' })
        },
      },
    })
    return {
      ...callbacks,
      // The library dates DPoP proofs (RFC 9449 §4.2 `iat`) by the machine's time; the service's clock is the one its checks use.
      signJwt: (signer: Parameters<typeof callbacks.signJwt>[0], jwt: Parameters<typeof callbacks.signJwt>[1]) =>
        callbacks.signJwt(
          signer,
          jwt.header.typ === 'dpop+jwt'
            ? { ...jwt, payload: { ...jwt.payload, iat: Math.floor(this.deps.clock.now().getTime() / 1000) } }
            : jwt,
        ),
      fetch: this.deps.fetch,
    }
  }

  private client(dpopPrivate?: Jwk): Openid4vciClient {
    return new Openid4vciClient({ callbacks: this.callbacks(dpopPrivate) })
  }
}

/** What the holder agreed to take: issuer, configuration and the claims its metadata describes (no values). */
function acceptedDetails(state: SessionState): Record<string, unknown> {
  const preview = describeOffer(
    { ...state.offer, credential_configuration_ids: [state.configurationId] },
    state.metadata,
  )
  const configuration = preview.credential_configurations[0]
  return {
    protocol: 'openid4vci',
    credential_issuer: preview.credential_issuer,
    issuer_name: preview.issuer.name,
    credential_configuration_id: state.configurationId,
    credential_type: configuration?.credential_type ?? null,
    claims: configuration?.claims.map((c) => c.path) ?? [],
  }
}

function prepared(id: string, state: SessionState, expiresAt: Date): PreparedAcceptance {
  return {
    session_id: id,
    credential_issuer: state.offer.credential_issuer,
    credential_configuration_id: state.configurationId,
    format: state.format,
    proof: state.proof,
    expires_at: expiresAt,
  }
}

/**
 * The holder's device key as the proof's signer (OID4VCI 1.0 §F.1: `jwk` in the proof header): only
 * where the issuer takes ES256 proofs and binds to bare keys (`jwk`, or `cose_key` for an mdoc).
 */
function deviceKeySigner(
  jwk: NonNullable<AcceptInput['device_key']>,
  algs: readonly string[],
  binding: readonly string[],
): { kid: string; alg: string; jwk: Jwk } {
  if (!algs.includes('ES256'))
    throw new UnprocessableError(`device_key is a P-256 key, and the issuer takes proofs signed ${algs.join(' or ')}`, {
      details: { field: 'device_key' },
    })
  if (binding.length > 0 && !binding.some((m) => m === 'jwk' || m === 'cose_key'))
    throw new UnprocessableError(
      `The issuer binds this credential to DIDs only (${binding.join(', ')}), not to a device_key`,
      { details: { field: 'device_key' } },
    )
  if (!isP256Point(jwk))
    throw new ValidationError('device_key is not a point of P-256', { details: { field: 'device_key' } })
  return { kid: '', alg: 'ES256', jwk: { ...jwk } as Jwk }
}

function proofAlgs(configuration: {
  proof_types_supported?: Record<string, { proof_signing_alg_values_supported?: unknown }>
}): string[] {
  const listed = configuration.proof_types_supported?.jwt?.proof_signing_alg_values_supported
  if (!Array.isArray(listed)) return [...JWS_ALGORITHMS]
  return JWS_ALGORITHMS.filter((alg) => listed.includes(alg))
}
