import { createHash, randomBytes, type KeyObject } from 'node:crypto'
import type { Jwk } from '@openid4vc/oauth2'
import { JarmMode, Openid4vpVerifier } from '@openid4vc/openid4vp'
import * as jose from 'jose'
import type { Clock } from '../../../adapters/clock.js'
import type { Database, Executor, RequiredCredential, RequiredPredicate } from '../../../db/database.js'
import { JSON_LIMITS, nestingPastLimit } from '../../../json-limits.js'
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../../errors.js'
import { findCredentialOwner } from '../../credentials/credentials.service.js'
import type { ReadCredential } from '../../credentials/formats/credential-format.js'
import type { FormatRegistry } from '../../credentials/formats/format-registry.js'
import { isUnreadable, type Oid4vpFacts, type OpenedPresentation } from '../../credentials/formats/presentation-kind.js'
import type { DidResolver } from '../../did/did-resolver.js'
import type { HostedDids } from '../../identity/hosted-dids.service.js'
import type { KeyStore } from '../../keys/key-store.js'
import type { VerifierAccess } from '../../certificates/verifier-access.js'
import { publicJwk, serviceCallbacks, type ServiceKeys } from '../shared/oid4vc-callbacks.js'
import type { CallbackPort } from '../../presentation/presentation-ports.js'
import type { PresentationVerifier, VerificationOutcome } from '../../presentation/presentation-verifier.js'
import {
  AnswerNotAccepted,
  type VerifierPresentationService,
} from '../../presentation/verifier-presentations.service.js'
import { qrSvgDataUrl } from '../../qr/qr-image.js'
import { readTrustedCertificates, stillTrusted } from '../../verifier/trusted-certificates.js'
import type { VerifierTrustService } from '../../verifier/verifier-trust.service.js'
import type { VerifierService } from '../../verifier/verifier.service.js'
import type { Oid4vpFields, Oid4vpOptions, PresentationRequestRow } from '../../verifier/verifier.types.js'
import {
  askedClaims,
  dcqlProblems,
  dcqlQueryFor,
  namesAsked,
  vpFormatsSupported,
  type KnownSchemas,
} from './dcql-mapping.js'
import { minimisedOutcome } from './minimised-outcome.js'
import { requestSigner } from './request-signer.js'
import { encodeTransactionData, transactionDataProblem } from './transaction-data.js'
import { akiValues, withoutTrustedAuthorities, withTrustedAuthorities } from './trusted-authorities.js'
import { readWalletPost } from './wallet-metadata.js'
import * as repo from './openid4vp.repository.js'

/** Key-store purpose of a request's ephemeral response-encryption key (direct_post.jwt). */
const RESPONSE_KEY_PURPOSE = 'oid4vp-response-ecdh-es'
/** HAIP 1.0 §5: ECDH-ES with P-256; A128GCM and A256GCM content encryption. */
const ENC_VALUES = ['A128GCM', 'A256GCM']
const JWS_ALGS: [string, ...string[]] = ['ES256', 'EdDSA']
const DID_PREFIX = 'decentralized_identifier:'
/** OID4VP 1.0 §5.8: the request object's `aud` when the wallet sent no metadata (request_uri_method get). */
const STATIC_AUDIENCE = 'https://self-issued.me/v2'
/** How many of a refused attempt's errors are kept (each cut at 500 characters). */
const MAX_ATTEMPT_ERRORS = 20

/** An OAuth-style error (OID4VP 1.0 §8.5, RFC 6749 §5.2): 400 with `error` and `error_description`. */
export function oauthError(
  error: 'invalid_request' | 'access_denied' | 'invalid_request_object' | 'invalid_request_uri_method',
  description: string,
  details: Record<string, unknown> = {},
): ValidationError {
  return new ValidationError(description, { details: { ...details, oauth_error: error } })
}

/**
 * OpenID for Verifiable Presentations 1.0 with DCQL over the spec's presentation requests
 * (docs/openid4vp.md). @openid4vc/openid4vp builds the Authorization Request (and signs it as a
 * JAR through the service's callbacks) and parses and validates the Authorization Response
 * (decrypting direct_post.jwt); the service's PresentationVerifier checks every presentation and
 * the request's requirements; the spec's presentation records keep the answer and its verdict.
 */
export class Openid4vpService {
  constructor(
    private readonly deps: {
      db: Database
      clock: Clock
      publicBaseUrl: string
      hosted: HostedDids
      /** The verifiers' access certificates (x509_san_dns, x509_hash). */
      access: VerifierAccess
      /** The IACA roots (DER) of the issuers hosted here: trusted by every verifier. */
      hostedRoots: () => Promise<Uint8Array[]>
      keys: KeyStore
      resolver: DidResolver
      verifiers: VerifierService
      /** Whom each verifier trusts besides the issuers hosted here. */
      trust: Pick<VerifierTrustService, 'trustedCertificates'>
      presentations: Pick<VerifierPresentationService, 'recordAnswer'>
      verifier: PresentationVerifier
      formats: FormatRegistry
      /** The request's webhook sender (the callbacks module). */
      callbacks?: CallbackPort
    },
  ) {}

