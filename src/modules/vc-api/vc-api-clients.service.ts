import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../errors.js'
import { withClaim, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { IssuerService } from '../issuer/issuer.service.js'
import * as repo from './vc-api-clients.repository.js'
import { digest, type VcApiTokens } from './vc-api-tokens.js'
import { grantedScopes, scopesOf, scopeText, VC_API_SCOPES, type VcApiScope } from './vc-api-scopes.js'

/** Access-token lifetime, in seconds (RFC 6749 §5.1 `expires_in`). */
export const ACCESS_TOKEN_TTL_S = 3600
const EXPIRED_SWEEP = 100

export type { VcApiCaller } from './vc-api-tokens.js'

/** An OAuth 2.0 token-endpoint error (RFC 6749 §5.2): its `error` code rides in details. */
export function oauthError(
  error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope',
  description: string,
): ValidationError | UnauthenticatedError {
  const details = { oauth_error: error }
  return error === 'invalid_client'
    ? new UnauthenticatedError(description, { details })
    : new ValidationError(description, { details })
}

/**
 * The VC API's authentication (W3C VC API §"Authorization"): an issuer profile creates OAuth 2.0
 * clients, each a client id and a secret shown once; a client exchanges them for a bearer token
 * (client credentials grant, RFC 6749 §4.4) that lets it call the VC API as that issuer. Tokens
 * are opaque random strings kept as digests, so every instance on the database accepts them.
 */
export class VcApiClientService {
  constructor(
    private readonly deps: {
      db: Database
      issuers: IssuerService
      clock: Clock
      publicBaseUrl: string
      securingFormats: readonly string[]
      tokens: VcApiTokens
    },
  ) {}

  /**
   * `scopes`: what its tokens may do; every scope when not given, as for clients made before scopes.
   * `claim` (an Idempotency-Key) is recorded with the client, sealing its secret (stored here only as a digest).
   */
  async create(
    issuerDid: string,
    name: string,
    scopes: readonly VcApiScope[] | undefined,
    sessionId?: string,
    claim?: ClaimKey,
  ) {
    const issuer = await this.deps.issuers.steppedUpProfile(issuerDid, sessionId)
    const clientId = `vcc_${randomBytes(16).toString('base64url')}`
    const secret = randomBytes(32).toString('base64url')
    const scope = scopeText(scopes ?? VC_API_SCOPES)
    const now = this.deps.clock.now()
    const values = {
      client_id: clientId,
      issuer_did: issuerDid,
      name,
      scope,
      secret_digest: digest(secret),
      created_at: now,
    }
    const row = await withClaim(this.deps.db, claim, clientId, (db) => repo.insertClient(db, values), {
      client_secret: secret,
    })
    return { ...view(row), client_secret: secret, endpoints: this.endpoints(issuer.web_id) }
  }

  /**
   * What `create` answered, from the client and the secret its key sealed. The secret is shown
   * again only to a session that could create a client now (step-up, when required).
   */
  async replay(issuerDid: string, clientId: string, sealed: unknown, sessionId: string | undefined) {
    const issuer = await this.deps.issuers.steppedUpProfile(issuerDid, sessionId)
    const row = await repo.findClient(this.deps.db, issuerDid, clientId)
    if (!row) throw new NotFoundError('The VC API client this Idempotency-Key created no longer exists')
    return {
      ...view(row),
      client_secret: (sealed as { client_secret: string }).client_secret,
      endpoints: this.endpoints(issuer.web_id),
    }
  }

  /** Where the client calls the VC API as this issuer: one issue URL per document-securing format. */
  endpoints(webId: string) {
    const base = `${this.deps.publicBaseUrl}/vc-api`
    return {
      token: `${this.deps.publicBaseUrl}/oauth2/token`,
      issue: Object.fromEntries(
        this.deps.securingFormats.map((f) => [f, `${base}/issuers/${webId}/${f}/credentials/issue`]),
      ),
      status: `${base}/issuers/${webId}/credentials/status`,
      verify: `${base}/credentials/verify`,
      presentations_verify: `${base}/presentations/verify`,
    }
  }

  async list(issuerDid: string) {
    await this.deps.issuers.profile(issuerDid)
    return (await repo.clientsOf(this.deps.db, issuerDid)).map(view)
  }

  async revoke(issuerDid: string, clientId: string, sessionId: string | undefined): Promise<void> {
    await this.deps.issuers.steppedUpProfile(issuerDid, sessionId)
    const revoked = await this.deps.db
      .transaction()
      .execute((trx) => repo.revokeClient(trx, issuerDid, clientId, this.deps.clock.now()))
    if (!revoked) throw new NotFoundError('No active VC API client with this id')
    this.deps.tokens.forget(clientId)
  }

  /** RFC 6749 §4.4: the client's credentials for a bearer token, of the scopes asked (§3.3) or the client's. */
  async token(clientId: string, secret: string, askedScope: string | undefined) {
    const client = await repo.activeClient(this.deps.db, clientId)
    const given = Buffer.from(digest(secret), 'hex')
    // Compared in constant time; an unknown client is compared against a digest of nothing.
    const expected = Buffer.from(client?.secret_digest ?? digest(''), 'hex')
    if (!client || !timingSafeEqual(given, expected))
      throw oauthError('invalid_client', 'Unknown client or wrong client secret')
    // Judged only for an authenticated client: a stranger learns nothing of its scopes.
    const scope = scopeText(grantedScopes(scopesOf(client.scope), askedScope))
    const token = randomBytes(32).toString('base64url')
    const now = this.deps.clock.now()
    await repo.deleteExpiredTokens(this.deps.db, now, EXPIRED_SWEEP)
    const expiresAt = new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000)
    await repo.insertToken(this.deps.db, {
      token_digest: digest(token),
      client_id: clientId,
      scope,
      expires_at: expiresAt,
    })
    // §5.1: `scope` is required when it differs from the one asked; always sent, so a client need not guess.
    return { access_token: token, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_S, scope }
  }
}

function view(row: repo.ClientRow) {
  return {
    client_id: row.client_id,
    name: row.name,
    scopes: scopesOf(row.scope),
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
  }
}
