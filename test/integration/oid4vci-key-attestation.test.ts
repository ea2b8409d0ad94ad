/**
 * Key attestations (OID4VCI 1.0 Appendix D) required by the issuer policy: the jwt key proof
 * carries a `key_attestation` by a trusted wallet provider naming the proof key; the credential is
 * bound to that key. Wallet side: test/helpers/haip-wallet.ts (jose only).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import { keyAttestation, keyProof, newKey, type Json, type Key } from '../helpers/haip-wallet.js'
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

describe('key attestations required by the issuer policy', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string
  let provider: Key

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } })
    await issuer.setUp(t.app, 'Pass office')
    schemaId = await issuer.schema(t.app, SCHEMA)
    provider = await newKey()
    const set = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/oid4vci-policy`, issuer.token, {
      par_required: false,
      dpop_required: false,
      dpop_nonce_required: true,
      wallet_attestation_required: false,
      key_attestation_required: true,
      trusted_wallet_providers: [{ jwk: provider.jwk }],
      credential_response_encryption: 'none',
    })
    assert.equal(set.statusCode, 200, set.body)
  })
  after(() => t.close())

  const granted = () => preAuthorizedGrant(t, issuer, { base: BASE, schemaId, format: 'dc+sd-jwt' })

  const cNonce = async (g: Grant) =>
    (await t.app.inject({ method: 'POST', url: `${g.path}/oid4vci/nonce` })).json().c_nonce as string
  const request = (g: Grant, proof: string) =>
    t.app.inject({
      method: 'POST',
      url: `${g.path}/oid4vci/credential`,
      headers: { authorization: `Bearer ${g.accessToken}` },
      payload: { credential_configuration_id: g.configurationId, proofs: { jwt: [proof] } },
    })

  it('announces key_attestations_required on the jwt and attestation proof types', async () => {
    const g = await granted()
    const ci = (await t.app.inject({ method: 'GET', url: `/.well-known/openid-credential-issuer${g.path}` })).json()
    assert.deepEqual(ci.credential_configurations_supported[g.configurationId].proof_types_supported.attestation, {
      proof_signing_alg_values_supported: ['ES256'],
      key_attestations_required: {},
    })
    assert.deepEqual(
      ci.credential_configurations_supported[g.configurationId].proof_types_supported.jwt.key_attestations_required,
      {},
    )
  })

  it('binds the credential to the attested key', async () => {
    const g = await granted()
    const holder = await newKey()
    const nonce = await cNonce(g)
    const attestation = await keyAttestation(provider, [holder], { nonce })
    const res = await request(g, await keyProof(holder, g.issuerUrl, nonce, { key_attestation: attestation }))
    assert.equal(res.statusCode, 200, res.body)
    const credential = (res.json().credentials as Json[])[0]!.credential as string
    const payload = jose.decodeJwt(credential.split('~')[0]!)
    assert.deepEqual(payload.cnf, { jwk: holder.jwk })
  })

  it('refuses, with invalid_proof, a proof without key attestation, an untrusted or expired one, one of another key or nonce', async () => {
    const g = await granted()
    const holder = await newKey()
    const stranger = await newKey()
    const cases: Array<[string, (nonce: string) => Promise<string>]> = [
      ['no key attestation', (nonce) => keyProof(holder, g.issuerUrl, nonce)],
      [
        'an untrusted provider',
        async (nonce) =>
          keyProof(holder, g.issuerUrl, nonce, {
            key_attestation: await keyAttestation(stranger, [holder], { nonce }),
          }),
      ],
      [
        'an expired attestation',
        async (nonce) =>
          keyProof(holder, g.issuerUrl, nonce, {
            key_attestation: await keyAttestation(provider, [holder], {
              nonce,
              exp: Math.floor(Date.now() / 1000) - 60,
            }),
          }),
      ],
      [
        'an attestation of another key',
        async (nonce) =>
          keyProof(holder, g.issuerUrl, nonce, {
            key_attestation: await keyAttestation(provider, [stranger], { nonce }),
          }),
      ],
      [
        'an attestation for another nonce',
        async (nonce) =>
          keyProof(holder, g.issuerUrl, nonce, {
            key_attestation: await keyAttestation(provider, [holder], { nonce: 'another-nonce' }),
          }),
      ],
    ]
    for (const [what, proof] of cases) {
      const res = await request(g, await proof(await cNonce(g)))
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`)
      assert.equal(res.json().error, 'invalid_proof', what)
    }
    // The grant stands: an attested key is served.
    const nonce = await cNonce(g)
    const ok = await request(
      g,
      await keyProof(holder, g.issuerUrl, nonce, {
        key_attestation: await keyAttestation(provider, [holder], { nonce }),
      }),
    )
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('takes an attestation proof (Appendix F.3): one credential per attested key; refuses an untrusted one, or one with a nonce the issuer never gave', async () => {
    const stranger = await newKey()
    const attestationRequest = (g: Grant, jwt: string) =>
      t.app.inject({
        method: 'POST',
        url: `${g.path}/oid4vci/credential`,
        headers: { authorization: `Bearer ${g.accessToken}` },
        payload: { credential_configuration_id: g.configurationId, proofs: { attestation: [jwt] } },
      })
    const g = await granted()
    const keys = [await newKey(), await newKey()]
    for (const [what, error, make] of [
      ['an untrusted provider', 'invalid_proof', (nonce: string) => keyAttestation(stranger, keys, { nonce })],
      [
        'a nonce the issuer never gave',
        'invalid_nonce',
        () => keyAttestation(provider, keys, { nonce: 'another-nonce' }),
      ],
    ] as const) {
      const res = await attestationRequest(g, await make(await cNonce(g)))
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`)
      assert.equal(res.json().error, error, what)
    }
    const res = await attestationRequest(g, await keyAttestation(provider, keys, { nonce: await cNonce(g) }))
    assert.equal(res.statusCode, 200, res.body)
    const bound = (res.json().credentials as Json[]).map(
      (c) => jose.decodeJwt((c.credential as string).split('~')[0]!).cnf,
    )
    assert.deepEqual(
      bound,
      keys.map((k) => ({ jwk: k.jwk })),
    )
  })
})
