import { createHash, timingSafeEqual } from 'node:crypto'
import type { AuthorizationServerMetadata, CallbackContext, JwtSignerDid, RequestLike } from '@openid4vc/oauth2'
import type { CredentialIssuerMetadata, IssuerMetadataResult } from '@openid4vc/openid4vci'
import type { Clock } from '../../../adapters/clock.js'
import { NotFoundError } from '../../../errors.js'
import type { IssuerLeafCertificates } from '../../certificates/issuer-leaves.js'
import type { FormatRegistry } from '../../credentials/formats/format-registry.js'
import type { DidResolver } from '../../did/did-resolver.js'
import type { IssuerIdentityRow, SigningIdentities } from '../../identity/signing-identities.js'
import type { IssuerService } from '../../issuer/issuer.service.js'
import { publicJwk, serviceCallbacks } from '../shared/oid4vc-callbacks.js'
import {
  authorizationServerMetadata,
  credentialIssuerMetadata,
  endpointsOf,
  issuerMetadataResult,
} from './oid4vci-metadata.js'
import { withSignedMetadata } from './signed-metadata.js'
import { parEndpointOf } from './oid4vci-par.js'
import { withAuthorizationPolicy, withIssuancePolicy, type Oid4vciPolicy } from './oid4vci-policy.js'

/** Everything one request to a credential issuer (`/issuers/<web_id>`) needs. */
export interface IssuerContext {
  identity: IssuerIdentityRow
  issuerName: string
  endpoints: ReturnType<typeof endpointsOf>
  metadata: CredentialIssuerMetadata
  authorizationServer: AuthorizationServerMetadata
  metadataResult: IssuerMetadataResult
  /** The issuer's OpenID4VCI policy: what it requires of wallets, as its metadata announces. */
  policy: Oid4vciPolicy
  /** The library's callbacks: the issuer's P-256 key signs access tokens; its JWKS is answered locally. */
  callbacks: CallbackContext
  accessTokenSigner: JwtSignerDid
  jwks: { keys: Record<string, unknown>[] }
}

export interface ContextDeps {
  policies: { of(issuerDid: string): Promise<Oid4vciPolicy> }
  identities: SigningIdentities
  /** The credential formats; those with an OpenID4VCI face are served. */
  formats: FormatRegistry
  issuers: IssuerService
  resolver: DidResolver
  publicBaseUrl: string
  /** The issuers' metadata keys and certificates (signed_metadata, OID4VCI 1.0 §12.2.3). */
  certificates?: IssuerLeafCertificates
  clock?: Clock
  /** Contexts kept a few seconds: building one reads the profile, every schema and the key, and validates the metadata. */
  contexts?: IssuerContextCache
}

const MAX_SCHEMAS = 200
const CONTEXT_TTL_MS = 5_000
const CONTEXT_CACHE_MAX = 1_000

/**
 * The issuers' contexts for CONTEXT_TTL_MS (one per app, shared by its services). A caller that
 * needs a credential configuration a kept context does not list (a schema made since, maybe on
 * another instance) gets a fresh one; a deleted schema's configuration lingers at most the TTL,
 * and issuing under it fails at the schema anyway.
 */
export class IssuerContextCache {
  private readonly entries = new Map<string, { at: number; context: Promise<IssuerContext> }>()

  constructor(private readonly now: () => number) {}

  get(webId: string, build: () => Promise<IssuerContext>, needs?: string): Promise<IssuerContext> {
    const hit = this.entries.get(webId)
    const fresh = hit && this.now() - hit.at < CONTEXT_TTL_MS ? hit.context : undefined
    if (fresh)
      return fresh.then((ctx) =>
        needs === undefined || needs in ctx.metadata.credential_configurations_supported
          ? ctx
          : this.load(webId, build),
      )
    return this.load(webId, build)
  }

  /** Drops a kept context (its issuer's policy changed). */
  forget(webId: string): void {
    this.entries.delete(webId)
  }

  private load(webId: string, build: () => Promise<IssuerContext>): Promise<IssuerContext> {
    if (this.entries.size >= CONTEXT_CACHE_MAX) this.entries.clear()
    const context = build()
    this.entries.set(webId, { at: this.now(), context })
    // A failed build (404, a database error) is not kept.
    context.catch(() => this.entries.get(webId)?.context === context && this.entries.delete(webId))
    return context
  }
}

/**
 * The credential issuer of a web_id and its metadata, or 404; from the app's cache when it has
 * one. `needs`: a credential configuration the caller requires, so a kept context without it is rebuilt.
 */
export function issuerContext(deps: ContextDeps, webId: string, needs?: string): Promise<IssuerContext> {
  if (!servesOid4vci(deps.publicBaseUrl))
    return Promise.reject(new NotFoundError('OpenID4VCI is served only on an https PUBLIC_BASE_URL'))
  return deps.contexts
    ? deps.contexts.get(webId, () => buildIssuerContext(deps, webId), needs)
    : buildIssuerContext(deps, webId)
}

async function buildIssuerContext(deps: ContextDeps, webId: string): Promise<IssuerContext> {
  const identity = await deps.identities.byWebId(webId)
  if (!identity) throw new NotFoundError('No credential issuer here')
  const profile = await deps.issuers.profile(identity.did)
  const schemas = await deps.issuers.listSchemas(identity.did, { limit: MAX_SCHEMAS })
  const endpoints = endpointsOf(deps.publicBaseUrl, webId)
  const policy = await deps.policies.of(identity.did)
  const unsigned = withIssuancePolicy(
    credentialIssuerMetadata(deps.publicBaseUrl, identity, profile, schemas, deps.formats.oid4vci()),
    policy,
  )
  // Signed over what the policy announces too (OID4VCI 1.0 §12.2.3: the signed parameters are the metadata's).
  const metadata = await withSignedMetadata(
    unsigned,
    await deps.certificates?.metadataSigner(identity.did, endpoints.issuer),
    deps.clock?.now() ?? new Date(),
  )
  const authorizationServer = withAuthorizationPolicy(
    authorizationServerMetadata(deps.publicBaseUrl, identity),
    policy,
    parEndpointOf(endpoints.issuer),
  )
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
    policy,
    callbacks: { ...base, fetch: fetchLocal },
    accessTokenSigner,
    jwks,
  }
}

/** OID4VCI 1.0 §12.2.1: a credential issuer identifier is an https URL; on plain http the service publishes no OpenID4VCI issuer. */
export const servesOid4vci = (publicBaseUrl: string): boolean => publicBaseUrl.startsWith('https://')

/** The library's view of an HTTP request: its absolute URL (DPoP `htu`) on the public base URL. */
export function requestLike(
  publicBaseUrl: string,
  request: { method: string; url: string; headers: Record<string, string | string[] | undefined> },
): RequestLike {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  return { method: request.method as RequestLike['method'], url: `${publicBaseUrl}${request.url}`, headers }
}

/** JWK members of private or symmetric keys (RFC 7518 §6.2.2, §6.3.2, §6.4): a proof's header key must have none. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']

/** Whether a JOSE header's `jwk` is more than a public key (RFC 9449 §4.3 check 7, OID4VCI 1.0 Appendix F.1). */
export const carriesPrivateKey = (jwk: unknown): boolean =>
  typeof jwk === 'object' && jwk !== null && PRIVATE_JWK_MEMBERS.some((m) => m in jwk)

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex')

export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && timingSafeEqual(x, y)
}
