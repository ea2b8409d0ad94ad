/**
 * The hosted wallet's presentation drafts: what the service prepares, the holder's key signs
 * (here jose, standing for the holder's own client), and an independent library verifies —
 * @sd-jwt/sd-jwt-vc with its KB-JWT check, did-jwt-vc with key-did-resolver.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { Resolver } from 'did-resolver'
import { verifyPresentation } from 'did-jwt-vc'
import * as jose from 'jose'
import { getResolver as keyDidResolver } from 'key-did-resolver'
import { base58btc } from 'multiformats/bases/base58'
import { vpJwtDraft } from '../../src/modules/credentials/formats/jwt-vc-json/jwt-vc-json.holder.js'
import { sdJwtDraft } from '../../src/modules/credentials/formats/sd-jwt-vc/sd-jwt-vc.holder.js'
import { assemble } from '../../src/modules/openid4vc/holder/presentation-drafts.js'
import { capturingSigner } from '../../src/modules/openid4vc/holder/prepared-jws.js'

const hasher = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash('sha256')
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )
const signInput = async (input: string, key: jose.CryptoKey | jose.KeyObject) => {
  // The holder signs the prepared bytes as a JWS: jose over the same header and payload gives `input.signature`.
  const [h, p] = input.split('.')
  const jws = await new jose.CompactSign(jose.base64url.decode(p!))
    .setProtectedHeader(JSON.parse(Buffer.from(h!, 'base64url').toString()))
    .sign(key)
  assert.equal(jws.slice(0, input.length), input, 'jose re-encodes the same header and payload')
  return jws
}

describe('sdJwtDraft', () => {
  it('discloses only the asked claims and binds the KB-JWT to the nonce and audience', async () => {
    const issuerKey = generateKeyPairSync('ed25519')
    const holder = await jose.generateKeyPair('ES256', { extractable: true })
    const holderJwk = await jose.exportJWK(holder.publicKey)
    const issuer = new SDJwtVcInstance({
      hasher,
      hashAlg: 'sha-256',
      saltGenerator: () => randomBytes(16).toString('base64url'),
      signer: (data: string) => sign(null, Buffer.from(data), issuerKey.privateKey).toString('base64url'),
      signAlg: 'EdDSA',
    })
    const credential = await issuer.issue(
      {
        iss: 'did:example:issuer',
        iat: Math.floor(Date.now() / 1000),
        vct: 'https://issuer.example/vct/degree',
        cnf: { jwk: holderJwk },
        given_name: 'Ada',
        family_name: 'Lovelace',
        address: { city: 'London', street: 'St James' },
      } as never,
      { _sd: ['given_name', 'family_name', 'address'], address: { _sd: ['city', 'street'] } } as never,
    )
    const draft = await sdJwtDraft(credential, [['given_name'], ['address', 'city']], {
      aud: 'decentralized_identifier:did:web:verifier.example',
      nonce: 'n-123',
      iat: Math.floor(Date.now() / 1000),
    })
    assert.equal(draft.jws.header.typ, 'kb+jwt')
    assert.equal(draft.jws.header.alg, 'ES256')
    const presentation = assemble(draft, await signInput(draft.jws.signing_input, holder.privateKey))

    const verifier = new SDJwtVcInstance({
      hasher,
      verifier: (data: string, sig: string) =>
        verify(null, Buffer.from(data), issuerKey.publicKey, Buffer.from(sig, 'base64url')),
      kbVerifier: async (data: string, sig: string, payload: { cnf?: { jwk?: jose.JWK } }) => {
        const key = await jose.importJWK(payload.cnf!.jwk!, 'ES256')
        try {
          await jose.compactVerify(`${data}.${sig}`, key)
          return true
        } catch {
          return false
        }
      },
    })
    const verified = await verifier.verify(presentation, {
      requireKeyBindings: true,
      keyBindingNonce: 'n-123',
    } as never)
    const claims = verified.payload as Record<string, unknown>
    assert.equal(claims.given_name, 'Ada')
    assert.deepEqual(claims.address, { city: 'London' })
    assert.equal(claims.family_name, undefined, 'a claim nobody asked for stays undisclosed')
    assert.equal((verified.kb?.payload as { aud?: string }).aud, 'decentralized_identifier:did:web:verifier.example')

    const tampered = assemble(draft, `${draft.jws.signing_input}.${'A'.repeat(86)}`)
    await assert.rejects(verifier.verify(tampered, { requireKeyBindings: true, keyBindingNonce: 'n-123' } as never))
  })

  it('refuses a credential bound to no key', async () => {
    const issuerKey = generateKeyPairSync('ed25519')
    const issuer = new SDJwtVcInstance({
      hasher,
      hashAlg: 'sha-256',
      saltGenerator: () => 'c2FsdHNhbHRzYWx0',
      signer: (d: string) => sign(null, Buffer.from(d), issuerKey.privateKey).toString('base64url'),
      signAlg: 'EdDSA',
    })
    const unbound = await issuer.issue(
      { iss: 'did:example:i', iat: 1, vct: 'x', a: 1 } as never,
      { _sd: ['a'] } as never,
    )
    await assert.rejects(sdJwtDraft(unbound, [['a']], { aud: 'x', nonce: 'n', iat: 1 }), /bound to no key/)
  })
})

describe('vpJwtDraft', () => {
  it('is a VP-JWT did-jwt-vc verifies, resolving the holder by key-did-resolver', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
    const did = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...raw]))}`
    const kid = `${did}#${did.slice('did:key:'.length)}`
    const iat = Math.floor(Date.now() / 1000)
    const vc = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiableCredential'],
      credentialSubject: { name: 'Ada' },
    }
    const credential = await new jose.SignJWT({ vc, sub: did, nbf: iat })
      .setProtectedHeader({ alg: 'EdDSA', kid })
      .setIssuer(did)
      .sign(privateKey)
    const draft = vpJwtDraft(
      credential,
      { did, kid, alg: 'EdDSA' },
      { aud: 'did:web:verifier.example', nonce: 'n-9', iat },
    )
    const vp = assemble(draft, await signInput(draft.jws.signing_input, privateKey))
    const verified = await verifyPresentation(vp, new Resolver(keyDidResolver()), {
      audience: 'did:web:verifier.example',
      challenge: 'n-9',
    } as never)
    assert.equal(verified.issuer, did)
    assert.deepEqual(
      (verified.verifiablePresentation as { verifiableCredential: unknown[] }).verifiableCredential.length,
      1,
    )
    await assert.rejects(
      verifyPresentation(vp, new Resolver(keyDidResolver()), { audience: 'did:web:other.example' } as never),
    )
  })
})

describe('capturingSigner', () => {
  it('keeps what the library asked to sign and signs nothing', async () => {
    const capture = capturingSigner()
    const out = await capture.signJwt(
      { method: 'did', didUrl: 'did:example:1#k', alg: 'EdDSA' },
      { header: { alg: 'EdDSA', kid: 'did:example:1#k' }, payload: { nonce: 'x' } },
    )
    const prepared = capture.prepared()
    assert.equal(out.jwt, `${prepared.signing_input}.AA`)
    assert.deepEqual(JSON.parse(Buffer.from(prepared.signing_input.split('.')[1]!, 'base64url').toString()), {
      nonce: 'x',
    })
  })
})
