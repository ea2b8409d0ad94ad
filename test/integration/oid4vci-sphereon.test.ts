/**
 * Sphereon's OpenID4VCI client (@sphereon/oid4vci-client 0.20.1), software nobody here wrote,
 * driving a pre-authorized issuance against the service over HTTPS, DPoP-bound, to a verified
 * SD-JWT VC; and the nonce endpoint as OID4VCI 1.0 §7.1 defines it: a bare POST, whatever its
 * content type, with an empty body (Sphereon sends an empty application/x-www-form-urlencoded one).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { OpenID4VCIClient } from '@sphereon/oid4vci-client'
import type { Jwt } from '@sphereon/oid4vci-common'
import * as jose from 'jose'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { verifySdJwtVc, type Json } from '../helpers/oid4vci-checks.js'
import type { TestApp } from '../helpers/test-app.js'

const SCHEMA = {
  name: 'Library card',
  version: '1',
  attributes: [{ name: 'reader', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

async function es256Key() {
  const pair = await jose.generateKeyPair('ES256', { extractable: true })
  const { kty, crv, x, y } = await jose.exportJWK(pair.publicKey)
  return { privateKey: pair.privateKey, jwk: { kty: kty!, crv: crv!, x: x!, y: y! } }
}

describe("OpenID4VCI with Sphereon's client", () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => ({ front, t, schemaId } = await openHttpsIssuer(issuer, 'City library', SCHEMA)))
  after(() => closeHttpsIssuer({ front, t }))

  const offer = (body: Json = {}) =>
    makeOffer(t, issuer, { credential_type: 'LibraryCard', schema_id: schemaId, attributes: { reader: 'Grace' } }, body)

  it('answers the nonce endpoint for a bare POST of any content type, empty or not (OID4VCI 1.0 §7.1)', async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    const nonceUrl = new URL(`${created.credential_offer.credential_issuer}/oid4vci/nonce`).pathname
    const cases: Array<[string, Record<string, string>, string | undefined]> = [
      ['no content type, no body', {}, undefined],
      ['empty form', { 'content-type': 'application/x-www-form-urlencoded' }, ''],
      ['empty JSON', { 'content-type': 'application/json' }, ''],
      ['empty text', { 'content-type': 'text/plain' }, ''],
      ['empty octets', { 'content-type': 'application/octet-stream' }, ''],
      ['JSON object', { 'content-type': 'application/json' }, '{}'],
      ['a form field', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b'],
    ]
    const nonces = new Set<string>()
    for (const [name, headers, payload] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: nonceUrl,
        headers,
        ...(payload === undefined ? {} : { payload }),
      })
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`)
      assert.equal(typeof res.json().c_nonce, 'string', name)
      assert.equal(res.headers['cache-control'], 'no-store', name)
      nonces.add(res.json().c_nonce)
    }
    assert.equal(nonces.size, cases.length, 'a fresh c_nonce each time')
  })

  it("issues an SD-JWT VC to Sphereon's client: offer by reference, DPoP-bound token, nonce, key proof, credential", async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    const holder = await es256Key()
    const dpop = await es256Key()
    const client = await OpenID4VCIClient.fromURI({ uri: created.credential_offer_uri, retrieveServerMetadata: true })
    const signDpop = async (_issuer: unknown, jwt: { header: Json; payload: Json }) =>
      new jose.SignJWT(jwt.payload).setProtectedHeader(jwt.header as jose.JWTHeaderParameters).sign(dpop.privateKey)
    // As a Sphereon wallet does: the DPoP algs from the authorization server's metadata.
    const algs = client.endpointMetadata.authorizationServerMetadata?.dpop_signing_alg_values_supported as string[]
    assert.ok(algs.includes('ES256'))
    const createDPoPOpts = {
      jwtIssuer: { alg: 'ES256', jwk: dpop.jwk },
      jwtPayloadProps: {},
      createJwtCallback: signDpop,
      dPoPSigningAlgValuesSupported: algs,
    }
    const token = await client.acquireAccessToken({ createDPoPOpts })
    assert.equal(token.token_type, 'DPoP')
    const signCallback = async (jwt: Jwt) =>
      new jose.SignJWT(jwt.payload as jose.JWTPayload)
        .setProtectedHeader({
          ...(jwt.header as jose.JWTHeaderParameters),
          alg: 'ES256',
        })
        .sign(holder.privateKey)
    const answer = await client.acquireCredentials({
      credentialTypes: created.credential_configuration_id,
      format: 'dc+sd-jwt',
      proofCallbacks: { signCallback },
      jwk: holder.jwk,
      alg: 'ES256',
      createDPoPOpts,
    })
    const credentials = (answer as unknown as Json).credentials as Json[]
    assert.equal(credentials.length, 1)
    const payload = await verifySdJwtVc(credentials[0]!.credential)
    assert.equal(payload.reader, 'Grace')
    assert.deepEqual(payload.cnf.jwk, holder.jwk)
  })
})
