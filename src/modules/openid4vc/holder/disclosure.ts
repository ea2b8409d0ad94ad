import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { decodeCompactJws } from '../../../crypto/jws.js'
import { RESERVED_CLAIMS } from '../../credentials/formats/sd-jwt-vc/sd-jwt-vc-claims.js'
import { sha256Hasher } from '../../credentials/formats/sd-jwt-vc/sd-jwt-crypto.js'

export type ClaimPath = Array<string | number | null>

/**
 * What one presentation lets the verifier read, in the credential's DCQL claim space (OpenID4VP
 * 1.0 §7: the SD-JWT VC's claims, or a JWT-VC's `vc` object): `disclosed` the values as the
 * verifier reads them, `claims` the path of each (subject claims leaf by leaf, the issuer's
 * envelope claims whole), `subject_claims` how many of those paths are the holder's attributes.
 */
export interface Disclosure {
  claims: ClaimPath[]
  disclosed: Record<string, unknown>
  subject_claims: number
}

/** The SD-JWT VC presented with only the disclosures `paths` select (RFC 9901 §4.2.2), read back as a verifier reads it. */
export async function sdJwtDisclosure(credential: string, paths: ClaimPath[]): Promise<Disclosure> {
  const sd = new SDJwtVcInstance({ hasher: sha256Hasher })
  const presented = await sd.present(credential, presentationFrame(paths) as never)
  const disclosed = (await sd.getClaims(presented)) as Record<string, unknown>
  const envelope = new Set<string>(RESERVED_CLAIMS)
  const claims: ClaimPath[] = []
  let subject = 0
  for (const [name, value] of Object.entries(disclosed)) {
    if (envelope.has(name)) {
      claims.push([name])
      continue
    }
    const leaves = leafPaths(value, [name])
    subject += leaves.length
    claims.push(...leaves)
  }
  return { claims, disclosed, subject_claims: subject }
}

/** A JWT-VC inside a VP-JWT is sent whole: every claim of its `vc` object leaves, whatever was asked. */
export function jwtVcDisclosure(credential: string): Disclosure {
  const vc = (decodeCompactJws(credential)?.payload.vc ?? {}) as Record<string, unknown>
  const claims: ClaimPath[] = []
  let subject = 0
  for (const [name, value] of Object.entries(vc)) {
    if (name !== 'credentialSubject') {
      claims.push([name])
      continue
    }
    const leaves = leafPaths(value, [name])
    subject += leaves.filter((p) => p[1] !== 'id').length
    claims.push(...leaves)
  }
  return { claims, disclosed: vc, subject_claims: subject }
}

/**
 * DCQL claim paths as an @sd-jwt presentation frame: `["address","street"]` → `{address: {street: true}}`;
 * a path into an array discloses the array whole.
 */
export function presentationFrame(paths: ClaimPath[]): Record<string, unknown> {
  const frame: Record<string, unknown> = {}
  for (const path of paths) {
    let node = frame
    const end = path.findIndex((p) => typeof p !== 'string')
    const names = (end === -1 ? path : path.slice(0, end)) as string[]
    names.forEach((name, i) => {
      if (i === names.length - 1) node[name] = true
      else node = (node[name] = typeof node[name] === 'object' ? node[name] : {}) as Record<string, unknown>
    })
  }
  return frame
}

/** The paths of the leaves of a JSON value below `prefix`; arrays and scalars are leaves. */
function leafPaths(value: unknown, prefix: ClaimPath): ClaimPath[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix]
  const entries = Object.entries(value)
  if (entries.length === 0) return [prefix]
  return entries.flatMap(([key, inner]) => leafPaths(inner, [...prefix, key]))
}
