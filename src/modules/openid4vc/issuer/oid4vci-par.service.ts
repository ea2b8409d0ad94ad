import { randomBytes } from 'node:crypto'
import { Oauth2AuthorizationServer, type RequestLike } from '@openid4vc/oauth2'
import type { Clock } from '../../../adapters/clock.js'
import type { Database } from '../../../db/database.js'
import type { Oid4vciAuthorizeService } from './oid4vci-authorize.service.js'
import type { ClientAttestations } from './oid4vci-client-attestation.js'
import { issuerContext, sha256Hex, type ContextDeps } from './oid4vci-context.js'
import { fromLibrary, oid4vciError } from './oid4vci-errors.js'
import { REQUEST_URI_PREFIX, REQUEST_URI_TTL_S } from './oid4vci-par.js'
import { insertPushedRequest } from './oid4vci-par.repository.js'

export interface ParDeps extends ContextDeps {
  db: Database
  clock: Clock
  authorization: Oid4vciAuthorizeService
  attestations: ClientAttestations
}

/**
 * The pushed authorization request endpoint (RFC 9126) of each credential issuer: the wallet
 * posts its authorization request, authenticated by its wallet attestation when it has one (and
 * must when the issuer's policy says), and gets a short-lived single-use request_uri for the
 * authorization endpoint. The parameters are checked here as the authorization endpoint would.
 */
export class Oid4vciParService {
  constructor(private readonly deps: ParDeps) {}

  async push(webId: string, body: Record<string, string>, request: RequestLike) {
    const ctx = await issuerContext(this.deps, webId)
    // RFC 9126 §2.1: a pushed request carries its parameters, never a request_uri.
    if (body.request_uri !== undefined) throw oid4vciError('invalid_request', 'request_uri cannot be pushed')
    const server = new Oauth2AuthorizationServer({ callbacks: this.deps.attestations.callbacks(ctx) })
    let verified
    try {
      const parsed = await server.parsePushedAuthorizationRequest({ request, authorizationRequest: body })
      if (parsed.authorizationRequestJwt)
        throw oid4vciError(
          'invalid_request',
          'Signed authorization requests (JAR) are not accepted: push the parameters',
        )
      verified = await server.verifyPushedAuthorizationRequest({
        authorizationServerMetadata: ctx.authorizationServer,
        authorizationRequest: parsed.authorizationRequest,
        request,
        clientAttestation: { required: ctx.policy.wallet_attestation_required, ...parsed.clientAttestation },
        now: this.deps.clock.now(),
      })
    } catch (error) {
      throw fromLibrary(error, 'invalid_request')
    }
    if (verified.clientAttestation) await this.deps.attestations.spend(verified.clientAttestation)
    await this.deps.authorization.check(ctx, body)
    const requestUri = `${REQUEST_URI_PREFIX}${randomBytes(32).toString('base64url')}`
    const now = this.deps.clock.now()
    await insertPushedRequest(
      this.deps.db,
      {
        request_uri_digest: sha256Hex(requestUri),
        issuer_did: ctx.identity.did,
        client_id: body.client_id!,
        parameters: body,
        expires_at: new Date(now.getTime() + REQUEST_URI_TTL_S * 1000),
      },
      now,
    )
    return server.createPushedAuthorizationResponse({ requestUri, expiresInSeconds: REQUEST_URI_TTL_S })
      .pushedAuthorizationResponse
  }
}
