/**
 * OpenID4VCI 1.0 issuance to a standard wallet (test/helpers/oid4vc-wallet, built only on
 * @openid4vc/* and jose) over a real HTTPS front: the spec's offers redeemed with a pre-authorized
 * code (with and without tx_code, DPoP), batch issuance of key-bound copies, every format and the
 * metadata. Credentials are verified independently: SD-JWT VC with @sd-jwt/sd-jwt-vc against the
 * issuer's JWT VC Issuer Metadata (cnf = the wallet key), jwt_vc_json with jose against the
 * issuer's did:web. What is refused: oid4vci-refusals.test.ts.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import { resolveDidUrlJwk } from '../helpers/oid4vc-wallet/wallet-keys.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { errorOf, postForm, verifySdJwtVc, type Json } from '../helpers/oid4vci-checks.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import type { TestApp } from '../helpers/test-app.js'

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
  anonymous_credentials: false,
}

describe('OpenID4VCI issuance (pre-authorized code)', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => ({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Club', SCHEMA)))
  after(() => closeHttpsIssuer({ front, t }))

  const offer = (body: Json = {}) =>
    makeOffer(
      t,
      issuer,
      { credential_type: 'Membership', schema_id: schemaId, attributes: { member: 'Ada', level: 3 } },
      body,
    )

  it('answers the offer as an OpenID4VCI offer by reference, with its QR', async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    assert.match(
      created.credential_offer_uri,
      /^openid-credential-offer:\/\/\?credential_offer_uri=https%3A%2F%2Flocalhost/,
    )
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

  it('issues jwt_vc_json to a did:jwk kid, after the tx_code, with a Bearer token; a wrong tx_code is invalid_grant', async () => {
    const created = await offer({ format: 'jwt_vc_json', tx_code: { length: 8, input_mode: 'text' } })
    assert.match(created.tx_code, /^[A-Z2-9]{8}$/)
    const wallet = await IssuanceWallet.create(['EdDSA'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    assert.deepEqual(resolved.offer.grants?.['urn:ietf:params:oauth:grant-type:pre-authorized_code']?.tx_code, {
      length: 8,
      input_mode: 'text',
    })
    // Without the tx_code (the library would not send that request: posted by hand).
    const code = resolved.offer.grants!['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code']
    const missing = await postForm(resolved.metadata.authorizationServers[0]!.token_endpoint!, {
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': code,
    })
    assert.equal(missing.status, 400)
    assert.equal(((await missing.json()) as Json).error, 'invalid_grant')
    assert.equal(await errorOf(wallet.token(resolved, { dpop: false, txCode: 'WRONG234' })), 'invalid_grant')
    const token = await wallet.token(resolved, { dpop: false, txCode: created.tx_code })
    assert.equal(token.response.token_type, 'Bearer')
    const proofs = await wallet.proofs(resolved, await wallet.nonce(resolved), { useDid: true })
    const answer = await wallet.credentials(resolved, token, proofs)
    const jwt = (answer.credentialResponse.credentials as Json[])[0]!.credential as string
    const { kid, alg } = jose.decodeProtectedHeader(jwt)
    const { payload } = await jose.jwtVerify(jwt, await jose.importJWK((await resolveDidUrlJwk(kid!)) as jose.JWK, alg))
    const holder = wallet.keys[0]!.did
    assert.equal(payload.sub, holder)
    assert.equal((payload.vc as Json).credentialSubject.id, holder)
    assert.equal((payload.vc as Json).credentialSubject.member, 'Ada')
    // The code was spent by the successful request: replaying it is invalid_grant.
    assert.equal(await errorOf(wallet.token(resolved, { dpop: false, txCode: created.tx_code })), 'invalid_grant')
  })

  it('issues a batch: one key-bound copy and one record per proof, one offer use', async () => {
    const created = await offer({ format: 'dc+sd-jwt', max_uses: 1 })
    const wallet = await IssuanceWallet.create(['ES256', 'ES256', 'EdDSA'])
    const { answer } = await wallet.receive(created.credential_offer_uri)
    const credentials = answer.credentialResponse.credentials as Json[]
    assert.equal(credentials.length, 3)
    assert.ok(answer.credentialResponse.notification_id)
    const ids = new Set<string>()
    for (const [i, item] of credentials.entries()) {
      const payload = await verifySdJwtVc(item.credential)
      assert.deepEqual(payload.cnf.jwk, wallet.keys[i]!.publicJwk)
      const record = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${payload.jti}`, issuer.token)
      assert.equal(record.json().credential.owner_did, wallet.keys[i]!.did)
      ids.add(payload.jti)
    }
    assert.equal(ids.size, 3)
    const listed = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json().data as Json[]
    assert.equal(listed.find((o) => o.id === created.offer.id)!.uses, 1)
  })

  it('issues ldp_vc (Data Integrity eddsa-rdfc-2022) to the did:jwk of a jwk proof; the access token is an RFC 9068 JWT of the issuer', async () => {
    const created = await offer({ format: 'eddsa-rdfc-2022' })
    assert.equal(created.credential_configuration_id, `${schemaId}.ldp_vc`)
    const wallet = await IssuanceWallet.create(['EdDSA'])
    const { resolved, token, answer } = await wallet.receive(created.credential_offer_uri)
    const header = jose.decodeProtectedHeader(token.accessToken)
    const claims = jose.decodeJwt(token.accessToken)
    assert.equal(header.typ, 'at+jwt')
    assert.equal(claims.iss, resolved.offer.credential_issuer)
    assert.equal(claims.aud, resolved.offer.credential_issuer)
    const jwks = (await (
      await fetch(resolved.metadata.authorizationServers[0]!.jwks_uri!)
    ).json()) as jose.JSONWebKeySet
    await jose.jwtVerify(token.accessToken, jose.createLocalJWKSet(jwks), { typ: 'at+jwt' })
    const credential = (answer.credentialResponse.credentials as Json[])[0]!.credential as Json
    assert.equal(credential.proof.cryptosuite, 'eddsa-rdfc-2022')
    assert.equal(credential.credentialSubject.id, wallet.keys[0]!.did)
    assert.equal(credential.credentialSubject.member, 'Ada')
  })

  it('serves metadata per issuer (path insertion), 404 for an unknown web_id, and for an issuer without schemas', async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    const id = new URL(created.credential_offer.credential_issuer as string)
    const metadata = (await (
      await fetch(`${id.origin}/.well-known/openid-credential-issuer${id.pathname}`)
    ).json()) as Json
    assert.equal(metadata.credential_issuer, id.href)
    assert.equal(metadata.display[0].name, 'Club')
    assert.equal(metadata.batch_credential_issuance.batch_size, 10)
    const sd = metadata.credential_configurations_supported[`${schemaId}.dc+sd-jwt`]
    assert.equal(sd.vct, `${front.origin}/vct/${schemaId}`)
    assert.deepEqual(sd.proof_types_supported.jwt.proof_signing_alg_values_supported, ['ES256', 'EdDSA'])
    assert.deepEqual(
      sd.credential_metadata.claims.map((c: Json) => c.path),
      [['member'], ['level']],
    )
    const as = (await (await fetch(`${id.origin}/.well-known/oauth-authorization-server${id.pathname}`)).json()) as Json
    assert.equal(as.issuer, id.href)
    assert.equal(
      (await fetch(`${id.origin}/.well-known/openid-credential-issuer/issuers/${'0'.repeat(32)}`)).status,
      404,
    )
    const bare = new IssuerActor()
    await bare.setUp(t.app, 'No schemas yet')
    const webId = (await callAs(t.app, 'GET', `/api/issuer/${bare.did}/signing`, bare.token))
      .json()
      .signing_did.split(':')
      .at(-1)
    const empty = await fetch(`${id.origin}/.well-known/openid-credential-issuer/issuers/${webId}`)
    assert.equal(empty.status, 200, await empty.clone().text())
    assert.deepEqual(((await empty.json()) as Json).credential_configurations_supported, {})
  })

  it('serves an issuer that signs as a service-generated did:key the same way', async () => {
    const keyIssuer = new IssuerActor()
    keyIssuer.token = await keyIssuer.login(t.app)
    assert.equal(
      (await callAs(t.app, 'POST', '/api/issuer', keyIssuer.token, { name: 'Key club', signing_did_method: 'key' }))
        .statusCode,
      201,
    )
    const keySchema = await keyIssuer.schema(t.app, SCHEMA)
    const created = (
      await callAs(t.app, 'POST', `/api/issuer/${keyIssuer.did}/offers`, keyIssuer.token, {
        credential_type: 'Membership',
        schema_id: keySchema,
        attributes: { member: 'Cy' },
        format: 'dc+sd-jwt',
      })
    ).json() as Json
    const wallet = await IssuanceWallet.create(['ES256'])
    const { answer } = await wallet.receive(created.credential_offer_uri)
    const credential = (answer.credentialResponse.credentials as Json[])[0]!.credential as string
    const payload = jose.decodeJwt(credential.split('~')[0]!) as Json
    // SD-JWT VC §3.5: a DID iss; its key is the did:key's own.
    assert.match(payload.iss, /^did:key:/)
    assert.deepEqual(payload.cnf.jwk, wallet.keys[0]!.publicJwk)
  })
})