  /**
   * The Authorization Request of a new presentation request: its DCQL query, nonce (the request's),
   * state, response_uri, response mode and client id; signed by the verifier's did:web or access
   * certificate (request-signer.ts) and served
   * at request_uri, or, with the redirect_uri prefix, unsigned and passed by value (§5.9.3).
   * Undefined when the request asks for nothing DCQL can express, or when the service is not
   * served over https (OID4VP 1.0 §5.9.3 and §8.2: the response_uri is an https URL).
   */
  async prepare(
    request: PresentationRequestRow,
    options: Oid4vpOptions,
  ): Promise<{ store(trx: Executor): Promise<Oid4vpFields> } | undefined> {
    const trustedRoots = options.trusted_roots?.length
      ? readTrustedCertificates(options.trusted_roots, 'trusted_roots', this.deps.clock.now()).map((c) => c.pem)
      : null
    if (!this.deps.publicBaseUrl.startsWith('https://')) return undefined
    const asked = dcqlQueryFor(request, this.deps.formats.dcql, await this.knownSchemas(request))
    if (!asked) return undefined
    // §6.1.1: the roots this verifier trusts for X.509-anchored issuers, named when the request asks to.
    const dcql = options.dcql_trusted_authorities
      ? withTrustedAuthorities(
          asked,
          this.deps.formats.dcql,
          akiValues([
            ...(await this.deps.hostedRoots()),
            ...(await this.deps.trust.trustedCertificates(request.verifier_did)),
            ...stillTrusted(trustedRoots ?? [], this.deps.clock.now()).map((c) => c.der),
          ]),
        )
      : asked
    const base = this.deps.publicBaseUrl
    const responseUri = `${base}/openid4vp/responses/${encodeURIComponent(request.id)}`
    const requestUri = `${base}/openid4vp/requests/${encodeURIComponent(request.id)}`
    const responseMode = options.response_mode ?? 'direct_post'
    const signer = await this.signerOf(options.client_id_prefix ?? 'decentralized_identifier', request.verifier_did)
    if (options.request_uri_method === 'post' && !signer)
      throw new ValidationError('request_uri_method post needs a signed request (not the redirect_uri prefix)', {
        details: { field: 'request_uri_method' },
      })
    const clientId = signer ? signer.clientId : `redirect_uri:${responseUri}`
    let encryptionKid: string | null = null
    let jwks: { keys: Jwk[] } | undefined
    if (responseMode === 'direct_post.jwt') {
      // One key per request (HAIP 1.0 §5), its private half sealed in the key store.
      const key = await this.deps.keys.activeSigningKey(`oid4vp:${request.id}`, RESPONSE_KEY_PURPOSE, 'P-256')
      encryptionKid = key.kid
      jwks = { keys: [{ ...publicJwk(key.publicKeyObject), kid: key.kid, use: 'enc', alg: 'ECDH-ES' }] }
    }
    const state = randomBytes(16).toString('base64url')
    // What the wallet shows of the verifier (OID4VP 1.0 §5.1 client_metadata, RFC 7591 §2): its profile's name and logo when it made one.
    const profile = await this.deps.verifiers.findProfile(request.verifier_did)
    const logo = profile?.logo_url?.startsWith('https://') ? { logo_uri: profile.logo_url } : {}
    const payload = {
      response_type: 'vp_token' as const,
      client_id: clientId,
      response_uri: responseUri,
      response_mode: responseMode,
      nonce: request.nonce,
      state,
      dcql_query: dcql,
      ...(options.transaction_data?.length
        ? {
            transaction_data: encodeTransactionData(
              options.transaction_data,
              dcql.credentials.map((c) => c.id),
            ),
          }
        : {}),
      // Why the verifier asks, for the wallet to show (not an OID4VP 1.0 parameter: wallets ignore
      // what they do not know, RFC 6749 §3.1; DCQL has purposes only on credential sets, §6.2).
      ...(request.purpose ? { purpose: request.purpose } : {}),
      client_metadata: {
        client_name: profile?.name ?? request.verifier_did,
        ...logo,
        vp_formats_supported: vpFormatsSupported(this.deps.formats.dcql, JWS_ALGS),
        ...(jwks ? { jwks, encrypted_response_enc_values_supported: ENC_VALUES } : {}),
      },
    }
    const expiresIn = Math.max(
      60,
      Math.floor((new Date(request.expires_at).getTime() - this.deps.clock.now().getTime()) / 1000),
    )
    const created = await this.verifierFor(undefined, signer?.privateKey).createOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: payload,
      ...(signer
        ? {
            jar: {
              requestUri,
              jwtSigner: signer.jwtSigner,
              expiresInSeconds: expiresIn,
              additionalJwtPayload: { aud: STATIC_AUDIENCE },
            },
          }
        : {}),
      now: this.deps.clock.now(),
    })
    // §5.10: the wallet is told to POST its metadata and a nonce to request_uri (the library's URI names only client_id and request_uri).
    const authorizationRequest = new URL(created.authorizationRequest)
    if (options.request_uri_method === 'post') authorizationRequest.searchParams.set('request_uri_method', 'post')
    return {
      store: async (trx) => {
        const row = await repo.insertOid4vpRequest(trx, {
          request_id: request.id,
          client_id: clientId,
          response_mode: responseMode,
          state,
          request_payload: created.authorizationRequestPayload as Record<string, unknown>,
          authorization_request: authorizationRequest.toString(),
          request_object: created.jar?.authorizationRequestJwt ?? null,
          encryption_kid: encryptionKid,
          redirect_uri: options.redirect_uri ?? null,
          trusted_roots: trustedRoots ? JSON.stringify(trustedRoots) : null,
        })
        return this.fields(row)
      },
    }
  }

  private signerOf(prefix: NonNullable<Oid4vpOptions['client_id_prefix']>, verifierDid: string) {
    return requestSigner(prefix, verifierDid, {
      hosted: this.deps.hosted,
      access: this.deps.access,
      host: new URL(this.deps.publicBaseUrl).hostname,
    })
  }

  /**
   * The request object for a wallet that POSTed to request_uri (OID4VP 1.0 §5.10.1): signed now,
   * carrying its `wallet_nonce`, when the request names request_uri_method post and the wallet can
   * take it (wallet-metadata.ts). The same signer (client id) as at creation; if the verifier's
   * certificate changed since, the request cannot be served any more (the verifier makes a new one).
   */
  async requestObjectForWallet(
    requestId: string,
    form: { wallet_metadata?: string; wallet_nonce?: string },
  ): Promise<string> {
    const row = await repo.findOid4vpRequest(this.deps.db, requestId)
    if (!row?.request_object) throw new NotFoundError('No signed request object here')
    const request = await this.deps.verifiers.findRequest(requestId)
    if (!request || this.deps.verifiers.effectiveStatus(request) !== 'pending')
      throw new NotFoundError('This request is no longer open')
    if (new URL(row.authorization_request).searchParams.get('request_uri_method') !== 'post')
      throw oauthError('invalid_request_uri_method', 'This request_uri is fetched with GET (request_uri_method get)')
    const wallet = readWalletPost(form, row.client_id)
    const prefix = row.client_id.slice(0, row.client_id.indexOf(':')) as NonNullable<Oid4vpOptions['client_id_prefix']>
    const signer = await this.signerOf(prefix, request.verifier_did)
    if (!signer || signer.clientId !== row.client_id)
      throw oauthError('invalid_request', "The verifier's signing certificate changed since this request was made")
    const payload = {
      ...(row.request_payload as Parameters<
        Openid4vpVerifier['createOpenId4vpAuthorizationRequest']
      >[0]['authorizationRequestPayload']),
      ...(wallet.walletNonce !== undefined ? { wallet_nonce: wallet.walletNonce } : {}),
    }
    const expiresIn = Math.max(
      60,
      Math.floor((new Date(request.expires_at).getTime() - this.deps.clock.now().getTime()) / 1000),
    )
    const created = await this.verifierFor(undefined, signer.privateKey).createOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: payload,
      jar: {
        requestUri: `${this.deps.publicBaseUrl}/openid4vp/requests/${encodeURIComponent(requestId)}`,
        jwtSigner: signer.jwtSigner,
        expiresInSeconds: expiresIn,
        additionalJwtPayload: { aud: STATIC_AUDIENCE },
      },
      ...(wallet.walletNonce !== undefined ? { wallet: { expectedNonce: wallet.walletNonce } } : {}),
      now: this.deps.clock.now(),
    })
    return created.jar!.authorizationRequestJwt
  }

  /** The schemas whose vct a query of this request names (dcql-mapping.ts `KnownSchemas`). */
  private async knownSchemas(
    request: Pick<PresentationRequestRow, 'required_credentials' | 'required_predicates'>,
  ): Promise<KnownSchemas> {
    const required = request.required_credentials.filter((r) => !r.schema_id).map((r) => r.credential_type)
    const predicated = request.required_predicates.flatMap((p) => (p.credential_type ? [p.credential_type] : []))
    const anyType =
      request.required_credentials.length === 0 ? request.required_predicates.filter((p) => !p.credential_type) : []
    const untyped = anyType.map((p) => p.attribute)
    const types = [...new Set([...required, ...predicated])]
    const [issuedAs, placedAs, withAttributes] = await Promise.all([
      repo.schemaIdsOfTypes(this.deps.db, types),
      // A type may also be named by the doctype its schemas place credentials under.
      repo.schemaIdsPlacedAs(this.deps.db, types),
      repo.schemaIdsWithAttributes(this.deps.db, [...new Set(untyped)]),
    ])
    const ofType = Object.fromEntries(
      types.map((t) => [t, [...new Set([...(issuedAs[t] ?? []), ...(placedAs[t] ?? [])])]]),
    )
    const named = request.required_credentials.flatMap((r) => (r.schema_id ? [r.schema_id] : []))
    const placements = await repo.schemaPlacements(this.deps.db, [
      ...new Set([...Object.values(ofType).flat(), ...withAttributes, ...named]),
    ])
    return { ofType, withAttributes, placements }
  }

  /** What the verifier's trust sources and the request itself trust besides the hosted issuers' roots (DER). */
  private async trustAnchors(verifierDid: string, row: repo.Oid4vpRequestRow): Promise<Uint8Array[]> {
    const own = await this.deps.trust.trustedCertificates(verifierDid)
    const named = stillTrusted(row.trusted_roots ?? [], this.deps.clock.now()).map((c) => c.der)
    return [...own, ...named]
  }

  /** The OpenID4VP fields of a request that has them (GET of the request). */
  async describe(request: PresentationRequestRow): Promise<Oid4vpFields | undefined> {
    const row = await repo.findOid4vpRequest(this.deps.db, request.id)
    return row ? this.fields(row) : undefined
  }

  private async fields(row: repo.Oid4vpRequestRow): Promise<Oid4vpFields> {
    return {
      authorization_request_uri: row.authorization_request,
      authorization_request_qr: await qrSvgDataUrl(row.authorization_request),
      request_uri: row.request_object
        ? `${this.deps.publicBaseUrl}/openid4vp/requests/${encodeURIComponent(row.request_id)}`
        : null,
      client_id: row.client_id,
      response_uri: String(row.request_payload.response_uri),
      response_mode: row.response_mode,
      state: row.state,
      answer: row.answer,
      holder_response: row.holder_error
        ? {
            error: row.holder_error,
            error_description: row.holder_error_description,
            at: iso(row.holder_error_at ?? row.answered_at ?? row.created_at),
          }
        : null,
      refused_attempts: {
        count: row.refused_count,
        recent:
          row.refused_count === 0
            ? []
            : (await repo.recentRefusedAttempts(this.deps.db, row.request_id)).map((a) => ({
                ...a,
                received_at: iso(a.received_at),
              })),
      },
    }
  }

  /** The signed request object served at request_uri (OID4VP 1.0 §5.10, RFC 9101). */
  async requestObject(requestId: string): Promise<string> {
    const row = await repo.findOid4vpRequest(this.deps.db, requestId)
    if (!row?.request_object) throw new NotFoundError('No signed request object here')
    const request = await this.deps.verifiers.findRequest(requestId)
    if (!request || this.deps.verifiers.effectiveStatus(request) !== 'pending')
      throw new NotFoundError('This request is no longer open')
    return row.request_object
  }

  /**
   * The wallet's error response (OID4VP 1.0 §8.5: `error`, `error_description`, `state`, no
   * vp_token), e.g. access_denied when the holder declined. It carries no proof of its sender and
   * the state is public to whoever saw the QR code, so (docs/openid4vp.md "A wallet's error
   * response"): a request addressed to one holder is closed by it (rejected), once; a request
   * addressed to no one is not (refused responses never consume it): the decline is recorded as a
   * refused attempt and shown, and the request stays open for the others.
   */
  async respondWithError(
    requestId: string,
    form: { error: string; error_description?: string; state?: string; vp_token?: unknown; response?: unknown },
  ): Promise<void> {
    const [row, request] = await Promise.all([
      repo.findOid4vpRequest(this.deps.db, requestId),
      this.deps.verifiers.findRequest(requestId),
    ])
    if (!row || !request) throw oauthError('invalid_request', 'No OpenID4VP request is answered at this response_uri')
    if (form.vp_token !== undefined || form.response !== undefined)
      throw oauthError('invalid_request', 'An error response carries no vp_token or response (OID4VP 1.0 §8.5)')
    // RFC 6749 §4.1.2.1: error is one or more of %x20-21 / %x23-5B / %x5D-7E; a description in any
    // language is taken, but no control character reaches the verifier's view, callback or logs.
    if (!OAUTH_ERROR_CODE.test(form.error))
      throw oauthError('invalid_request', 'error must be an OAuth error code (RFC 6749 §4.1.2.1 characters)')
    if (form.error_description !== undefined && CONTROL_CHARACTER.test(form.error_description))
      throw oauthError('invalid_request', 'error_description must not contain control characters')
    if (form.state !== row.state) throw oauthError('invalid_request', 'state does not match the request')
    if (row.answer !== null)
      throw oauthError('invalid_request', 'This request was already answered: a response is accepted once')
    const status = this.deps.verifiers.effectiveStatus(request)
    if (status !== 'pending') throw oauthError('invalid_request', `The presentation request is ${status}`)
    const description = form.error_description === undefined ? null : form.error_description
    const error = { error: form.error, description, at: this.deps.clock.now() }
    const callbacks = request.callback_url ? this.deps.callbacks : undefined
    const event = {
      url: request.callback_url!,
      type: 'presentation.rejected' as const,
      data: { request_id: requestId, holder_did: null, reason: description, error: form.error },
    }
    const outcome = await this.deps.db
      .transaction()
      .execute(async (trx): Promise<'answered' | 'recorded' | 'first'> => {
        if (request.holder_did !== null) {
          if (!(await repo.recordHolderError(trx, requestId, error))) return 'answered'
          // The same event as the spec's reject route; the holder is unknown (an error response names no one).
          if (callbacks) await callbacks.enqueue(trx, event)
          return 'first'
        }
        const noted = await repo.noteHolderError(trx, requestId, error)
        if (noted === undefined) return 'answered'
        await repo.recordRefusedAttempt(trx, requestId, sha256(JSON.stringify(['error', form.error, description])), {
          holder: null,
          holder_proof_verified: false,
          errors: [
            `${form.error}${description === null ? '' : `: ${description.length > 500 ? `${description.slice(0, 500)}…` : description}`}`,
          ],
          received_at: error.at,
        })
        // One webhook per request: whoever knows the state must not make the verifier's callback fire at will.
        if (noted === 'first' && callbacks) await callbacks.enqueue(trx, event)
        return noted
      })
    if (outcome === 'answered')
      throw oauthError('invalid_request', 'This request was already answered: a response is accepted once')
    if (outcome === 'first') callbacks?.nudge()
  }

  /**
   * The wallet's Authorization Response (OID4VP 1.0 §8.2, direct_post or direct_post.jwt): parsed
   * and validated by the library against the stored request, each presentation verified, the
   * DCQL query and the request's requirements checked. What consumes the request
   * (docs/openid4vp.md "What consumes a request"): an accepted answer; for a request addressed
   * to one holder, also that holder's refused answer once its holder proof verifies. Any other
   * response with the request's state is a refused attempt, recorded for the verifier (bounded)
   * and answered with an OAuth error; malformed, undecryptable or replayed responses: 400.
   */
  async respond(
    requestId: string,
    form: Record<string, unknown>,
  ): Promise<{ redirect_uri?: string; presentation_id: string }> {
    const [row, request] = await Promise.all([
      repo.findOid4vpRequest(this.deps.db, requestId),
      this.deps.verifiers.findRequest(requestId),
    ])
    if (!row || !request) throw oauthError('invalid_request', 'No OpenID4VP request is answered at this response_uri')
    if (row.answer !== null)
      throw oauthError('invalid_request', 'This request was already answered: a response is accepted once')
    const status = this.deps.verifiers.effectiveStatus(request)
    if (status !== 'pending') throw oauthError('invalid_request', `The presentation request is ${status}`)
    const posted = postedResponse(row, form)

    const payload = row.request_payload as Parameters<
      Openid4vpVerifier['parseOpenid4vpAuthorizationResponse']
    >[0]['authorizationRequestPayload']
    let parsed
    try {
      const callbacks = this.callbacks(row.encryption_kid ?? undefined)
      parsed = await new Openid4vpVerifier({ callbacks }).parseOpenid4vpAuthorizationResponse({
        authorizationResponse: form,
        authorizationRequestPayload: payload,
        callbacks,
      })
    } catch (error) {
      throw oauthError('invalid_request', `The authorization response is refused: ${libraryMessage(error)}`)
    }
    // §8.3: an encrypted JWT, not signed (the library also takes signed and signed-then-encrypted JARM responses).
    if (row.response_mode === 'direct_post.jwt' && parsed.jarm?.type !== JarmMode.Encrypted) {
      throw oauthError('invalid_request', 'response must be an encrypted, unsigned JWT (OID4VP 1.0 §8.3)')
    }
    if (parsed.authorizationResponsePayload.state !== row.state)
      throw oauthError('invalid_request', 'state does not match the request')
    if (parsed.type !== 'dcql') throw oauthError('invalid_request', 'vp_token must answer the DCQL query')

    const vpToken = parsed.dcql.presentations as Record<string, unknown[]>
    // As received (direct_post), so the spec's verify route can be given the same text; else as decrypted.
    const text =
      row.response_mode === 'direct_post' ? posted : JSON.stringify(parsed.authorizationResponsePayload.vp_token)
    // A decrypted vp_token is bounded as a posted one is, before any format reads it.
    if (nestingPastLimit(text, JSON_LIMITS.documentDepth))
      throw oauthError('invalid_request', `vp_token must not nest deeper than ${JSON_LIMITS.documentDepth} levels`)

    // From here the response names this request (its state): a refusal is recorded for the verifier.
    type Refusal = 'invalid_request' | 'access_denied'
    const refuse = async (
      holder: string | null,
      verified: boolean,
      errors: string[],
      error: Refusal,
      message: string,
    ): Promise<never> => {
      await repo.recordRefusedAttempt(this.deps.db, row.request_id, sha256(posted), {
        holder: holder && holder.length > 500 ? `${holder.slice(0, 500)}…` : holder,
        holder_proof_verified: verified,
        errors: errors.slice(0, MAX_ATTEMPT_ERRORS).map((e) => (e.length > 500 ? `${e.slice(0, 500)}…` : e)),
        received_at: this.deps.clock.now(),
      })
      throw oauthError(error, message)
    }
    // Each presentation read once, by its kind: what names the holder, then what is checked.
    const presented = this.openVpToken(vpToken)
    const claimed = await this.proverOf(presented).catch((error: unknown) => {
      if (error instanceof ValidationError)
        return refuse(null, false, [error.message], 'invalid_request', error.message)
      throw error
    })
    // A request addressed to one holder is as unknown to anyone else as a missing one (the spec's submit route).
    if (request.holder_did !== null && claimed.did !== request.holder_did) {
      const why = `the response names the holder ${claimed.did}, not the one the request is addressed to`
      await refuse(
        claimed.did,
        false,
        [why],
        'invalid_request',
        'No OpenID4VP request for this holder is answered at this response_uri',
      )
    }
    const { prover, outcome, errors, credentialIds, holderProof } = await this.check(row, request, presented)
    // Without a verified holder proof (signature, KB-JWT, nonce, audience) a response proves nothing of its sender: it consumes nothing.
    if (!holderProof)
      await refuse(prover.did, false, errors, 'access_denied', `The presentation is refused: ${errors.join('; ')}`)

    // §8.2: the redirect_uri carries a fresh response_code, which only the verifier can redeem for the presentation, so a
    // session started by someone else cannot be handed the holder's answer (session fixation). Only its hash is kept.
    const responseCode = row.redirect_uri && errors.length === 0 ? randomBytes(16).toString('base64url') : undefined
    const codeHash = responseCode ? sha256(responseCode) : null
    let result
    try {
      result = await this.deps.presentations.recordAnswer(
        request,
        { prover: prover.did, text, credentialIds, outcome: { ...outcome, errors, isValid: errors.length === 0 } },
        (db, presentation) =>
          repo.insertAnswer(db, presentation, errors.length === 0 ? 'accepted' : 'refused', codeHash),
        // Anyone who saw the QR code can make a holder proof of their own: only an accepted answer closes a request addressed to no one.
        { onlyIfAccepted: request.holder_did === null },
      )
    } catch (error) {
      if (error instanceof AnswerNotAccepted)
        return refuse(prover.did, true, error.problems, 'access_denied', error.message)
      if (error instanceof ConflictError)
        throw oauthError('invalid_request', 'This request was already answered: a response is accepted once')
      throw error
    }
    const presentationId = result.presentation.id
    if (!result.verification_result.is_valid) {
      // The consent check may refuse what the presentation checks accepted.
      if (errors.length === 0) await repo.refuseAnswer(this.deps.db, request.id)
      throw oauthError(
        'access_denied',
        `The presentation is refused: ${result.verification_result.errors.join('; ')}`,
        { presentation_id: presentationId },
      )
    }
    return {
      ...(row.redirect_uri && responseCode ? { redirect_uri: withResponseCode(row.redirect_uri, responseCode) } : {}),
      presentation_id: presentationId,
    }
  }

  /**
   * The presentation an accepted answer's response_code (§8.2) stands for, to the request's
   * verifier, once: its frontend got the code through the holder's redirect.
   */
  async redeemResponseCode(request: PresentationRequestRow, code: string): Promise<{ presentation_id: string }> {
    const presentationId = await repo.redeemResponseCode(this.deps.db, request.id, sha256(code), this.deps.clock.now())
    if (presentationId) return { presentation_id: presentationId }
    const row = await repo.findOid4vpRequest(this.deps.db, request.id)
    if (row?.response_code_redeemed_at && row.response_code_hash === sha256(code))
      throw new ConflictError('This response_code was redeemed already')
    throw new ValidationError("response_code is not the one this request's accepted answer was given", {
      details: { field: 'response_code' },
    })
  }

  /**
   * A presentation received over OpenID4VP, checked again as on receipt (the spec's verify
   * route: a credential revoked since fails it); undefined for a presentation that was not.
   */
  async recheck(
    presentation: { id: string; request_id: string | null; presentation_jwt: string },
    answered: { nonce: string; required_credentials: RequiredCredential[]; required_predicates: RequiredPredicate[] },
  ): Promise<VerificationOutcome | undefined> {
    if (!presentation.request_id) return undefined
    const [row, request] = await Promise.all([
      repo.findOid4vpRequest(this.deps.db, presentation.request_id),
      this.deps.verifiers.findRequest(presentation.request_id),
    ])
    if (!row || !request || row.presentation_id !== presentation.id) return undefined
    const vpToken = this.verifierFor(undefined).parseDcqlVpToken(JSON.parse(presentation.presentation_jwt)) as Record<
      string,
      unknown[]
    >
    const { outcome, errors } = await this.check(row, { ...request, ...answered }, this.openVpToken(vpToken))
    return { ...outcome, errors, isValid: errors.length === 0 }
  }

  /**
   * Each presentation of a vp_token (credential query id → presentations) with its query id, read
   * once by its kind when it is one the request takes: a kind in a format the verifier asks for
   * over DCQL (a VP-JWT, an SD-JWT VC with its KB-JWT); `opened` is undefined for any other.
   */
  private openVpToken(vpToken: Record<string, unknown[]>): Presented[] {
    const asked = new Set(this.deps.formats.dcql.map((f) => f.id))
    return Object.entries(vpToken).flatMap(([id, items]) =>
      items.map((item) => {
        const kind = this.deps.formats.presentationKind(item)
        const opened =
          kind?.oid4vpFormat !== undefined && asked.has(kind.oid4vpFormat)
            ? kind.open(item, this.deps.formats)
            : undefined
        return { id, item, opened: opened && !isUnreadable(opened) ? opened : undefined }
      }),
    )
  }

  /**
   * Every presentation of a vp_token verified for this request's client id and nonce, the
   * request's requirements over all of them, then the DCQL query.
   */
  private async check(
    row: repo.Oid4vpRequestRow,
    request: Pick<
      PresentationRequestRow,
      'verifier_did' | 'presentation_type' | 'nonce' | 'required_credentials' | 'required_predicates'
    >,
    flat: Presented[],
  ) {
    const prover = await this.proverOf(flat)
    // trusted_authorities are enforced by the chain checks (trustAnchors), not by matching the query.
    const query = withoutTrustedAuthorities(
      (row.request_payload as { dcql_query: Parameters<typeof dcqlProblems>[0] }).dcql_query,
    )
    const outcome = await this.deps.verifier.verifyOpenid4vp({
      // An envelope (a VP-JWT) is checked as signed by the prover; a credential with its own holder proof, bound to the prover when it is a DID.
      presentations: flat.map(({ item, opened }) => ({
        item,
        opened,
        holderDid: opened?.kind.envelope || prover.bound ? prover.did : undefined,
      })),
      proverDid: prover.did,
      audience: row.client_id,
      // A Dock BBS derived proof is made for a verifier DID (the anonymous-proof route): the one behind the client id.
      credentialAudience: row.client_id.startsWith(DID_PREFIX) ? row.client_id.slice(DID_PREFIX.length) : row.client_id,
      verifierDid: request.verifier_did,
      presentationType: request.presentation_type,
      request: {
        nonce: request.nonce,
        required_credentials: request.required_credentials,
        required_predicates: request.required_predicates,
      },
      oid4vp: await oid4vpFacts(row, request.nonce),
      trustAnchors: await this.trustAnchors(request.verifier_did, row),
      names: namesAsked(query, request, this.deps.formats.dcql),
    })
    // The DCQL check needs what each query's presentations disclosed: only those that could be read.
    const answered: Record<string, ReadCredential[][]> = {}
    flat.forEach(({ id }, i) => (answered[id] ??= []).push(outcome.read[i] ?? []))
    const formatOf = Object.fromEntries(query.credentials.map((c) => [c.id, c.format]))
    const dcql = outcome.errors.length === 0 ? dcqlProblems(query, answered, formatOf, this.deps.formats.dcql) : []
    // §8.4: the holder proofs must bind the transaction data; unbound, they prove no consent to it (nothing is consumed).
    const transactionData = (row.request_payload as { transaction_data?: string[] }).transaction_data
    const unbound =
      transactionData && outcome.holderProof
        ? await transactionDataProblem(this.verifierFor(undefined), transactionData, flat)
        : undefined
    const errors = [...outcome.errors, ...(unbound ? [unbound] : []), ...dcql]
    const credentialIds = [...new Set(outcome.read.flat().flatMap((c) => (c.id ? [c.id] : [])))]
    // What is kept and reported is what the query asked for; the checks above saw everything.
    const read = flat.flatMap(({ id }, i) => (outcome.read[i] ?? []).map((credential) => ({ queryId: id, credential })))
    return {
      prover,
      outcome: minimisedOutcome(outcome, read, askedClaims(query, this.deps.formats.dcql)),
      errors,
      credentialIds,
      holderProof: outcome.holderProof && unbound === undefined,
    }
  }

  /**
   * Who presents: the holder an envelope names (a VP-JWT's `iss`: its signature proves it); for
   * credentials alone, the holder this service issued the first one to (an SD-JWT VC's cnf key
   * is then checked to be that DID's), else the holder the first names for itself (the did:jwk of
   * the key an SD-JWT VC is bound to, which its KB-JWT proves possession of).
   */
  private async proverOf(presented: Presented[]): Promise<{ did: string; bound: boolean }> {
    for (const { opened } of presented)
      if (opened?.kind.envelope && opened.holder !== undefined) return { did: opened.holder, bound: true }
    for (const { item, opened } of presented) {
      // An envelope names its holder itself (above); a credential alone is looked up by its id.
      if (opened?.kind.envelope) continue
      for (const id of opened ? opened.items.map((i) => i.id) : [this.deps.formats.idOf(item)]) {
        const owner = id ? await findCredentialOwner(this.deps.db, id) : undefined
        if (owner) return { did: owner, bound: true }
      }
    }
    for (const { opened } of presented)
      if (opened && !opened.kind.envelope && opened.holder !== undefined) return { did: opened.holder, bound: false }
    throw oauthError('invalid_request', 'vp_token names no holder: no VP-JWT and no credential bound to a key')
  }

  private verifierFor(encryptionKid: string | undefined, signingKey?: KeyObject): Openid4vpVerifier {
    return new Openid4vpVerifier({ callbacks: this.callbacks(encryptionKid, signingKey) })
  }

  /** The service's callbacks for the library: signing with the request's signer key, decrypting with this request's key only. */
  private callbacks(encryptionKid: string | undefined, signingKey?: KeyObject) {
    const keys: ServiceKeys = {
      signingKey: async (signer) => {
        const key =
          signingKey ?? (signer.method === 'did' ? await this.deps.hosted.verifierSigningKey(signer.didUrl) : undefined)
        if (!key) throw new Error('no verifier key for this signer')
        return key
      },
      decryptionKey: async (_jwk, header) => {
        if (!encryptionKid || (header.kid !== undefined && header.kid !== encryptionKid)) return undefined
        const key = await this.deps.keys.signingKey(encryptionKid)
        return { key: key.privateKey, jwk: { ...publicJwk(key.publicKeyObject), kid: encryptionKid } }
      },
    }
    return serviceCallbacks({ resolver: this.deps.resolver, keys })
  }
}

