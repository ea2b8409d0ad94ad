import type { Jwk } from '@openid4vc/oauth2'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import {
  leafPaths,
  type ClaimPath,
  type Disclosure,
  type HolderFace,
  type HolderProofClaims,
  type JwsDraft,
} from '../holder-face.js'
import { sha256Hasher } from './sd-jwt-crypto.js'
import { RESERVED_CLAIMS, SD_JWT_VC } from './sd-jwt-vc-claims.js'

/** The hosted wallet's SD-JWT VC: matched by `vct` and its claims, presented with the asked disclosures and a KB-JWT. */
export const sdJwtVcHolder: HolderFace = {
  async dcqlCredential(item) {
    const claims = (await new SDJwtVcInstance({ hasher: sha256Hasher }).getClaims(item)) as Record<string, unknown>
    if (typeof claims.vct !== 'string') return undefined
    return {
      credential_format: SD_JWT_VC,
      vct: claims.vct,
      claims: claims as never,
      cryptographic_holder_binding: claims.cnf !== undefined,
    }
  },
  disclosure: (item, paths) => sdJwtDisclosure(item, paths),
  draft: (item, paths, ctx) => sdJwtDraft(item, paths, ctx.proof),
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

/**
 * An SD-JWT VC presentation disclosing only the claims at `paths` (DCQL claim paths), with the
 * Key Binding JWT (RFC 9901 §4.3) for the verifier's nonce and audience: @sd-jwt/sd-jwt-vc builds
 * it and computes `sd_hash`; its signing input is captured for the holder's key to sign.
 */
export async function sdJwtDraft(credential: string, paths: ClaimPath[], kb: HolderProofClaims): Promise<JwsDraft> {
  const claims = (await new SDJwtVcInstance({ hasher: sha256Hasher }).getClaims(credential)) as { cnf?: { jwk?: Jwk } }
  const key = claims.cnf?.jwk
  if (!key) throw new Error('the credential is bound to no key (cnf.jwk)')
  const alg = key.kty === 'OKP' ? 'EdDSA' : 'ES256'
  let signingInput: string | undefined
  const holder = new SDJwtVcInstance({
    hasher: sha256Hasher,
    kbSignAlg: alg,
    kbSigner: (data: string) => {
      signingInput = data
      return 'AA'
    },
  })
  const presented = await holder.present(credential, presentationFrame(paths) as never, { kb: { payload: kb } })
  if (!signingInput) throw new Error('the SD-JWT library asked for no key binding signature')
  const [header, payload] = signingInput
    .split('.')
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>)
  return {
    jws: { header: header!, payload: payload!, signing_input: signingInput },
    assembly: {
      kind: 'sd-jwt',
      prefix: presented.slice(0, presented.length - signingInput.length - '.AA'.length),
      key,
    },
  }
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
