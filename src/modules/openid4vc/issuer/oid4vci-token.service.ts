import { randomUUID } from 'node:crypto'
import {
  authorizationCodeGrantIdentifier,
  Oauth2AuthorizationServer,
  PkceCodeChallengeMethod,
  preAuthorizedCodeGrantIdentifier,
  type Jwk,
  type RequestLike,
} from '@openid4vc/oauth2'
import type { Clock } from '../../../adapters/clock.js'
import type { Transaction } from 'kysely'
import type { Database, DB } from '../../../db/database.js'
import type { OfferService } from '../../issuer/offers.service.js'
import { issuerContext, sameDigest, sha256Hex, type ContextDeps, type IssuerContext } from './oid4vci-context.js'
import type { DpopFreshness } from './oid4vci-dpop.js'
import type { ClientAttestations, VerifiedClientAttestation } from './oid4vci-client-attestation.js'
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
  dpop: DpopFreshness
  attestations: ClientAttestations
}

/**
 * The token endpoint of each credential issuer (RFC 6749 §3.2, OID4VCI 1.0 §6): the
 * pre-authorized code grant with its tx_code, and the authorization code grant with PKCE S256;
 * DPoP (RFC 9449) when the wallet sends a proof, required when the offer asks. The code is spent,
 * the offer's use taken and the grant recorded all or nothing; the access token is a JWT
 * (RFC 9068) signed by the issuer, its `sub` the grant.
 */
/** Wrong tx_codes an offer's pre-authorized code survives. */
export const TX_CODE_MAX_FAILURES = 5

export class Oid4vciTokenService {
  constructor(private readonly deps: TokenDeps) {}

  async token(webId: string, body: Record<string, unknown>, request: RequestLike): Promise<Record<string, unknown>> {
    const ctx = await issuerContext(this.deps, webId)
    const server = new Oauth2AuthorizationServer({ callbacks: this.deps.attestations.callbacks(ctx) })
    let parsed
    try {
      parsed = server.parseAccessTokenRequest({ accessTokenRequest: body, request })
    } catch (error) {
      throw fromLibrary(error, 'invalid_request')
    }
    // RFC 9449 §8: the server nonce and the proof's age first, before a code is looked up or a tx_code tried.
    const admitted = parsed.dpop?.jwt
      ? this.deps.dpop.admit(webId, parsed.dpop.jwt, 'token', ctx.policy.dpop_nonce_required)
      : undefined
    const spendProof = async (dpop: { jwkThumbprint: string } | undefined) => {
      if (dpop && admitted) await this.deps.dpop.spend(dpop.jwkThumbprint, admitted, 'token')
    }
    const grant = parsed.grant
    const issuerDid = ctx.identity.did
    const now = this.deps.clock.now()
    // DPoP is required by the offer or by the issuer's policy (docs/openid4vci.md "Issuer policy").
    const dpopOf = (required: boolean) => ({
      required: required || ctx.policy.dpop_required,
      jwt: parsed.dpop?.jwt,
      allowedSigningAlgs: PROOF_ALGS,
    })
    // Wallet attestation as client authentication, required when the policy says (draft-ietf-oauth-attestation-based-client-auth §6.1).
    const attestationOf = (expectedClientId?: string) => ({
      required: ctx.policy.wallet_attestation_required,
      ...parsed.clientAttestation,
      ...(expectedClientId !== undefined ? { expectedClientId } : {}),
    })
    const spendAttestation = async (verified: { clientAttestation?: VerifiedClientAttestation }) => {
      if (verified.clientAttestation) await this.deps.attestations.spend(verified.clientAttestation)
    }

    if (grant.grantType === authorizationCodeGrantIdentifier) {
      const digest = sha256Hex(grant.code)
      const code = await repo.findAuthorizationCode(this.deps.db, issuerDid, digest, now)
      if (!code)
        throw oid4vciError('invalid_grant', 'The authorization code is unknown, used, expired, or of another issuer')
      // RFC 6749 §4.1.3: the same redirect_uri and client as the authorization request.
      const asked = parsed.accessTokenRequest as Record<string, unknown>
      if (asked.redirect_uri !== code.redirect_uri)
        throw oid4vciError('invalid_grant', 'redirect_uri differs from the authorization request')
      if (asked.client_id !== undefined && asked.client_id !== code.client_id)
        throw oid4vciError('invalid_grant', 'client_id differs from the authorization request')
      const published = await repo.findOffer(this.deps.db, code.offer_id)
      if (!published) throw oid4vciError('invalid_grant', 'The offer is gone')
      let verified
      try {
        verified = await server.verifyAuthorizationCodeAccessTokenRequest({
          authorizationServerMetadata: ctx.authorizationServer,
          grant,
          accessTokenRequest: parsed.accessTokenRequest,
          request,
          expectedCode: grant.code,
          pkce: {
            codeVerifier: parsed.pkceCodeVerifier,
            codeChallenge: code.code_challenge,
            codeChallengeMethod: PkceCodeChallengeMethod.S256,
          },
          dpop: dpopOf(published.dpop_required),
          clientAttestation: attestationOf(code.client_id),
          now,
        })
      } catch (error) {
        throw fromLibrary(error, 'invalid_grant')
      }
      await spendAttestation(verified)
      await spendProof(verified.dpop)
      return this.grantToken(
        ctx,
        server,
        {
          offerId: code.offer_id,
          holderDid: code.holder_did,
          requiresApproval: published.requires_approval,
          dpopJwk: verified.dpop?.jwk,
          dpopJkt: verified.dpop?.jwkThumbprint,
        },
        (trx) => repo.spendAuthorizationCode(trx, digest, now),
      )
    }

    if (grant.grantType !== preAuthorizedCodeGrantIdentifier)
      throw oid4vciError(
        'unsupported_grant_type',
        `Supported grants: ${preAuthorizedCodeGrantIdentifier}, ${authorizationCodeGrantIdentifier}`,
      )
    const digest = sha256Hex(grant.preAuthorizedCode)
    const found = await repo.findUnspentCode(this.deps.db, issuerDid, digest)
    if (!found)
      throw oid4vciError('invalid_grant', 'The pre-authorized code is unknown, already used, or of another issuer')
    if (found.tx_code_digest && grant.txCode === undefined)
      throw oid4vciError('invalid_grant', 'This offer needs its tx_code')
    if (found.tx_code_digest && !sameDigest(sha256Hex(grant.txCode!), found.tx_code_digest)) {
      // A short code is guessable by retrying: a few wrong ones spend it (the issuer makes a new offer).
      const stands = await repo.recordTxCodeFailure(this.deps.db, found.offer_id, TX_CODE_MAX_FAILURES, now)
      throw oid4vciError(
        'invalid_grant',
        stands
          ? 'Wrong tx_code'
          : `Wrong tx_code ${TX_CODE_MAX_FAILURES} times: this pre-authorized code is spent, ask the issuer for a new offer`,
      )
    }
    let verified
    try {
      verified = await server.verifyPreAuthorizedCodeAccessTokenRequest({
        authorizationServerMetadata: ctx.authorizationServer,
        grant,
        accessTokenRequest: parsed.accessTokenRequest,
        request,
        expectedPreAuthorizedCode: grant.preAuthorizedCode,
        ...(found.tx_code_digest ? { expectedTxCode: grant.txCode } : {}),
        dpop: dpopOf(found.dpop_required),
        clientAttestation: attestationOf(),
        now,
      })
    } catch (error) {
      throw fromLibrary(error, 'invalid_grant')
    }
    await spendAttestation(verified)
    await spendProof(verified.dpop)
    // The code spent, the offer's use taken and the grant recorded in one statement: a
    // pre-authorized offer has no signed-in holder, so its subject is checked against the key proofs.
    const grantId = `grant-${randomUUID()}`
    const ttl = found.requires_approval ? DEFERRED_ACCESS_TOKEN_TTL_S : ACCESS_TOKEN_TTL_S
    const redeemed = await repo.redeemPreAuthorizedCode(
      this.deps.db,
      issuerDid,
      digest,
      { id: grantId, dpopJkt: verified.dpop?.jwkThumbprint ?? null, expiresAt: new Date(now.getTime() + ttl * 1000) },
      now,
    )
    if (!redeemed.codeFound) throw oid4vciError('invalid_grant', 'The code was used meanwhile')
    if (!redeemed.granted) throw oid4vciError('invalid_grant', 'The offer has expired, is used up, or was withdrawn')
    return this.accessToken(ctx, server, grantId, ttl, verified.dpop?.jwk, now)
  }