/**
 * The response as posted, in the shape its response mode allows (OID4VP 1.0 §8.2, §8.3): for
 * direct_post.jwt only `response`, a compact JWE made with the alg and enc the request announced
 * (client_metadata: its key's `alg`, `encrypted_response_enc_values_supported`) to the request's
 * own key (its `kid`); for direct_post only `vp_token`. Anything else is refused before it is read.
 */
function postedResponse(row: repo.Oid4vpRequestRow, form: Record<string, unknown>): string {
  if (row.response_mode === 'direct_post') {
    if (form.response !== undefined)
      throw oauthError('invalid_request', 'response is for direct_post.jwt; this request takes vp_token')
    if (typeof form.vp_token !== 'string') throw oauthError('invalid_request', 'vp_token is required')
    // JSON from outside, parsed by the library: refused at the edge when it nests past the service's limit.
    if (nestingPastLimit(form.vp_token, JSON_LIMITS.documentDepth)) {
      throw oauthError('invalid_request', `vp_token must not nest deeper than ${JSON_LIMITS.documentDepth} levels`)
    }
    return form.vp_token
  }
  if (typeof form.response !== 'string')
    throw oauthError('invalid_request', 'response (an encrypted JWT) is required for direct_post.jwt')
  if (form.vp_token !== undefined)
    throw oauthError('invalid_request', 'direct_post.jwt: vp_token goes inside the encrypted response')
  let header: jose.CompactJWEHeaderParameters | undefined
  try {
    const compactJwe = form.response.split('.').length === 5
    header = compactJwe ? (jose.decodeProtectedHeader(form.response) as jose.CompactJWEHeaderParameters) : undefined
  } catch {
    header = undefined
  }
  if (!header)
    throw oauthError(
      'invalid_request',
      'response must be an encrypted JWT (compact JWE), not signed or plain (OID4VP 1.0 §8.3)',
    )
  type Announced = { jwks?: { keys?: Array<{ alg?: string }> }; encrypted_response_enc_values_supported?: string[] }
  const metadata = (row.request_payload as { client_metadata?: Announced }).client_metadata
  const alg = metadata?.jwks?.keys?.[0]?.alg ?? 'ECDH-ES'
  const encs = metadata?.encrypted_response_enc_values_supported ?? []
  if (header.alg !== alg)
    throw oauthError('invalid_request', `response: alg ${JSON.stringify(header.alg)} is not the announced ${alg}`)
  if (typeof header.enc !== 'string' || !encs.includes(header.enc)) {
    throw oauthError(
      'invalid_request',
      `response: enc ${JSON.stringify(header.enc)} is not one the request announced (${encs.join(', ')})`,
    )
  }
  if (header.kid !== row.encryption_kid)
    throw oauthError('invalid_request', "response: not encrypted to the request's own key (kid)")
  if (header.zip !== undefined || header.crit !== undefined)
    throw oauthError('invalid_request', 'response: zip and crit are not accepted')
  return form.response
}

