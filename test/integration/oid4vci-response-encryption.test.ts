/**
 * Credential response encryption (OID4VCI 1.0 §10) under the issuer policy: the wallet sends its
 * ECDH-ES P-256 key and enc in the credential request and decrypts the JWE answer with jose;
 * `required` refuses a request without it, and parameters other than those announced.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import { keyProof, newKey, type Json } from '../helpers/haip-wallet.js'
import { preAuthorizedGrant, type Grant } from '../helpers/pre-authorized-grant.js'
import { IssuerActor, callAs } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

const BASE = 'https://issuer.test'
const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

describe('credential response encryption per issuer policy', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } })
    await issuer.setUp(t.app, 'Pass office')
    schemaId = await issuer.schema(t.app, SCHEMA)
  })
  after(() => t.close())

  const setEncryption = async (mode: 'none' | 'optional' | 'required') => {
    const res = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/oid4vci-policy`, issuer.token, {
      par_required: false,
      dpop_required: false,
      dpop_nonce_required: true,
      wallet_attestation_required: false,
      key_attestation_required: false,
      trusted_wallet_providers: [],
      credential_response_encryption: mode,
    })
    assert.equal(res.statusCode, 200, res.body)
  }
  const granted = () => preAuthorizedGrant(t, issuer, { base: BASE, schemaId, format: 'jwt_vc_json' })
  const request = async (g: Grant, extra: Json = {}) => {
    const holder = await newKey()
    const nonce = (await t.app.inject({ method: 'POST', url: `${g.path}/oid4vci/nonce` })).json().c_nonce as string
    return t.app.inject({
      method: 'POST',
      url: `${g.path}/oid4vci/credential`,
      headers: { authorization: `Bearer ${g.accessToken}` },
      payload: {
        credential_configuration_id: g.configurationId,
        proofs: { jwt: [await keyProof(holder, g.issuerUrl, nonce)] },
        ...extra,
      },
    })
  }
  const walletEncryptionKey = async () => {
    const pair = await jose.generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true })
    const { kty, crv, x, y } = await jose.exportJWK(pair.publicKey)
    return { privateKey: pair.privateKey, jwk: { kty, crv, x, y, alg: 'ECDH-ES', kid: 'wallet-enc-1' } }
  }

  it('answers a JWE to the wallet key when required, and refuses a request without encryption or with other parameters', async () => {
    await setEncryption('required')
    const g = await granted()
    const refused = await request(g)
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(refused.json().error, 'invalid_encryption_parameters')
    const key = await walletEncryptionKey()
    for (const [what, encryption] of [
      ['an enc not announced', { jwk: key.jwk, enc: 'A192CBC-HS384' }],
      ['a key alg not announced', { jwk: { ...key.jwk, alg: 'RSA-OAEP-256' }, enc: 'A128GCM' }],
      ['an RSA key', { jwk: { kty: 'RSA', n: 'AQAB', e: 'AQAB', alg: 'ECDH-ES' }, enc: 'A128GCM' }],
      ['compression', { jwk: key.jwk, enc: 'A128GCM', zip: 'DEF' }],
    ] as const) {
      const res = await request(g, { credential_response_encryption: encryption })
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`)
      assert.equal(res.json().error, 'invalid_encryption_parameters', what)
    }
    const res = await request(g, { credential_response_encryption: { jwk: key.jwk, enc: 'A256GCM' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.match(String(res.headers['content-type']), /^application\/jwt/)
    const { plaintext, protectedHeader } = await jose.compactDecrypt(res.body, key.privateKey)
    assert.equal(protectedHeader.alg, 'ECDH-ES')
    assert.equal(protectedHeader.enc, 'A256GCM')
    assert.equal(protectedHeader.kid, 'wallet-enc-1')
    const answer = JSON.parse(new TextDecoder().decode(plaintext)) as Json
    const credential = (answer.credentials as Json[])[0]!.credential as string
    assert.equal(jose.decodeJwt(credential).iss !== undefined, true)
  })

  it('when optional, answers in clear without encryption and encrypted with it; when none, ignores it as before', async () => {
    await setEncryption('optional')
    const clear = await request(await granted())
    assert.equal(clear.statusCode, 200, clear.body)
    assert.ok(Array.isArray(clear.json().credentials))
    const key = await walletEncryptionKey()
    const sealed = await request(await granted(), {
      credential_response_encryption: { jwk: { ...key.jwk, alg: undefined }, alg: 'ECDH-ES', enc: 'A128GCM' },
    })
    assert.equal(sealed.statusCode, 200, sealed.body)
    const { plaintext } = await jose.compactDecrypt(sealed.body, key.privateKey)
    assert.ok(
      Array.isArray((JSON.parse(new TextDecoder().decode(plaintext)) as Json).credentials),
      'the draft form (top-level alg) too',
    )
    await setEncryption('none')
    const ignored = await request(await granted(), { credential_response_encryption: { jwk: key.jwk, enc: 'A128GCM' } })
    assert.equal(ignored.statusCode, 200, ignored.body)
    assert.ok(Array.isArray(ignored.json().credentials))
  })
})
