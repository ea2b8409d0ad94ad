/**
 * Credentials issued before signing identities named the login DID and a key the service added
 * to that DID's document (docs/decisions.md "Issuer identity"). Such a key is no longer in any
 * document, yet what it signed still verifies here (assertions only), and its issuer's status list
 * still revokes it. The credential is built as the service built them then: the key sealed in the
 * key store under the login DID with the retired purpose, the JWT signed with node:crypto.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { DbKeyStore } from '../../src/modules/keys/key-store.js'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

describe('credentials signed by a login DID before signing identities', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string
  let legacyJwt: string
  let status: Json

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Old office')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
    // A slot of the issuer's own status list, as a credential of that time had.
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Pass',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { holder_name: 'H' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const { id, jwt } = issued.json().credential
    status = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).vc.credentialStatus
    // The old key: Ed25519, sealed under the login DID with the retired purpose.
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const keys = new DbKeyStore(t.deps.database.db, t.deps.masterKey)
    const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32))
    const seed = new Uint8Array(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32))
    const info = await keys.storeKey(issuer.did, 'issuer-ed25519', 'Ed25519', { publicKey: raw, privateKey: seed })
    const iat = Math.floor(Date.now() / 1000) - 86_400
    const payload = {
      iss: issuer.did,
      sub: holder.did,
      jti: id,
      iat,
      nbf: iat,
      vc: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        id,
        type: ['VerifiableCredential', 'Pass'],
        issuer: issuer.did,
        issuanceDate: new Date(iat * 1000).toISOString(),
        credentialSubject: { id: holder.did, holder_name: 'H' },
        credentialStatus: status,
      },
    }
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT', kid: `${issuer.did}#${info.kid}` })}.${b64(payload)}`
    legacyJwt = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`
  })
  after(() => t.close())

  const presentAndVerify = async (credentials: string[]) => {
    const created = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'PassCheck',
      required_credentials: [{ credential_type: 'Pass', issuer_did: issuer.did, required_attributes: ['holder_name'] }],
      purpose: 'Pass check',
    })
    assert.equal(created.statusCode, 201, created.body)
    const { id: requestId, nonce } = created.json().request
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: requestId }))
        .statusCode,
      201,
    )
    const vp = signPresentation(holder, { aud: verifier.did, nonce, credentials })
    const ids = credentials.map((c) => JSON.parse(Buffer.from(c.split('.')[1]!, 'base64url').toString()).jti)
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${requestId}/approve`,
      holderToken,
      { credential_ids: ids, presentation_jwt: vp },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    return (
      await callAs(
        t.app,
        'POST',
        `/api/verifier/presentations/${approved.json().presentation.id}/verify`,
        verifierToken,
        { presentation_jwt: vp },
      )
    ).json().verification_result
  }

  it('is in no DID document, yet verifies here for a request naming the login DID', async () => {
    const kid = JSON.parse(Buffer.from(legacyJwt.split('.')[0]!, 'base64url').toString()).kid
    const doc = (await callAs(t.app, 'GET', `/api/did/${issuer.did}`)).json().didDocument
    assert.ok(
      !doc.verificationMethod.some((m: Json) => m.id === kid),
      'the service adds nothing to the login DID document',
    )
    const result = await presentAndVerify([legacyJwt])
    assert.deepEqual(result.errors, [])
    assert.equal(result.is_valid, true)
  })

  it('a forged one under the same kid fails on its signature', async () => {
    const [h, p] = legacyJwt.split('.')
    const forged = `${h}.${p}.${Buffer.alloc(64, 7).toString('base64url')}`
    const result = await presentAndVerify([forged])
    assert.equal(result.is_valid, false)
    assert.ok(
      result.errors.some((e: string) => /signature does not verify/.test(e)),
      result.errors.join('; '),
    )
  })

  it('fails once its issuer revokes it on the shared status list', async () => {
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${JSON.parse(Buffer.from(legacyJwt.split('.')[1]!, 'base64url').toString()).jti}/revoke`,
      issuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    const result = await presentAndVerify([legacyJwt])
    assert.equal(result.is_valid, false)
    assert.ok(
      result.errors.some((e: string) => /revoked/.test(e)),
      result.errors.join('; '),
    )
  })
})