  /**
   * Spends the code (`spend`), takes one use of the offer and records the grant in one
   * transaction, then signs the access token for it.
   */
  private async grantToken(
    ctx: IssuerContext,
    server: Oauth2AuthorizationServer,
    grant: { offerId: string; holderDid: string | null; requiresApproval: boolean; dpopJwk?: Jwk; dpopJkt?: string },
    spend: (trx: Transaction<DB>) => Promise<boolean>,
  ): Promise<Record<string, unknown>> {
    const issuerDid = ctx.identity.did
    const now = this.deps.clock.now()
    const grantId = `grant-${randomUUID()}`
    const ttl = grant.requiresApproval ? DEFERRED_ACCESS_TOKEN_TTL_S : ACCESS_TOKEN_TTL_S
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await spend(trx))) throw oid4vciError('invalid_grant', 'The code was used meanwhile')
      const offer = await this.deps.offers.find(trx, issuerDid, grant.offerId)
      // A signed-in holder must be the offer's subject; otherwise the subject is checked against the key proofs.
      const taken =
        offer && (await this.deps.offers.takeUse(trx, issuerDid, offer.id, grant.holderDid ?? offer.subject_did ?? ''))
      if (!taken) throw oid4vciError('invalid_grant', 'The offer has expired, is used up, or was withdrawn')
      await repo.insertGrant(trx, {
        id: grantId,
        offer_id: grant.offerId,
        issuer_did: issuerDid,
        dpop_jkt: grant.dpopJkt ?? null,
        expires_at: new Date(now.getTime() + ttl * 1000),
        used_at: null,
        holder_did: grant.holderDid,
        credential_ids: '[]',
        notification_id: null,
        transaction_id: null,
        request_id: null,
        holder_keys: 'null',
      })
    })
    return this.accessToken(ctx, server, grantId, ttl, grant.dpopJwk, now)
  }

  /** The access token (RFC 9068) of a grant, signed by the issuer; its `sub` the grant. */
  private accessToken(
    ctx: IssuerContext,
    server: Oauth2AuthorizationServer,
    grantId: string,
    ttl: number,
    dpopJwk: Jwk | undefined,
    now: Date,
  ): Promise<Record<string, unknown>> {
    return server.createAccessTokenResponse({
      audience: ctx.endpoints.issuer,
      authorizationServer: ctx.endpoints.issuer,
      signer: ctx.accessTokenSigner,
      subject: grantId,
      expiresInSeconds: ttl,
      ...(dpopJwk ? { dpop: { jwk: dpopJwk } } : {}),
      now,
    })
  }
}
