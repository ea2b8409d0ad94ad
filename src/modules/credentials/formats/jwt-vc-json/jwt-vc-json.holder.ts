import { randomUUID } from 'node:crypto'
import * as jose from 'jose'
import { decodeCompactJws } from '../../../../crypto/jws.js'
import { VC_V1 } from '../../../../shared/vc-contexts.js'
import {
  leafPaths,
  type ClaimPath,
  type Disclosure,
  type HolderFace,
  type HolderProofClaims,
  type JwsDraft,
} from '../holder-face.js'
import { JWT_VC_JSON } from './jwt-vc-json-id.js'

/** The hosted wallet's JWT-VC: matched by its `vc` object, sent whole inside a VP-JWT the holder's DID signs. */
export const jwtVcJsonHolder: HolderFace = {
  async dcqlCredential(item) {
    const vc = decodeCompactJws(item)?.payload.vc as Record<string, unknown> | undefined
    if (!vc) return undefined
    return {
      credential_format: JWT_VC_JSON,
      type: asStrings(vc.type),
      claims: vc as never,
      cryptographic_holder_binding: true,
    }
  },
  disclosure: async (item) => jwtVcDisclosure(item),
  draft: async (item, _paths, ctx) => vpJwtDraft(item, await ctx.holderKey(), ctx.proof),
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

const encode = (part: object) => jose.base64url.encode(JSON.stringify(part))

/** A VP-JWT (VC Data Model 1.1 §6.3.1) holding one JWT-VC, for the verifier's nonce and audience. */
export function vpJwtDraft(
  credential: string,
  holder: { did: string; kid: string; alg: string },
  vp: HolderProofClaims,
): JwsDraft {
  const header = { alg: holder.alg, typ: 'JWT', kid: holder.kid }
  const payload = {
    iss: holder.did,
    aud: vp.aud,
    nonce: vp.nonce,
    iat: vp.iat,
    exp: vp.iat + 600,
    jti: `urn:uuid:${randomUUID()}`,
    vp: {
      '@context': [VC_V1],
      type: ['VerifiablePresentation'],
      holder: holder.did,
      verifiableCredential: [credential],
    },
  }
  return {
    jws: { header, payload, signing_input: `${encode(header)}.${encode(payload)}` },
    assembly: { kind: 'vp-jwt' },
  }
}

const asStrings = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string'
      ? [value]
      : []
