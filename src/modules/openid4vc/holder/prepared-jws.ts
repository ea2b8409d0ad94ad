import { createPublicKey, type JsonWebKey } from 'node:crypto'
import type { Jwk, SignJwtCallback } from '@openid4vc/oauth2'
import * as jose from 'jose'
import { ValidationError } from '../../../errors.js'
import type { PreparedJws } from '../../credentials/formats/holder-face.js'
import type { DidResolver } from '../../did/did-resolver.js'
import { JwsRejected, verifyDidJws } from '../../did/did-jws.js'
import { methodsFor } from '../../did/verification-keys.js'
import { jwsKeyOfMethod } from '../../did/jws-keys.js'

export type { PreparedJws }

/**
 * A signJwt callback that signs nothing: it keeps the header and payload a protocol library
 * (@openid4vc/*) built, so the holder can sign them with a key the service never holds.
 */
export function capturingSigner(): { signJwt: SignJwtCallback; prepared(): PreparedJws } {
  let taken: PreparedJws | undefined
  return {
    signJwt: (signer, { header, payload }) => {
      const encode = (part: object) => jose.base64url.encode(JSON.stringify(part))
      const signingInput = `${encode(header)}.${encode(payload)}`
      taken = { header, payload, signing_input: signingInput }
      const signerJwk = signer.method === 'jwk' ? signer.publicJwk : ({} as Jwk)
      // A placeholder signature: the library only passes the JWS on, and it is discarded.
      return { jwt: `${signingInput}.AA`, signerJwk }
    },
    prepared: () => {
      if (!taken) throw new Error('the protocol library asked for no signature')
      return taken
    },
  }
}

/** The holder's authentication key for one of `algs` (JWS alg names), as a DID URL and a public JWK. */
export async function holderSigningKey(
  resolver: DidResolver,
  holderDid: string,
  algs: readonly string[],
): Promise<{ kid: string; alg: string; jwk: Jwk } | undefined> {
  const doc = (await resolver.resolve(holderDid)).didDocument
  for (const method of methodsFor(doc, 'authentication')) {
    const key = jwsKeyOfMethod(method)
    if (key && algs.includes(key.alg))
      return { kid: method.id as string, alg: key.alg, jwk: key.key.export({ format: 'jwk' }) as Jwk }
  }
  return undefined
}

/**
 * The holder's JWS over exactly the prepared signing input, verified before it is sent on: by
 * `key` when given (the key an SD-JWT VC is bound to), else by the DID key its `kid` names (an
 * authentication key of the holder's own DID), else by the `jwk` the prepared header carries
 * (taken from the holder's DID document when it was prepared).
 */
export async function checkHolderJws(
  resolver: DidResolver,
  holderDid: string,
  prepared: PreparedJws,
  jws: string,
  field: string,
  key?: Jwk,
): Promise<void> {
  const refused = (why: string) => new ValidationError(`${field} is refused: ${why}`, { details: { field } })
  if (!jws.startsWith(`${prepared.signing_input}.`) || jws.split('.').length !== 3)
    throw refused('it must be a compact JWS over exactly the prepared signing_input')
  if (key === undefined && typeof prepared.header.kid === 'string') {
    try {
      const verified = await verifyDidJws(resolver, jws, 'authentication')
      if (verified.did !== holderDid) throw refused(`it is signed by ${verified.did}, not by the holder ${holderDid}`)
    } catch (error) {
      if (error instanceof JwsRejected) throw refused(error.message)
      throw error
    }
    return
  }
  try {
    const publicKey = createPublicKey({ key: (key ?? prepared.header.jwk) as JsonWebKey, format: 'jwk' })
    await jose.compactVerify(jws, publicKey, { algorithms: [String(prepared.header.alg)] })
  } catch {
    throw refused('the signature does not verify with the prepared key')
  }
}
