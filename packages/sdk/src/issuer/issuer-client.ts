/**
 * The issuer's common tasks over the typed client: its profile, a schema, issuing, an offer (the
 * spec's offer and its OpenID4VCI URI) and revoking. Each is one route of the service (README
 * "Issue a credential", docs/openid4vci.md "Offers"); `client.api` reaches every other.
 */
import type { ServiceClient } from '../client.js'
import type { RouteAnswer, RouteBody } from '../route-types.js'
import { signedInDid } from '../sign-in.js'

export type IssuerProfileInput = RouteBody<'/api/issuer', 'post'>
export type IssuerProfile = RouteAnswer<'/api/issuer', 'post', 201>['issuer']
export type SchemaInput = RouteBody<'/api/issuer/{did}/schemas', 'post'>
export type CredentialSchema = RouteAnswer<'/api/issuer/{did}/schemas', 'post', 201>['schema']
export type IssueInput = RouteBody<'/api/issuer/{did}/issue', 'post'>
export type IssuedCredential = RouteAnswer<'/api/issuer/{did}/issue', 'post', 201>['credential']
export type OfferInput = RouteBody<'/api/issuer/{did}/offers', 'post'>
export type RevokedCredential = RouteAnswer<
  '/api/issuer/{did}/credentials/{credential_id}/revoke',
  'post',
  200
>['credential']

export interface CreatedOffer {
  offer: RouteAnswer<'/api/issuer/{did}/offers', 'post', 201>['offer']
  /** The spec's QR payload (JSON text with the offer's id), for this service's own wallet. */
  qrCodeData: string
  /**
   * OpenID4VCI 1.0 §4.1.3: `openid-credential-offer://?credential_offer_uri=…`, for any standard
   * wallet. null when the service is not on https (OpenID4VCI needs it) or the format has no
   * credential configuration (docs/openid4vci.md "Offers"). Answered once: make a new offer for a new URI.
   */
  offerUri: string | null
  /** OpenID4VCI 1.0 §3.5 transaction code, when asked for: give it to the holder out of band (shown only here). */
  txCode: string | null
  /** The Credential Offer object served at the URI (credential_issuer, configuration ids, grants). */
  credentialOffer: Record<string, unknown> | null
}

export interface IssuerClient {
  readonly client: ServiceClient
  /** The signed-in DID, whose issuer profile this is. */
  readonly did: string
  /** Creates the issuer profile of the signed-in DID (`POST /api/issuer`). */
  createProfile(profile: IssuerProfileInput): Promise<IssuerProfile>
  createSchema(schema: SchemaInput): Promise<CredentialSchema>
  /** Issues a credential to `subject_did` (`POST /api/issuer/:did/issue`). */
  issue(credential: IssueInput): Promise<IssuedCredential>
  /** An offer any holder can take: the spec's and, on https, the OpenID4VCI one. */
  createOffer(offer: OfferInput): Promise<CreatedOffer>
  /** Revokes an issued credential (its status list bit); revoking again answers it unchanged. */
  revoke(credentialId: string, options?: { reason?: string }): Promise<RevokedCredential>
}

/** The issuer's helpers on a signed-in client (`await client.login(key)` or `signIn`). */
export function createIssuerClient(client: ServiceClient): IssuerClient {
  const path = () => ({ path: { did: signedInDid(client) } })
  return {
    client,
    get did() {
      return signedInDid(client)
    },
    async createProfile(profile) {
      return (await client.api.POST('/api/issuer', { body: profile })).data!.issuer
    },
    async createSchema(schema) {
      return (await client.api.POST('/api/issuer/{did}/schemas', { params: path(), body: schema })).data!.schema
    },
    async issue(credential) {
      return (await client.api.POST('/api/issuer/{did}/issue', { params: path(), body: credential })).data!.credential
    },
    async createOffer(offer) {
      const { data } = await client.api.POST('/api/issuer/{did}/offers', { params: path(), body: offer })
      const created = data!
      return {
        offer: created.offer,
        qrCodeData: created.qr_code_data,
        offerUri: created.credential_offer_uri ?? null,
        txCode: created.tx_code ?? null,
        credentialOffer: created.credential_offer ?? null,
      }
    },
    async revoke(credentialId, options = {}) {
      const { data } = await client.api.POST('/api/issuer/{did}/credentials/{credential_id}/revoke', {
        params: { path: { did: signedInDid(client), credential_id: credentialId } },
        body: options.reason === undefined ? {} : { reason: options.reason },
      })
      return data!.credential
    },
  }
}
