/**
 * (c) DIF Well Known DID Configuration v1.0
 * (https://identity.foundation/.well-known/resources/did-configuration/): the origin publishes
 * `/.well-known/did-configuration.json`, a DID Configuration Resource whose `linked_dids` hold
 * Domain Linkage Credentials. Only the JSON Web Token proof format is verified here (the format
 * this service issues and verifies everywhere); Linked Data Proof entries are skipped.
 *
 * "DID Configuration Resource Verification" as applied to a JWT entry:
 * - the JWS verifies (EdDSA) with a key the DID document lists under `assertionMethod`, the DID
 *   being the part of the header `kid` before `#` (resolved like `GET /api/did/:did`);
 * - `iss`, `sub`, `vc.credentialSubject.id` (and `vc.issuer` when present) are all the DID;
 * - `vc.type` includes DomainLinkageCredential; `vc.@context` includes the v1 context;
 * - `vc.credentialSubject.origin` is the origin the resource was requested from;
 * - `nbf` and `exp` are present (issuanceDate / expirationDate are required) and now lies
 *   between them, within a minute's leeway; the credential carries no identifier (`jti`,
 *   `vc.id`) and the header no `typ`, as the spec requires of Domain Linkage Credentials in JWT
 *   form.
 */
import { decodeCompactJws } from '../../crypto/jws.js'
import { JwsRejected, JwtClaimRejected, verifyDidJws } from '../did/did-jws.js'
import type { DidResolver } from '../did/did-resolver.js'
import { normalizeDid } from '../did/did-normalize.js'
import { proofFailure } from './domain-proofs.js'

export const DID_CONFIGURATION_CONTEXT = 'https://identity.foundation/.well-known/did-configuration/v1'
/** Entries looked at: a configuration is a short list of the origin's DIDs. */
const MAX_LINKED_DIDS = 100
/** Tolerated clock difference on `nbf` and `exp` (RFC 7519 §4.1.4-5 allow "some small leeway"). */
const LEEWAY_SECONDS = 60

export interface VerifiedLinkage {
  /** `exp` of the credential: the linkage is proven until then. */
  expiresAt: Date
  kid: string
}

/**
 * Verifies that the configuration document links `did` to `origin` (`https://<domain>`).
 * Throws a 422 proof failure naming the first problem of the first credential issued by the DID.
 */
export async function verifyDidConfiguration(options: {
  resolver: DidResolver
  document: unknown
  did: string
  origin: string
  url: string
  now: Date
}): Promise<VerifiedLinkage> {
  const { document, did, url } = options
  if (!isRecord(document) || !Array.isArray(document.linked_dids)) {
    throw invalid(
      'invalid_configuration',
      `${url} is not a DID Configuration Resource (an object with a linked_dids array)`,
    )
  }
  if (!includesValue(document['@context'], DID_CONFIGURATION_CONTEXT)) {
    throw invalid('invalid_configuration', `${url} lacks the @context ${DID_CONFIGURATION_CONTEXT}`)
  }
  const candidates = document.linked_dids
    .slice(0, MAX_LINKED_DIDS)
    .filter((entry): entry is string => typeof entry === 'string' && issuerOf(entry) === did)
  if (candidates.length === 0) {
    throw invalid('did_not_linked', `${url} holds no Domain Linkage Credential in JWT form issued by ${did}`)
  }
  let firstProblem = ''
  for (const jwt of candidates) {
    try {
      return await verifyLinkageCredential(jwt, options)
    } catch (error) {
      if (!(error instanceof LinkageRejected)) throw error
      firstProblem ||= error.message
    }
  }
  throw invalid(
    'invalid_linkage_credential',
    `The Domain Linkage Credential of ${did} at ${url} is not valid: ${firstProblem}`,
  )
}

class LinkageRejected extends Error {}

