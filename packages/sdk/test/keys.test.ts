/**
 * The holder's keys and signatures without a service: did:key names read back by the DIF
 * resolver, the RFC 8037 Ed25519 example reproduced byte for byte, ES256 checked by jose.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import * as jose from 'jose'
import {
  completeJws,
  createKeyProof,
  exportHolderKey,
  generateHolderKey,
  importHolderKey,
  parseQrPayload,
  signVpJwt,
} from '@credential-service/sdk'
import { didKeyJwk, verifyKeyProof, verifyVpJwt } from './support/independent.js'

// RFC 8037 Appendix A.1 (the Ed25519 key) and A.4 (its JWS over "Example of Ed25519 signing").
const RFC8037_KEY = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
}
const RFC8037_SIGNING_INPUT = 'eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc'
const RFC8037_SIGNATURE = 'hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg'

describe('holder keys', () => {
  for (const [alg, prefix] of [
    ['EdDSA', 'did:key:z6Mk'],
    ['ES256', 'did:key:zDn'],
  ] as const) {
    it(`${alg}: the did:key (${prefix}…) resolves, with key-did-resolver, to the key's public JWK`, async () => {
      const k = await generateHolderKey({ alg })
      assert.ok(k.did.startsWith(prefix), k.did)
      assert.equal(k.kid, `${k.did}#${k.did.slice('did:key:'.length)}`)
      const resolved = await didKeyJwk(k.kid)
      assert.equal(resolved.x, k.publicJwk.x)
      assert.equal(resolved.y, k.publicJwk.y)
      assert.equal(k.privateKey.extractable, false)
    })

    it(`${alg}: export and import keep the DID, and the imported key's JWS verifies with the exported public key (jose)`, async () => {
      const k = await generateHolderKey({ alg, extractable: true })
      const saved = await exportHolderKey(k)
      assert.equal(saved.did, k.did)
      assert.equal(typeof saved.privateJwk.d, 'string')
      const again = await importHolderKey(saved.privateJwk)
      assert.equal(again.did, k.did)
      assert.equal(again.alg, alg)
      const input = `${jose.base64url.encode(JSON.stringify({ alg, kid: k.kid }))}.${jose.base64url.encode('payload')}`
      const jws = await completeJws(again, input)
      const { payload } = await jose.compactVerify(jws, await jose.importJWK(k.publicJwk as jose.JWK, alg))
      assert.equal(new TextDecoder().decode(payload), 'payload')
      await assert.rejects(exportHolderKey(again), /not extractable/)
    })
  }

  for (const alg of ['EdDSA', 'ES256'] as const) {
    it(`${alg}: signVpJwt verifies with did-jwt-vc, createKeyProof with jose (keys resolved from the did:key)`, async () => {
      const k = await generateHolderKey({ alg })
      const audience = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'
      const vp = await signVpJwt(k, { audience, nonce: 'nonce-1', credentials: [], expiresInSeconds: 60 })
      const verified = await verifyVpJwt(vp, audience)
      assert.equal(verified.issuer, k.did)
      assert.equal(verified.payload.nonce, 'nonce-1')
      assert.equal(verified.payload.exp! - verified.payload.iat!, 60)
      assert.deepEqual(verified.verifiablePresentation.holder, k.did)
      await assert.rejects(verifyVpJwt(vp, 'did:key:z6MkotherAudience'))

      const proof = await createKeyProof(k, { credentialIssuer: 'https://issuer.example/issuers/1', nonce: 'c-nonce' })
      const { payload, protectedHeader } = await verifyKeyProof(proof, { audience: 'https://issuer.example/issuers/1' })
      assert.deepEqual([protectedHeader.kid, payload.nonce, payload.iss], [k.kid, 'c-nonce', undefined])
    })
  }

  it('completeJws reproduces the RFC 8037 A.4 Ed25519 signature', async () => {
    const k = await importHolderKey(RFC8037_KEY)
    assert.equal(k.alg, 'EdDSA')
    assert.equal(await completeJws(k, RFC8037_SIGNING_INPUT), `${RFC8037_SIGNING_INPUT}.${RFC8037_SIGNATURE}`)
  })

  it('completeJws refuses a prepared header of another algorithm; import refuses keys it cannot use', async () => {
    const k = await importHolderKey(RFC8037_KEY)
    const es256Input = `${jose.base64url.encode(JSON.stringify({ alg: 'ES256' }))}.e30`
    await assert.rejects(completeJws(k, es256Input), /asks for ES256; this key signs EdDSA/)
    await assert.rejects(
      importHolderKey({ kty: 'EC', crv: 'secp256k1', x: 'a', y: 'b', d: 'c' }),
      /Unsupported key: kty EC, crv secp256k1/,
    )
    await assert.rejects(importHolderKey({ kty: 'OKP', crv: 'Ed25519', x: RFC8037_KEY.x }), /no private key/)
  })
})

describe('parseQrPayload', () => {
  it('tells the four payloads apart and answers what to pass on', () => {
    const offer =
      'openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fsvc.example%2Fissuers%2Fa%2Foid4vci%2Foffers%2Fb'
    assert.deepEqual(parseQrPayload(offer), { kind: 'oid4vci-offer', value: offer, raw: offer })
    const vp = 'openid4vp://?client_id=x&request_uri=https%3A%2F%2Fsvc.example%2Fr'
    assert.equal(parseQrPayload(` ${vp}\n`).kind, 'oid4vp-request')
    const specOffer = { type: 'credential-offer', version: 1, offer_id: 'off_1', issuer_did: 'did:key:z6Mk' }
    assert.deepEqual(parseQrPayload(JSON.stringify(specOffer)), { kind: 'spec-offer', value: 'off_1', raw: specOffer })
    const specRequest = { type: 'presentation-request', version: 1, request_id: 'req_1', nonce: 'n' }
    assert.deepEqual(parseQrPayload(JSON.stringify(specRequest)), {
      kind: 'spec-request',
      value: 'req_1',
      raw: specRequest,
    })
  })

  it('refuses what is not a payload of this service, and points short URLs to resolveQrPayload', () => {
    assert.throws(() => parseQrPayload('https://example.com/'), /Not a QR payload/)
    assert.throws(() => parseQrPayload('{"type":"presentation-request"}'), /request_id/)
    assert.throws(() => parseQrPayload('{not json'), /does not parse/)
    assert.throws(() => parseQrPayload('https://svc.example/api/qr/resolve/abc123'), /resolveQrPayload/)
  })
})
