import { randomUUID } from 'node:crypto'
import { Oauth2AuthorizationServer, preAuthorizedCodeGrantIdentifier, type RequestLike } from '@openid4vc/oauth2'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import type { OfferService } from '../issuer/offers.service.js'
import { issuerContext, sameDigest, sha256Hex, type ContextDeps } from './oid4vci-context.js'
import { fromLibrary, oid4vciError } from './oid4vci-errors.js'
import { PROOF_ALGS } from './oid4vci-metadata.js'
import * as repo from './oid4vci.repository.js'

/** Access tokens live this long: enough for the credential request that follows. */
export const ACCESS_TOKEN_TTL_S = 300
/** A deferred issuance's token must outlive the issuer's decision: the wallet polls with it. */
export const DEFERRED_ACCESS_TOKEN_TTL_S = 86_400

export interface TokenDeps extends ContextDeps {
  db: Database
  clock: Clock
  offers: OfferService
}

/**
 * The token endpoint of each credential issuer (RFC 6749 §3.2, OID4VCI 1.0 §6): the
 * pre-authorized code grant with its tx_code, DPoP (RFC 9449) when the wallet sends a proof and
 * required when the offer asks. The code is spent, the offer's use taken and the grant recorded
 * in one transaction; the access token is a JWT (RFC 9068) signed by the issuer, its `sub` the grant.
 */
export class Oid4vciTokenService {
  constructor(private readonly deps: TokenDeps) {}

  async token(webId: string, body: Record<string, unknown>, request: RequestLike): Promise<Record<string, unknown>> {
    const ctx = await issuerContext(this.deps, webId)
    const server = new Oauth2AuthorizationServer({ callbacks: ctx.callbacks })
    let parsed
    try {
      parsed = server.parseAccessTokenRequest({ accessTokenRequest: body, request })
    } catch (error) {
      throw fromLibrary(error, 'invalid_request')
    }
    const grant = parsed.grant
    if (grant.grantType !== preAuthorizedCodeGrantIdentifier) throw oid4vciError('unsupported_grant_type', `Only the pre-authorized code grant (${preAuthorizedCodeGrantIdentifier}) is supported`)
    const digest = sha256Hex(grant.preAuthorizedCode)
    const issuerDid = ctx.identity.did
    const found = await repo.findUnspentCode(this.deps.db, issuerDid, digest)
    if (!found) throw oid4vciError('invalid_grant', 'The pre-authorized code is unknown, already used, or of another issuer')
    if (found.tx_code_digest && (grant.txCode === undefined || !sameDigest(sha256Hex(grant.txCode), found.tx_code_digest))) {
      throw oid4vciError('invalid_grant', grant.txCode === undefined ? 'This offer needs its tx_code' : 'Wrong tx_code')
    }
    const now = this.deps.clock.now()
    let verified
    try {
      verified = await server.verifyPreAuthorizedCodeAccessTokenRequest({
        authorizationServerMetadata: ctx.authorizationServer,
        grant,
        accessTokenRequest: parsed.accessTokenRequest,
        request,
        expectedPreAuthorizedCode: grant.preAuthorizedCode,
        ...(found.tx_code_digest ? { expectedTxCode: grant.txCode } : {}),
        dpop: { required: found.dpop_required, jwt: parsed.dpop?.jwt, allowedSigningAlgs: PROOF_ALGS },
        now,
      })
    } catch (error) {
      throw fromLibrary(error, 'invalid_grant')
    }
    const grantId = `grant-${randomUUID()}`
    const ttl = found.requires_approval ? DEFERRED_ACCESS_TOKEN_TTL_S : ACCESS_TOKEN_TTL_S
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.spendPreAuthorizedCode(trx, issuerDid, digest, now))) throw oid4vciError('invalid_grant', 'The pre-authorized code was used meanwhile')
      const offer = await this.deps.offers.find(trx, issuerDid, found.offer_id)
      // The offer's subject is checked against the holder's key at the credential endpoint.
      const taken = offer && (await this.deps.offers.takeUse(trx, issuerDid, offer.id, offer.subject_did ?? ''))
      if (!taken) throw oid4vciError('invalid_grant', 'The offer has expired, is used up, or was withdrawn')
      await repo.insertGrant(trx, {
        id: grantId,
        offer_id: found.offer_id,
        issuer_did: issuerDid,
        dpop_jkt: verified.dpop?.jwkThumbprint ?? null,
        expires_at: new Date(now.getTime() + ttl * 1000),
        used_at: null,
        holder_did: null,
        credential_ids: '[]',
        notification_id: null,
        transaction_id: null,
        request_id: null,
        holder_keys: 'null',
      })
    })
    return server.createAccessTokenResponse({
      audience: ctx.endpoints.issuer,
      authorizationServer: ctx.endpoints.issuer,
      signer: ctx.accessTokenSigner,
      subject: grantId,
      expiresInSeconds: ttl,
      ...(verified.dpop ? { dpop: { jwk: verified.dpop.jwk } } : {}),
      now,
    })
  }
}