async function verifyLinkageCredential(
  jwt: string,
  options: { resolver: DidResolver; did: string; origin: string; now: Date },
): Promise<VerifiedLinkage> {
  const { did } = options
  // jose checks nbf and exp with the signature; a lifetime problem is reported after the checks
  // that say whether this is the DID's credential for this origin at all.
  let verified
  let lifetime: JwtClaimRejected | undefined
  try {
    verified = await verifyDidJws(options.resolver, jwt, 'assertionMethod', {
      currentDate: options.now,
      clockTolerance: LEEWAY_SECONDS,
      requiredClaims: ['nbf', 'exp'],
    })
  } catch (error) {
    if (error instanceof JwtClaimRejected) [lifetime, verified] = [error, error.jws]
    else if (error instanceof JwsRejected) throw new LinkageRejected(error.message)
    else throw error
  }
  const { payload } = verified
  const reject = (why: string): never => {
    throw new LinkageRejected(why)
  }
  if (sameDid(verified.did) !== did) reject(`it is signed with a key of ${verified.did}, not of ${did}`)
  if (verified.header.typ !== undefined) reject('the JWT header must not carry typ (JSON Web Token Proof Format)')
  if (sameDid(payload.iss) !== did) reject('iss is not the DID')
  if (sameDid(payload.sub) !== did) reject('sub is not the DID')
  const vc = payload.vc
  if (!isRecord(vc)) reject('the vc claim is missing')
  const credential = vc as Record<string, unknown>
  if (!includesValue(credential.type, 'DomainLinkageCredential'))
    reject('vc.type does not include DomainLinkageCredential')
  if (!includesValue(credential['@context'], DID_CONFIGURATION_CONTEXT))
    reject(`vc.@context does not include ${DID_CONFIGURATION_CONTEXT}`)
  if (credential.issuer !== undefined) {
    const issuer = isRecord(credential.issuer) ? credential.issuer.id : credential.issuer
    if (sameDid(issuer) !== did) reject('vc.issuer is not the DID')
  }
  if (payload.jti !== undefined || credential.id !== undefined)
    reject('a Domain Linkage Credential must not carry an id (jti or vc.id)')
  const subject = credential.credentialSubject
  if (!isRecord(subject)) reject('vc.credentialSubject must be one object')
  const { id, origin } = subject as Record<string, unknown>
  if (sameDid(id) !== did) reject('vc.credentialSubject.id is not the DID')
  if (typeof origin !== 'string') reject('vc.credentialSubject.origin is missing')
  const claimed = originOf(origin as string)
  if (claimed !== options.origin)
    reject(`vc.credentialSubject.origin is ${claimed ?? 'not an origin'}, not ${options.origin}`)
  const { nbf, exp } = payload as { nbf: number; exp: number }
  if (lifetime?.claim === 'nbf')
    reject(
      lifetime.reason === 'check_failed'
        ? `it is not valid before ${new Date(nbf * 1000).toISOString()}`
        : 'nbf (the issuance date) is missing',
    )
  if (lifetime?.claim === 'exp')
    reject(
      lifetime.reason === 'check_failed'
        ? `it expired at ${new Date(exp * 1000).toISOString()}`
        : 'exp (the expiration date) is missing',
    )
  if (lifetime) reject(lifetime.message)
  return { expiresAt: new Date(exp * 1000), kid: verified.kid }
}

/**
 * The origin a credential names. The spec's JSON-LD examples write it with the scheme
 * (`https://identity.foundation`), its JWT example without (`identity.foundation`): a bare
 * host is read as https. Anything beyond scheme, host and port makes it no origin.
 */
export function originOf(value: string): string | undefined {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`
  try {
    const url = new URL(text)
    if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
      return undefined
    if (/\/./.test(text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''))) return undefined
    return url.origin
  } catch {
    return undefined
  }
}

/** The DID of an entry's `iss`, before verifying: picks the candidates. */
function issuerOf(jwt: string): string | undefined {
  return sameDid(decodeCompactJws(jwt)?.payload.iss)
}

function sameDid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  try {
    return normalizeDid(value)
  } catch {
    return undefined
  }
}

const invalid = (reason: 'invalid_configuration' | 'did_not_linked' | 'invalid_linkage_credential', message: string) =>
  proofFailure('did_configuration', reason, message)

function includesValue(field: unknown, wanted: string): boolean {
  return field === wanted || (Array.isArray(field) && field.includes(wanted))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
