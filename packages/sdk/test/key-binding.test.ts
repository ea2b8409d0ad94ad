/**
 * SD-JWT key binding and did:jwk, checked by other implementations: @sd-jwt/sd-jwt-vc issues an
 * SD-JWT VC bound to the holder's key and verifies the presentation the SDK's KB-JWT completes
 * (RFC 9901 §4.3, sd_hash and nonce included); jose reads the did:jwk's key.
 */
import assert from 'node:assert/strict'
import { createHash, sign, verify } from 'node:crypto'
import { describe, it } from 'node:test'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import { generateHolderKey, holderDidJwk, signKbJwt, type HolderAlg } from '@credential-service/sdk'

const hasher = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash('sha256')
      .update(typeof data === 'string' ? data : new Uint8Array(data))
      .digest(),
  )
const p1363 = { dsaEncoding: 'ieee-p1363' as const }

/** An ES256 issuer and a library instance that issues and verifies with it. */
async function sdJwtLibrary() {
  const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true })
  const issuerPublic = await jose.exportJWK(publicKey)
  const issuerPrivate = await jose.exportJWK(privateKey)
  const verifyWith = (jwk: jose.JWK, data: string, signature: string) =>
    verify(
      jwk.kty === 'OKP' ? null : 'sha256',
      Buffer.from(data),
      { key: jwk as never, format: 'jwk', ...p1363 },
      Buffer.from(signature, 'base64url'),
    )
  return new SDJwtVcInstance({
    hasher,
    hashAlg: 'sha-256',
    saltGenerator: () => jose.base64url.encode(crypto.getRandomValues(new Uint8Array(16))),
    signAlg: 'ES256',
    signer: (data: string) =>
      sign('sha256', Buffer.from(data), { key: issuerPrivate as never, format: 'jwk', ...p1363 }).toString('base64url'),
    verifier: (data: string, signature: string) => verifyWith(issuerPublic, data, signature),
    kbVerifier: (data: string, signature: string, payload) =>
      verifyWith((payload as { cnf: { jwk: jose.JWK } }).cnf.jwk, data, signature),
  })
}

describe('key binding and did:jwk', () => {
  for (const alg of ['EdDSA', 'ES256'] as HolderAlg[]) {
    it(`${alg}: signKbJwt completes a presentation @sd-jwt/sd-jwt-vc verifies with its nonce; another nonce fails`, async () => {
      const holder = await generateHolderKey({ alg })
      const sdjwt = await sdJwtLibrary()
      const credential = await sdjwt.issue(
        {
          iss: 'https://issuer.example',
          iat: Math.floor(Date.now() / 1000),
          vct: 'https://issuer.example/vct/resident',
          cnf: { jwk: holder.publicJwk },
          given_name: 'Erika',
          family_name: 'Mustermann',
        },
        { _sd: ['given_name', 'family_name'] },
      )
      const presentation = await sdjwt.present(credential, { given_name: true })
      const bound = await signKbJwt(holder, { presentation, audience: 'did:web:verifier.example', nonce: 'kb-nonce' })
      const result = await sdjwt.verify(bound, { keyBindingNonce: 'kb-nonce', disableStatusVerification: true })
      assert.equal(result.payload.given_name, 'Erika')
      assert.equal(result.payload.family_name, undefined)
      assert.equal(result.kb?.payload.aud, 'did:web:verifier.example')
      await assert.rejects(sdjwt.verify(bound, { keyBindingNonce: 'other-nonce', disableStatusVerification: true }))
      // sd_hash binds the KB-JWT to the disclosures chosen: moved onto another presentation, it fails.
      const other = await sdjwt.present(credential, { family_name: true })
      await assert.rejects(
        sdjwt.verify(`${other}${bound.slice(presentation.length)}`, {
          keyBindingNonce: 'kb-nonce',
          disableStatusVerification: true,
        }),
      )
    })
  }

  it('holderDidJwk carries the public key: a JWS by the key verifies with the JWK read from the DID', async () => {
    const holder = await generateHolderKey({ alg: 'ES256' })
    const did = holderDidJwk(holder)
    assert.match(did, /^did:jwk:ey/)
    const jwk = JSON.parse(new TextDecoder().decode(jose.base64url.decode(did.slice('did:jwk:'.length)))) as jose.JWK
    assert.equal(jwk.d, undefined)
    const jws = await new jose.CompactSign(new TextEncoder().encode('hello'))
      .setProtectedHeader({ alg: 'ES256' })
      .sign(holder.privateKey)
    assert.equal(
      new TextDecoder().decode((await jose.compactVerify(jws, await jose.importJWK(jwk, 'ES256'))).payload),
      'hello',
    )
  })
})
