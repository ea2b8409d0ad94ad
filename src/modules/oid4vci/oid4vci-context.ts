import { createHash, timingSafeEqual } from 'node:crypto'
import type { AuthorizationServerMetadata, CallbackContext, JwtSignerDid, RequestLike } from '@openid4vc/oauth2'
import type { CredentialIssuerMetadata, IssuerMetadataResult } from '@openid4vc/openid4vci'
import { NotFoundError } from '../../errors.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { IssuerIdentityRow, SigningIdentities } from '../identity/signing-identities.js'
import type { IssuerService } from '../issuer/issuer.service.js'
import { publicJwk, serviceCallbacks } from '../oid4vc/oid4vc-callbacks.js'
import { authorizationServerMetadata, credentialIssuerMetadata, endpointsOf, issuerMetadataResult } from './oid4vci-metadata.js'

/** Everything one request to a credential issuer (`/issuers/<web_id>`) needs. */
export interface IssuerContext {
  identity: IssuerIdentityRow
  issuerName: string
  endpoints: ReturnType<typeof endpointsOf>
  metadata: CredentialIssuerMetadata
  authorizationServer: AuthorizationServerMetadata
  metadataResult: IssuerMetadataResult
  /** The library's callbacks: the issuer's P-256 key signs access tokens; its JWKS is answered locally. */
  callbacks: CallbackContext
  accessTokenSigner: JwtSignerDid
  jwks: { keys: Record<string, unknown>[] }
}

export interface ContextDeps {
  identities: SigningIdentities
  issuers: IssuerService
  resolver: DidResolver
  publicBaseUrl: string
}

const MAX_SCHEMAS = 200

/** The credential issuer of a web_id and its metadata, or 404. */
export async function issuerContext(deps: ContextDeps, webId: string): Promise<IssuerContext> {
  if (!servesOid4vci(deps.publicBaseUrl)) throw new NotFoundError('OpenID4VCI is served only on an https PUBLIC_BASE_URL')
  const identity = await deps.identities.byWebId(webId)
  if (!identity) throw new NotFoundError('No credential issuer here')
  const profile = await deps.issuers.profile(identity.did)
  const schemas = await deps.issuers.listSchemas(identity.did, { limit: MAX_SCHEMAS })
  const endpoints = endpointsOf(deps.publicBaseUrl, webId)
  const metadata = credentialIssuerMetadata(deps.publicBaseUrl, identity, profile, schemas)
  const authorizationServer = authorizationServerMetadata(deps.publicBaseUrl, identity)
  // Access tokens (RFC 9068) are signed with the issuer's P-256 key, ES256 (HAIP).
  const signer = await deps.identities.jwsSigner(identity, 'P-256')
  const accessTokenSigner: JwtSignerDid = { method: 'did', didUrl: signer.kid, alg: signer.alg }
  const jwks = { keys: [{ ...publicJwk(signer.privateKey), kid: signer.kid, alg: signer.alg, use: 'sig' }] }
  const base = serviceCallbacks({
    resolver: deps.resolver,
    keys: {
      signingKey: async (s) => {
        if (s.method === 'did' && s.didUrl === signer.kid) return signer.privateKey
        throw new Error('the service holds no key for this signer')
      },
    },
  })
  // The resource server reads the authorization server's JWKS: this issuer's own, never fetched.
  const fetchLocal: CallbackContext['fetch'] = async (input) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (url !== endpoints.jwks) return new Response(null, { status: 404 })
    return new Response(JSON.stringify(jwks), { status: 200, headers: { 'content-type': 'application/jwk-set+json' } })
  }
  return {
    identity,
    issuerName: profile.name,
    endpoints,
    metadata,
    authorizationServer,
    metadataResult: issuerMetadataResult(metadata, authorizationServer),
    callbacks: { ...base, fetch: fetchLocal },
    accessTokenSigner,
    jwks,
  }
}

/** OID4VCI 1.0 §12.2.1: a credential issuer identifier is an https URL; on plain http the service publishes no OpenID4VCI issuer. */
export const servesOid4vci = (publicBaseUrl: string): boolean => publicBaseUrl.startsWith('https://')

/** The library's view of an HTTP request: its absolute URL (DPoP `htu`) on the public base URL. */
export function requestLike(publicBaseUrl: string, request: { method: string; url: string; headers: Record<string, string | string[] | undefined> }): RequestLike {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  return { method: request.method as RequestLike['method'], url: `${publicBaseUrl}${request.url}`, headers }
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex')

export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && timingSafeEqual(x, y)
}
