/**
 * OpenID4VCI 1.0 issuance to a standard wallet (test/helpers/oid4vc-wallet, built only on
 * @openid4vc/* and jose) over a real HTTPS front: the spec's offers redeemed with a pre-authorized
 * code (with and without tx_code, DPoP), batch issuance of key-bound copies, and what fails.
 * Credentials are verified independently: SD-JWT VC with @sd-jwt/sd-jwt-vc against the issuer's
 * JWT VC Issuer Metadata (cnf = the wallet key), jwt_vc_json with jose against the issuer's did:web.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = { name: 'Membership', version: '1', attributes: [{ name: 'member', data_type: 'string', required: true }, { name: 'level', data_type: 'number' }], anonymous_credentials: false }

/** An SD-JWT VC verified with @sd-jwt/sd-jwt-vc and the key its issuer's JWT VC Issuer Metadata lists. */
async function verifySdJwtVc(credential: string): Promise<Json> {
  const header = jose.decodeProtectedHeader(credential.split('~')[0]!)
  const payload = jose.decodeJwt(credential.split('~')[0]!)
  const iss = new URL(String(payload.iss))
  const metadata = (await (await fetch(`${iss.origin}/.well-known/jwt-vc-issuer${iss.pathname}`)).json()) as Json
  assert.equal(metadata.issuer, payload.iss)
  // The credential and its Token Status List are signed with keys the metadata lists (by kid).
  const verifier = async (data: string, signature: string) => {
    const kid = jose.decodeProtectedHeader(`${data}.${signature}`).kid
    const jwk = (metadata.jwks.keys as Json[]).find((k) => k.kid === kid)
    if (!jwk) return false
    try {
      await jose.compactVerify(`${data}.${signature}`, await jose.importJWK(jwk, jwk.alg ?? String(header.alg)))
      return true
    } catch {
      return false
    }
  }
  const sdjwt = new SDJwtVcInstance({
    hasher: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(typeof data === 'string' ? data : Buffer.from(data)).digest(),
    hashAlg: 'sha-256',
    verifier,
    statusVerifier: verifier,
  })
  const verified = await sdjwt.verify(credential)
  return verified.payload as Json
}

describe('OpenID4VCI issuance (pre-authorized code)', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Club')
    schemaId = await issuer.schema(t.app, SCHEMA)
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  const offer = async (body: Json = {}) => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, { credential_type: 'Membership', schema_id: schemaId, attributes: { member: 'Ada', level: 3 }, ...body })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }

  it('answers the offer as an OpenID4VCI offer by reference, with its QR', async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    assert.match(created.credential_offer_uri, /^openid-credential-offer:\/\/\?credential_offer_uri=https%3A%2F%2Flocalhost/)
    assert.match(created.credential_offer_qr, /^data:image\/svg\+xml;base64,/)
    assert.equal(created.credential_configuration_id, `${schemaId}.dc+sd-jwt`)
    assert.equal(created.tx_code, undefined)
    assert.ok(created.qr_code_data, 'the spec fields stay')
  })

  it('issues an SD-JWT VC bound to the wallet key, DPoP-bound, and records it', async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    const wallet = await IssuanceWallet.create(['ES256'])
    const { resolved, token, answer } = await wallet.receive(created.credential_offer_uri)
    assert.equal(resolved.metadata.credentialIssuer.credential_issuer.startsWith(front.origin), true)
    assert.equal(token.response.token_type, 'DPoP')
    assert.ok(answer.ok, JSON.stringify(answer))
    const credentials = answer.credentialResponse.credentials as Json[]
    assert.equal(credentials.length, 1)
    const payload = await verifySdJwtVc(credentials[0]!.credential)
    assert.equal(payload.member, 'Ada')
    assert.deepEqual(payload.cnf.jwk, wallet.keys[0]!.publicJwk)
    assert.equal(payload.iss, resolved.offer.credential_issuer)
    // The spec's record: owner = the did:jwk of the proof key; the offer's use taken.
    const record = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${payload.jti}`, issuer.token)
    assert.equal(record.statusCode, 200, record.body)
    assert.equal(record.json().credential.owner_did, wallet.keys[0]!.did)
    assert.equal(record.json().credential.format, 'dc+sd-jwt')
  })
})
