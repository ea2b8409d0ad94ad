/**
 * The test wallet's keys and the cryptographic callbacks @openid4vc/* asks a wallet for, written
 * only with jose, node:crypto and the DIF resolvers (did-resolver, key-did-resolver,
 * web-did-resolver): nothing here imports the service, so what the wallet accepts is what a
 * standard wallet would.
 */
import { createHash, randomBytes } from 'node:crypto'
import { clientAuthenticationNone, type CallbackContext, type Jwk, type JwtSigner } from '@openid4vc/oauth2'
import { Resolver } from 'did-resolver'
import * as jose from 'jose'
import { getResolver as keyDidResolver } from 'key-did-resolver'
import { base58btc } from 'multiformats/bases/base58'
import { getResolver as webDidResolver } from 'web-did-resolver'

export type WalletAlg = 'ES256' | 'EdDSA'

export interface WalletKey {
  alg: WalletAlg
  publicJwk: Jwk
  privateJwk: jose.JWK
  /** did:jwk of the public key (a DID any resolver derives from the key alone). */
  did: string
  /** The DID URL of its one verification method. */
  didUrl: string
}

export async function generateWalletKey(alg: WalletAlg = 'ES256'): Promise<WalletKey> {
  const { publicKey, privateKey } = await jose.generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
  })
  const publicJwk = (await jose.exportJWK(publicKey)) as Jwk
  const privateJwk = await jose.exportJWK(privateKey)
  const did = `did:jwk:${jose.base64url.encode(JSON.stringify(publicJwk))}`
  return { alg, publicJwk, privateJwk, did, didUrl: `${did}#0` }
}

const resolver = new Resolver({ ...keyDidResolver(), ...webDidResolver() })

/** The JWK of a DID URL's verification method, resolved the standard way (did:jwk decoded, did:key computed, did:web fetched over HTTPS). */
export async function resolveDidUrlJwk(didUrl: string): Promise<Jwk> {
  const did = didUrl.split('#')[0]!
  if (did.startsWith('did:jwk:'))
    return JSON.parse(new TextDecoder().decode(jose.base64url.decode(did.slice('did:jwk:'.length)))) as Jwk
  const { didDocument, didResolutionMetadata } = await resolver.resolve(did)
  if (!didDocument) throw new Error(`cannot resolve ${did}: ${didResolutionMetadata.error ?? 'no document'}`)
  const fragment = didUrl.slice(did.length)
  const method = (didDocument.verificationMethod ?? []).find((m) => m.id === didUrl || m.id === fragment)
  if (!method) throw new Error(`${didUrl} is not a verification method of ${did}`)
  if (method.publicKeyJwk) return method.publicKeyJwk as Jwk
  const multibase = method.publicKeyMultibase
  if (multibase) {
    const bytes = base58btc.decode(multibase)
    // Multikey: 0xed 0x01 is the ed25519-pub multicodec (W3C Controlled Identifiers, Multikey).
    if (bytes[0] === 0xed && bytes[1] === 0x01)
      return { kty: 'OKP', crv: 'Ed25519', x: jose.base64url.encode(bytes.slice(2)) }
    throw new Error(`${didUrl}: unsupported multikey`)
  }
  if (method.publicKeyBase58)
    return { kty: 'OKP', crv: 'Ed25519', x: jose.base64url.encode(base58btc.baseDecode(method.publicKeyBase58)) }
  throw new Error(`${didUrl}: no public key the wallet reads`)
}

async function signerJwk(signer: JwtSigner): Promise<Jwk> {
  if (signer.method === 'jwk') return signer.publicJwk
  if (signer.method === 'did') return resolveDidUrlJwk(signer.didUrl)
  throw new Error(`the test wallet does not verify ${signer.method} signers`)
}

const thumbprint = (jwk: Jwk) => jose.calculateJwkThumbprint(jwk as jose.JWK)

/**
 * A wallet's CallbackContext: signs with its own keys (found by the signer's public key),
 * verifies JWS with the signer's resolved key, encrypts to a verifier's JWK (ECDH-ES, RFC 7518)
 * and decrypts with its own keys.
 */
export function walletCallbacks(
  keys: WalletKey[],
  options: { clientId?: string; fetch?: typeof fetch } = {},
): CallbackContext {
  const privateFor = async (jwk: Jwk): Promise<WalletKey> => {
    const wanted = await thumbprint(jwk)
    for (const key of keys) if ((await thumbprint(key.publicJwk)) === wanted) return key
    throw new Error('the wallet holds no private key for this public key')
  }
  return {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    hash: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
    generateRandom: (bytes) => randomBytes(bytes),
    clientAuthentication: clientAuthenticationNone({ clientId: options.clientId ?? 'test-wallet' }),
    signJwt: async (signer, { header, payload }) => {
      const jwk = await signerJwk(signer)
      const key = await privateFor(jwk)
      const jwt = await new jose.SignJWT(payload as jose.JWTPayload)
        .setProtectedHeader(header as jose.JWTHeaderParameters)
        .sign(await jose.importJWK(key.privateJwk, signer.alg))
      return { jwt, signerJwk: jwk }
    },
    verifyJwt: async (signer, { compact }) => {
      let jwk: Jwk
      try {
        jwk = await signerJwk(signer)
      } catch {
        return { verified: false }
      }
      try {
        await jose.compactVerify(compact, await jose.importJWK(jwk as jose.JWK, signer.alg))
        return { verified: true, signerJwk: jwk }
      } catch {
        return { verified: false, signerJwk: jwk }
      }
    },
    encryptJwe: async (encryptor, data) => {
      const key = await jose.importJWK(encryptor.publicJwk as jose.JWK, encryptor.alg)
      const jwe = new jose.CompactEncrypt(new TextEncoder().encode(data)).setProtectedHeader({
        alg: encryptor.alg,
        enc: encryptor.enc,
        ...(encryptor.publicJwk.kid ? { kid: encryptor.publicJwk.kid } : {}),
      })
      const params = {
        ...(encryptor.apu ? { apu: jose.base64url.decode(encryptor.apu) } : {}),
        ...(encryptor.apv ? { apv: jose.base64url.decode(encryptor.apv) } : {}),
      }
      if (Object.keys(params).length) jwe.setKeyManagementParameters(params)
      return { jwe: await jwe.encrypt(key), encryptionJwk: encryptor.publicJwk }
    },
    decryptJwe: async (jwe, options) => {
      const candidates = options?.jwk ? [await privateFor(options.jwk)] : keys
      for (const key of candidates) {
        try {
          const { plaintext } = await jose.compactDecrypt(jwe, await jose.importJWK(key.privateJwk, 'ECDH-ES'))
          return { decrypted: true, decryptionJwk: key.publicJwk, payload: new TextDecoder().decode(plaintext) }
        } catch {
          // the next key
        }
      }
      return { decrypted: false }
    },
  }
}
