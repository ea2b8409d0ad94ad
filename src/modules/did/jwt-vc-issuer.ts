/**
 * Issuer keys of SD-JWT VCs and Token Status Lists, found the standard ways
 * (draft-ietf-oauth-sd-jwt-vc §3.5 "Issuer Signature Mechanisms"): an https `iss` names JWT VC
 * Issuer Metadata at `/.well-known/jwt-vc-issuer<path>` (its §4) holding `jwks` or `jwks_uri`;
 * a DID `iss` is resolved and `kid` must be one of its assertion methods.
 */
import { createPublicKey, type JsonWebKey as NodeJwk } from 'node:crypto'
import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import { jwsAlgorithmFor } from '../../crypto/jws.js'
import type { DidDocument } from './did-document.js'
import type { DidResolver } from './did-resolver.js'
import { didWebForUrl } from './methods/registered-methods.js'
import { jwsKeyFor, jwsKeyOfMethod, type JwsKey } from './jws-keys.js'
import { methodsFor } from './verification-keys.js'

export interface IssuerKeyDeps {
  resolver: DidResolver
  httpGet: HttpGet
  /** This service's base URL: its own issuers' metadata is read locally, never fetched. */
  publicBaseUrl: string
}

/** Why no key was found for an issuer; the message is what a verifier reports. */
export class IssuerKeyUnavailable extends Error {}

const MAX_METADATA_BYTES = 64 * 1024

/** SD-JWT VC §4.1: the well-known segment goes between the host and the issuer's path. */
export function jwtVcIssuerMetadataUrl(iss: string): string {
  const url = new URL(iss)
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new IssuerKeyUnavailable(`issuer ${iss} is not an https URL`)
  if (url.search || url.hash) throw new IssuerKeyUnavailable(`issuer ${iss} has a query or fragment`)
  return `${url.origin}/.well-known/jwt-vc-issuer${url.pathname.replace(/\/$/, '')}`
}

/** The https issuer identifier of an issuer's did:web hosted here (`/issuers/<webId>`). */
export const hostedIssuerUrl = (publicBaseUrl: string, webId: string): string => `${publicBaseUrl}/issuers/${webId}`

/** The hosted did:web behind a local https issuer identifier, or undefined for any other string. */
export function hostedDidForIssuerUrl(publicBaseUrl: string, iss: string): string | undefined {
  const prefix = `${publicBaseUrl}/issuers/`
  const webId = iss.startsWith(prefix) ? iss.slice(prefix.length) : ''
  return /^[a-f0-9]{32}$/.test(webId) ? didWebForUrl(publicBaseUrl, ['issuers', webId]) : undefined
}

/**
 * The document's keys (Ed25519, P-256) for a relationship as JWKs, `kid` = the verification
 * method's DID URL: assertion keys for issuer metadata, authentication keys for a holder's `cnf`.
 */
export function relationshipJwks(
  doc: DidDocument,
  relationship: 'authentication' | 'assertionMethod',
): Record<string, unknown>[] {
  return methodsFor(doc, relationship).flatMap((method) => {
    const key = jwsKeyOfMethod(method)
    return key ? [{ ...key.key.export({ format: 'jwk' }), kid: method.id, alg: key.alg, use: 'sig' }] : []
  })
}

/** The key that signs for `iss` under `kid`, with the one `alg` it verifies. */
export async function resolveIssuerKey(iss: string, kid: string | undefined, deps: IssuerKeyDeps): Promise<JwsKey> {
  if (iss.startsWith('did:')) return didKey(iss, kid, iss, deps)
  const hosted = hostedDidForIssuerUrl(deps.publicBaseUrl, iss)
  // This service's own issuer: its metadata lists the keys of the hosted did:web, read locally.
  if (hosted) return didKey(hosted, kid, iss, deps)
  if (!iss.startsWith('https://')) throw new IssuerKeyUnavailable(`issuer ${iss} is neither a DID nor an https URL`)
  const metadata = await fetchJson(jwtVcIssuerMetadataUrl(iss), deps.httpGet)
  // §4.3: the metadata's issuer MUST be identical to iss.
  if (metadata.issuer !== iss)
    throw new IssuerKeyUnavailable(
      `the JWT VC Issuer Metadata names issuer ${JSON.stringify(metadata.issuer)}, not ${iss}`,
    )
  const jwks = isObject(metadata.jwks)
    ? metadata.jwks
    : typeof metadata.jwks_uri === 'string' && metadata.jwks_uri.startsWith('https://')
      ? await fetchJson(metadata.jwks_uri, deps.httpGet)
      : undefined
  const keys = Array.isArray(jwks?.keys) ? (jwks.keys as unknown[]).filter(isObject) : []
  const candidates = keys.filter((k) => (kid === undefined ? true : k.kid === kid))
  if (candidates.length !== 1)
    throw new IssuerKeyUnavailable(`the issuer's JWKS has ${candidates.length} keys for kid ${JSON.stringify(kid)}`)
  return jwkKey(candidates[0]!)
}

/** A JWK (RFC 7517) as the key and the one alg it verifies; refuses private and unknown keys. */
export function jwkKey(jwk: Record<string, unknown>): JwsKey {
  if ('d' in jwk) throw new IssuerKeyUnavailable('the key is a private JWK')
  let key
  try {
    key = createPublicKey({ key: jwk as NodeJwk, format: 'jwk' })
  } catch {
    throw new IssuerKeyUnavailable('the JWK is not a public key')
  }
  const alg = jwsAlgorithmFor(key)
  if (!alg) throw new IssuerKeyUnavailable('the JWK is neither Ed25519 nor P-256')
  return { key, alg }
}

async function didKey(did: string, kid: string | undefined, iss: string, deps: IssuerKeyDeps): Promise<JwsKey> {
  const absolute = kid?.startsWith('#') ? `${did}${kid}` : kid
  if (!absolute?.startsWith(`${did}#`))
    throw new IssuerKeyUnavailable(`kid ${JSON.stringify(kid)} is not a key of ${iss}`)
  let doc: DidDocument
  try {
    doc = (await deps.resolver.resolve(did)).didDocument
  } catch (error) {
    throw new IssuerKeyUnavailable(`${did} could not be resolved: ${(error as Error).message}`)
  }
  const key = jwsKeyFor(doc, absolute, 'assertionMethod')
  if (!key) throw new IssuerKeyUnavailable(`${absolute} is not an assertion key of ${did}`)
  return key
}

async function fetchJson(url: string, httpGet: HttpGet): Promise<Record<string, unknown>> {
  let res
  try {
    res = await httpGet(url, { accept: 'application/json' })
  } catch (error) {
    throw new IssuerKeyUnavailable(`${url} could not be fetched: ${(error as Error).message}`)
  }
  if (res.status !== 200) throw new IssuerKeyUnavailable(`${url} answered HTTP ${res.status}`)
  if (res.body.byteLength > MAX_METADATA_BYTES)
    throw new IssuerKeyUnavailable(`${url} is larger than ${MAX_METADATA_BYTES} bytes`)
  try {
    const parsed: unknown = JSON.parse(Buffer.from(res.body).toString('utf8'))
    if (isObject(parsed)) return parsed
  } catch {
    // reported below
  }
  throw new IssuerKeyUnavailable(`${url} is not a JSON object`)
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
