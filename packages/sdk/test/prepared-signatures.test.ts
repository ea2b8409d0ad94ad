/**
 * completePrepared, the holder's answer to what the hosted wallet prepares: a JWS signing input is
 * completed as a compact JWS, bytes for a COSE signature (an mdoc's device signature) are signed
 * as they are and answered with the raw ES256 signature r||s, checked here with node:crypto.
 */
import assert from 'node:assert/strict'
import { createPublicKey, randomBytes, verify } from 'node:crypto'
import { describe, it } from 'node:test'
import * as jose from 'jose'
import { completePrepared, completePreparedFor, generateHolderKey } from '@credential-service/sdk'

describe('completePrepared', () => {
  it('signs the bytes of a COSE to_be_signed as they are: a 64-byte r||s ES256 signature that node:crypto verifies', async () => {
    const k = await generateHolderKey({ alg: 'ES256' })
    const bytes = randomBytes(300)
    const answer = await completePrepared(k, { cose: { alg: 'ES256', to_be_signed: bytes.toString('base64url') } })
    const signature = Buffer.from(answer, 'base64url')
    assert.equal(signature.length, 64)
    const key = createPublicKey({ key: k.publicJwk as never, format: 'jwk' })
    assert.ok(verify('sha256', bytes, { key, dsaEncoding: 'ieee-p1363' }, signature), 'signed over exactly the bytes')
    const other = Buffer.from(bytes)
    other.writeUInt8(other.readUInt8(0) ^ 1, 0)
    assert.ok(!verify('sha256', other, { key, dsaEncoding: 'ieee-p1363' }, signature), 'not over other bytes')
  })

  it('refuses a COSE signature with an Ed25519 key or of another algorithm', async () => {
    const ed = await generateHolderKey({ alg: 'EdDSA' })
    await assert.rejects(
      completePrepared(ed, { cose: { alg: 'ES256', to_be_signed: 'AAEC' } }),
      /asks for ES256; this key signs EdDSA/,
    )
    const p256 = await generateHolderKey({ alg: 'ES256' })
    await assert.rejects(completePrepared(p256, { cose: { alg: 'ES384', to_be_signed: 'AAEC' } }), /asks for ES384/)
  })

  it('refuses to sign COSE bytes that name another key than its own (the credential is bound to that one)', async () => {
    const mine = await generateHolderKey({ alg: 'ES256' })
    const theirs = await generateHolderKey({ alg: 'ES256' })
    await assert.rejects(
      completePrepared(mine, { cose: { alg: 'ES256', to_be_signed: 'AAEC', key: { ...theirs.publicJwk } } }),
      /bound to another device key/,
    )
    const signed = await completePrepared(mine, {
      cose: { alg: 'ES256', to_be_signed: 'AAEC', key: { ...mine.publicJwk } },
    })
    assert.equal(Buffer.from(signed, 'base64url').length, 64)
  })

  it('completes a prepared JWS signing input as before', async () => {
    const k = await generateHolderKey({ alg: 'ES256' })
    const signingInput = `${jose.base64url.encode(JSON.stringify({ alg: 'ES256', typ: 'kb+jwt' }))}.${jose.base64url.encode('{"nonce":"n"}')}`
    const jws = await completePrepared(k, { signing_input: signingInput })
    assert.ok(jws.startsWith(`${signingInput}.`))
    const { payload } = await jose.compactVerify(jws, await jose.importJWK(k.publicJwk as jose.JWK, 'ES256'))
    assert.deepEqual(JSON.parse(new TextDecoder().decode(payload)), { nonce: 'n' })
  })
})

describe('completePreparedFor', () => {
  it("signs a COSE device signature with the device key and a JWS with the holder's key", async () => {
    const holder = await generateHolderKey({ alg: 'EdDSA' })
    const device = await generateHolderKey({ alg: 'ES256' })
    const bytes = randomBytes(100)
    const cose = await completePreparedFor(
      { holder, device },
      { cose: { alg: 'ES256', to_be_signed: bytes.toString('base64url') } },
    )
    const deviceKey = createPublicKey({ key: device.publicJwk as never, format: 'jwk' })
    assert.ok(verify('sha256', bytes, { key: deviceKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(cose, 'base64url')))

    const signingInput = `${jose.base64url.encode(JSON.stringify({ alg: 'EdDSA', typ: 'kb+jwt' }))}.${jose.base64url.encode('{"nonce":"n"}')}`
    const jws = await completePreparedFor({ holder, device }, { signing_input: signingInput })
    await jose.compactVerify(jws, await jose.importJWK(holder.publicJwk as jose.JWK, 'EdDSA'))
  })

  it('without a device key a COSE signature falls to the holder key, which must then be P-256', async () => {
    const holder = await generateHolderKey({ alg: 'EdDSA' })
    await assert.rejects(
      completePreparedFor({ holder }, { cose: { alg: 'ES256', to_be_signed: 'AAEC' } }),
      /asks for ES256; this key signs EdDSA/,
    )
  })
})
