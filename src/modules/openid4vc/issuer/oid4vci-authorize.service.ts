import { randomBytes } from 'node:crypto'
import type { Clock } from '../../../adapters/clock.js'
import type { Database } from '../../../db/database.js'
import type { AuthService } from '../../auth/auth.service.js'
import { normalizeDid } from '../../did/did-normalize.js'
import type { OfferService } from '../../issuer/offers.service.js'
import { issuerContext, sha256Hex, type ContextDeps, type IssuerContext } from './oid4vci-context.js'
import { oid4vciError } from './oid4vci-errors.js'
import * as repo from './oid4vci.repository.js'
import { findPushedRequest, spendPushedRequest } from './oid4vci-par.repository.js'
import { REQUEST_URI_PREFIX } from './oid4vci-par.js'

/** An authorization code is exchanged at once (RFC 6749 §4.1.2 recommends at most 10 minutes). */
const CODE_TTL_S = 120

export interface AuthorizationRequest {
  response_type?: string
  client_id?: string
  redirect_uri?: string
  code_challenge?: string
  code_challenge_method?: string
  issuer_state?: string
  scope?: string
  state?: string
  /** RFC 9126 §4: a pushed request's reference, in place of the other parameters. */
  request_uri?: string
}

export interface AuthorizeDeps extends ContextDeps {
  db: Database
  clock: Clock
  offers: OfferService
  auth: AuthService
}

/**
 * The authorization endpoint of each credential issuer (RFC 6749 §4.1, OID4VCI 1.0 §5) for
 * offers made without a pre-authorized code: the wallet comes with `issuer_state` and a PKCE
 * S256 challenge (RFC 7636); the holder signs in with the service's DID challenge (a proof of
 * key control); the answer is a single-use code for the redirect URI. No HTML: the user agent
 * (or the wallet itself) asks for JSON.
 */
export class Oid4vciAuthorizeService {
  constructor(private readonly deps: AuthorizeDeps) {}

  /** Step 1: the request checked, and a challenge for the holder's DID to sign. */
  async challenge(webId: string, asked: AuthorizationRequest & { did?: string }) {
    const ctx = await issuerContext(this.deps, webId)
    const { request } = await this.pushedOrDirect(ctx, asked)
    const { offer } = await this.check(ctx, request)
    if (!asked.did) throw oid4vciError('invalid_request', 'did is required: the holder signs in with its DID')
    const { did, challenge, expiresAt } = this.deps.auth.createChallenge(asked.did, 'step-up')
    return {
      did,
      challenge,
      expires_at: expiresAt.toISOString(),
      credential_issuer: ctx.endpoints.issuer,
      credential_configuration_id: offer.configuration_id,
    }
  }

  /** Step 2: the signed challenge for a single-use code, and where to send the user agent. */
  async authorize(webId: string, asked: AuthorizationRequest & { did: string; challenge: string; signature: string }) {
    const ctx = await issuerContext(this.deps, webId)
    const { request, pushed } = await this.pushedOrDirect(ctx, asked)
    const { offer, open } = await this.check(ctx, request)
    const did = normalizeDid(asked.did)
    await this.deps.auth.proveControl({ did, challenge: asked.challenge, signature: asked.signature }, did)
    if (open.subject_did && open.subject_did !== did)
      throw oid4vciError('invalid_request', 'The offer is addressed to another holder')
    const code = randomBytes(32).toString('base64url')
    const now = this.deps.clock.now()
    // RFC 9126 §4: a request_uri is used once.
    if (pushed && !(await spendPushedRequest(this.deps.db, pushed, now)))
      throw oid4vciError('invalid_request_uri', 'The request_uri was used meanwhile')
    await repo.insertAuthorizationCode(
      this.deps.db,
      {
        code_digest: sha256Hex(code),
        offer_id: offer.offer_id,
        issuer_did: ctx.identity.did,
        holder_did: did,
        client_id: request.client_id!,
        redirect_uri: request.redirect_uri!,
        code_challenge: request.code_challenge!,
        expires_at: new Date(now.getTime() + CODE_TTL_S * 1000),
        used_at: null,
      },
      now,
    )
    const redirect = new URL(request.redirect_uri!)
    redirect.searchParams.set('code', code)
    if (request.state !== undefined) redirect.searchParams.set('state', request.state)
    // RFC 9207: the issuer of the response, against mix-up.
    redirect.searchParams.set('iss', ctx.endpoints.issuer)
    return { redirect_uri: redirect.href, code, ...(request.state !== undefined ? { state: request.state } : {}) }
  }

  /**
   * The parameters of a pushed request (RFC 9126 §4: its request_uri and the same client_id), or
   * those sent directly when the issuer's policy does not require PAR (§5).
   */
  private async pushedOrDirect(
    ctx: IssuerContext,
    asked: AuthorizationRequest & { did?: string },
  ): Promise<{ request: AuthorizationRequest; pushed?: string }> {
    if (asked.request_uri === undefined) {
      if (ctx.policy.par_required)
        throw oid4vciError(
          'invalid_request',
          `This issuer requires pushed authorization requests (RFC 9126): push the request to ${ctx.authorizationServer.pushed_authorization_request_endpoint} first`,
        )
      return { request: asked }
    }
    const digest = sha256Hex(asked.request_uri)
    const found = asked.request_uri.startsWith(REQUEST_URI_PREFIX)
      ? await findPushedRequest(this.deps.db, ctx.identity.did, digest, this.deps.clock.now())
      : undefined
    if (!found) throw oid4vciError('invalid_request_uri', 'The request_uri is unknown, expired or used')
    if (asked.client_id !== found.client_id)
      throw oid4vciError('invalid_request', 'client_id differs from the pushed authorization request')
    return { request: { ...found.parameters }, pushed: digest }
  }

  /** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636, OID4VCI 1.0 §5.1.3) and the offer they open. */
  async check(ctx: IssuerContext, request: AuthorizationRequest) {
    if (request.response_type !== 'code') throw oid4vciError('invalid_request', 'response_type must be code')
    if (!request.client_id) throw oid4vciError('invalid_request', 'client_id is required')
    if (!request.redirect_uri || !URL.canParse(request.redirect_uri))
      throw oid4vciError('invalid_request', 'redirect_uri must be an absolute URI')
    if (
      request.code_challenge_method !== 'S256' ||
      !request.code_challenge ||
      !/^[A-Za-z0-9_-]{43}$/.test(request.code_challenge)
    ) {
      throw oid4vciError(
        'invalid_request',
        'PKCE is required: code_challenge with code_challenge_method S256 (RFC 7636)',
      )
    }
    if (!request.issuer_state) throw oid4vciError('invalid_request', 'issuer_state of a credential offer is required')
    const offer = await repo.findOfferByIssuerState(this.deps.db, ctx.identity.did, sha256Hex(request.issuer_state))
    const open = offer && (await this.deps.offers.find(this.deps.db, ctx.identity.did, offer.offer_id))
    const now = this.deps.clock.now()
    if (
      !offer ||
      !open ||
      open.status !== 'active' ||
      (open.expires_at && new Date(open.expires_at) <= now) ||
      (open.max_uses !== null && open.uses >= open.max_uses)
    ) {
      throw oid4vciError('invalid_request', 'Unknown issuer_state, or the offer has expired or is used up')
    }
    if (request.scope !== undefined && !request.scope.split(' ').includes(offer.configuration_id))
      throw oid4vciError('invalid_request', `scope must include ${offer.configuration_id}`)
    return { offer, open }
  }
}