/**
 * What a holder proof bound to the whole request covers (OID4VP 1.0 Appendix B.2.6.1): its client
 * id, nonce and response_uri, and for direct_post.jwt the SHA-256 JWK Thumbprint (RFC 7638) of the
 * encryption key its client_metadata announced.
 */
async function oid4vpFacts(row: repo.Oid4vpRequestRow, nonce: string): Promise<Oid4vpFacts> {
  type Announced = { jwks?: { keys?: jose.JWK[] } }
  const payload = row.request_payload as { response_uri: string; client_metadata?: Announced }
  const key = row.response_mode === 'direct_post.jwt' ? payload.client_metadata?.jwks?.keys?.[0] : undefined
  const thumbprint = key ? Buffer.from(await jose.calculateJwkThumbprint(key, 'sha256'), 'base64url') : undefined
  return {
    clientId: row.client_id,
    nonce,
    responseUri: payload.response_uri,
    ...(thumbprint ? { encryptionJwkThumbprint: new Uint8Array(thumbprint) } : {}),
  }
}

/** One presentation of a vp_token, with the credential query it answers. */
type Presented = { id: string; item: unknown; opened: OpenedPresentation | undefined }

const iso = (at: Date | string) => new Date(at).toISOString()
/** RFC 6749 §4.1.2.1's characters of an error code. */
const OAUTH_ERROR_CODE = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/
// eslint-disable-next-line no-control-regex -- the point is to find them
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F-\u009F]/
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url')

/** The redirect_uri with its response_code, in the fragment as OID4VP 1.0 §8.2's example has it. */
function withResponseCode(redirectUri: string, code: string): string {
  return `${redirectUri}${redirectUri.includes('#') ? '&' : '#'}response_code=${encodeURIComponent(code)}`
}

/** A readable reason from the library's errors (zod issues, OAuth errors), without internals. */
function libraryMessage(error: unknown): string {
  if (error instanceof AppError) return error.message
  const e = error as { errorResponse?: { error_description?: string; error?: string }; message?: string }
  const text =
    e?.errorResponse?.error_description ??
    e?.errorResponse?.error ??
    (error instanceof Error ? error.message : 'unreadable')
  return text.length > 500 ? `${text.slice(0, 500)}…` : text
}
