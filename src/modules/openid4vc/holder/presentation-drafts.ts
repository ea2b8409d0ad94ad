import { randomUUID } from 'node:crypto'
import type { Jwk } from '@openid4vc/oauth2'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import { VC_V1 } from '../../../shared/vc-contexts.js'
import { sha256Hasher } from '../../credentials/formats/sd-jwt-vc/sd-jwt-crypto.js'
import { presentationFrame } from './disclosure.js'
import type { PreparedJws } from './prepared-jws.js'

/** One presentation the holder finishes by signing `jws.signing_input`. */
export interface PresentationDraft {
  jws: PreparedJws
  /** How the signed JWS becomes the presentation: `sd-jwt`: appended as the KB-JWT; `vp-jwt`: it is the presentation. */
  assembly: { kind: 'sd-jwt'; prefix: string; key: Jwk } | { kind: 'vp-jwt' }
}

const encode = (part: object) => jose.base64url.encode(JSON.stringify(part))

/**
 * An SD-JWT VC presentation disclosing only the claims at `paths` (DCQL claim paths), with the
 * Key Binding JWT (RFC 9901 §4.3) for the verifier's nonce and audience: @sd-jwt/sd-jwt-vc builds
 * it and computes `sd_hash`; its signing input is captured for the holder's key to sign.
 */
export async function sdJwtDraft(credential: string, paths: Array<Array<string | number | null>>, kb: { aud: string; nonce: string; iat: number }): Promise<PresentationDraft> {
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
  const [header, payload] = signingInput.split('.').map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>)
  return { jws: { header: header!, payload: payload!, signing_input: signingInput }, assembly: { kind: 'sd-jwt', prefix: presented.slice(0, presented.length - signingInput.length - '.AA'.length), key } }
}

/** A VP-JWT (VC Data Model 1.1 §6.3.1) holding one JWT-VC, for the verifier's nonce and audience. */
export function vpJwtDraft(credential: string, holder: { did: string; kid: string; alg: string }, vp: { aud: string; nonce: string; iat: number }): PresentationDraft {
  const header = { alg: holder.alg, typ: 'JWT', kid: holder.kid }
  const payload = {
    iss: holder.did,
    aud: vp.aud,
    nonce: vp.nonce,
    iat: vp.iat,
    exp: vp.iat + 600,
    jti: `urn:uuid:${randomUUID()}`,
    vp: { '@context': [VC_V1], type: ['VerifiablePresentation'], holder: holder.did, verifiableCredential: [credential] },
  }
  return { jws: { header, payload, signing_input: `${encode(header)}.${encode(payload)}` }, assembly: { kind: 'vp-jwt' } }
}

/** The signed draft as the presentation the vp_token carries. */
export function assemble(draft: PresentationDraft, signedJws: string): string {
  return draft.assembly.kind === 'sd-jwt' ? `${draft.assembly.prefix}${signedJws}` : signedJws
}
