import { createHash, createPublicKey, randomBytes, type KeyObject } from 'node:crypto'
import { clientAuthenticationAnonymous, type CallbackContext, type Jwk, type JwtSigner } from '@openid4vc/oauth2'
import * as jose from 'jose'
import type { DidResolver } from '../../did/did-resolver.js'
import { jwsKeyFor } from '../../did/jws-keys.js'

/** How the service finds the private key behind a JWT signer or a JWE recipient key it announced. */
export interface ServiceKeys {
  /** The private key that signs for `signer` (a did URL of a hosted did:web, or an announced JWK). */
  signingKey(signer: JwtSigner): Promise<KeyObject>
  /** The private key of an encryption JWK the service published (by its `kid`); undefined when unknown. */
  decryptionKey?(
    publicJwk: Jwk | undefined,
    protectedHeader: Record<string, unknown>,
  ): Promise<{ key: KeyObject; jwk: Jwk } | undefined>
}

/**
 * The callbacks @openid4vc/* calls for cryptography, on the service's side: node:crypto and jose
 * do every operation (RFC 7515 JWS, RFC 7516 JWE with ECDH-ES), and DID signers are resolved
 * through the service's resolver: a `did` signer verifies only with a key its document
 * authorizes for authentication (a holder's key proof, KB-JWT, VP) or assertion.
 */
export function serviceCallbacks(deps: { resolver: DidResolver; keys: ServiceKeys }): Omit<CallbackContext, 'fetch'> {
  return {
    hash: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
    generateRandom: (bytes) => randomBytes(bytes),
    clientAuthentication: clientAuthenticationAnonymous(),
    signJwt: async (signer, { header, payload }) => {
      const key = await deps.keys.signingKey(signer)
      const jwt = await new jose.SignJWT(payload as jose.JWTPayload)
        .setProtectedHeader(header as jose.JWTHeaderParameters)
        .sign(key)
      return { jwt, signerJwk: publicJwk(key) }
    },
    verifyJwt: async (signer, { compact }) => {
      const key = await verificationKey(deps.resolver, signer)
      if (!key) return { verified: false }
      const signerJwk = publicJwk(key)
      try {
        await jose.compactVerify(compact, key, { algorithms: [signer.alg] })
        return { verified: true, signerJwk }
      } catch {
        return { verified: false, signerJwk }
      }
    },
    encryptJwe: async (encryptor, data) => {
      const key = await jose.importJWK(encryptor.publicJwk as jose.JWK, encryptor.alg)
      let jwe = new jose.CompactEncrypt(new TextEncoder().encode(data)).setProtectedHeader({
        alg: encryptor.alg,
        enc: encryptor.enc,
        ...(encryptor.publicJwk.kid ? { kid: encryptor.publicJwk.kid } : {}),
      })
      if (encryptor.apu)
        jwe = jwe.setKeyManagementParameters({
          apu: jose.base64url.decode(encryptor.apu),
          ...(encryptor.apv ? { apv: jose.base64url.decode(encryptor.apv) } : {}),
        })
      else if (encryptor.apv) jwe = jwe.setKeyManagementParameters({ apv: jose.base64url.decode(encryptor.apv) })
      return { jwe: await jwe.encrypt(key), encryptionJwk: encryptor.publicJwk }
    },
    decryptJwe: async (jwe, options) => {
      if (!deps.keys.decryptionKey) return { decrypted: false }
      let header: Record<string, unknown>
      try {
        header = jose.decodeProtectedHeader(jwe) as Record<string, unknown>
      } catch {
        return { decrypted: false }
      }
      const found = await deps.keys.decryptionKey(options?.jwk, header)
      if (!found) return { decrypted: false }
      try {
        const { plaintext } = await jose.compactDecrypt(jwe, found.key)
        return { decrypted: true, decryptionJwk: found.jwk, payload: new TextDecoder().decode(plaintext) }
      } catch {
        return { decrypted: false, decryptionJwk: found.jwk }
      }
    },
  }
}

const exported = new WeakMap<KeyObject, Jwk>()

/** The public JWK of a key (private or public), without private members; exported once per key object. */
export function publicJwk(key: KeyObject): Jwk {
  let jwk = exported.get(key)
  if (!jwk) {
    const pub = key.type === 'private' ? createPublicKey(key) : key
    jwk = pub.export({ format: 'jwk' }) as Jwk
    exported.set(key, jwk)
  }
  return { ...jwk }
}

const imported = new Map<string, KeyObject>()
const IMPORTED_MAX = 1_000

/** A JWK signer's key as given (imported once per distinct JWK: an issuer's own access-token key comes back on every request); a DID signer's key from its resolved document (authentication, then assertion). */
async function verificationKey(resolver: DidResolver, signer: JwtSigner): Promise<KeyObject | undefined> {
  if (signer.method === 'jwk') {
    const text = JSON.stringify(signer.publicJwk)
    let key = imported.get(text)
    if (!key) {
      try {
        key = createPublicKey({ key: signer.publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' })
      } catch {
        return undefined
      }
      if (imported.size >= IMPORTED_MAX) imported.clear()
      imported.set(text, key)
    }
    return key
  }
  if (signer.method !== 'did') return undefined
  const did = signer.didUrl.split('#')[0]!
  let doc
  try {
    doc = (await resolver.resolve(did)).didDocument
  } catch {
    return undefined
  }
  const found = jwsKeyFor(doc, signer.didUrl, 'authentication') ?? jwsKeyFor(doc, signer.didUrl, 'assertionMethod')
  return found && found.alg === signer.alg ? found.key : undefined
}
