/**
 * The hosted wallet presents an mDL over OpenID4VP 1.0 (Appendix B.2), the holder signing on its
 * own side: an outside verifier (@openid4vc/openid4vp, outside-verifier.ts) asks for age_over_18;
 * the prepared answer shows that one element and its value, and the bytes of the device signature;
 * the holder signs them with its P-256 key (node:crypto), and what the verifier received is checked
 * by @auth0/mdl's Verifier, trusting the IACA the issuer publishes, against a SessionTranscript
 * computed here with cbor-x and node:crypto. A signature over other bytes is refused, nothing sent.
 * The holder is a did:web whose document (served by the httpGet fake) lists an Ed25519 key to
 * sign in with and the P-256 key the mDL is bound to.
 */
import assert from 'node:assert/strict'
import { createHash, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Decoder, encode, Tag } from 'cbor-x'
import { createGuardedFetch } from '../../src/adapters/http-out/guarded-fetch.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { OutsideVerifier } from '../helpers/outside-verifier.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { MDL_DOCTYPE as MDL, MDL_NAMESPACE as NS, sampleLicence as licence } from '../helpers/mdl-sample.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const HOLDER_DID = 'did:web:holder.test'
const cbor = new Decoder({ mapsAsObjects: false })

const AGE_QUERY = {
  credentials: [
    { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'age_over_18'] }] },
  ],
}
const MDOC_METADATA = {
  client_metadata: {
    vp_formats_supported: { mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] } },
  },
}

/**
 * SessionTranscriptBytes for OpenID4VP over direct_post (OpenID4VP 1.0 Appendix B.2.6.1):
 * #6.24(bstr .cbor [null, null, ["OpenID4VPHandover", sha256(cbor([client_id, nonce, null, response_uri]))]]).
 */
function transcriptBytes(request: { client_id: string; nonce: string; response_uri: string }): Buffer {
  const info = encode([request.client_id, request.nonce, null, request.response_uri])
  const transcript = encode([null, null, ['OpenID4VPHandover', createHash('sha256').update(info).digest()]])
  return encode(new Tag(transcript, 24))
}

describe('the hosted wallet presents an mDL over OpenID4VP, the holder signing the device signature', () => {
  let front: HttpsFront
  let t: TestApp
  let outside: OutsideVerifier
  const issuer = new IssuerActor()
  const login = new DidClient()
  let deviceKey: KeyObject
  let token: string
  let iacaPem: string

  const post = (url: string, payload: Json) =>
    t.app.inject({ method: 'POST', url, headers: { ...bearer(token), 'x-user-did': HOLDER_DID }, payload })
  const answer = (uri: string) =>
    post(`/api/wallet/${HOLDER_DID}/presentation-requests/answer`, { authorization_request_uri: uri })
  const send = (sessionId: string, signatures: Record<string, string>) =>
    post(`/api/wallet/${HOLDER_DID}/presentation-requests/answer/${sessionId}`, { signatures })
  const deviceSign = (bytes: Buffer) =>
    sign('sha256', bytes, { key: deviceKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')

  before(async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    deviceKey = pair.privateKey
    const p256 = pair.publicKey.export({ format: 'jwk' })
    const ed = { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(login.publicKey).toString('base64url') }
    const document = {
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
      id: HOLDER_DID,
      verificationMethod: [
        { id: `${HOLDER_DID}#login`, type: 'JsonWebKey2020', controller: HOLDER_DID, publicKeyJwk: ed },
        { id: `${HOLDER_DID}#device`, type: 'JsonWebKey2020', controller: HOLDER_DID, publicKeyJwk: p256 },
      ],
      authentication: [`${HOLDER_DID}#login`, `${HOLDER_DID}#device`],
    }
    front = await HttpsFront.open()
    outside = await OutsideVerifier.open()
    const guarded = createGuardedFetch({ allowPrivate: true, timeoutMs: 5000, maxBytes: 256 * 1024, maxRedirects: 3 })
    t = await createTestApp({
      env: { PUBLIC_BASE_URL: front.origin, OUTBOUND_ALLOW_PRIVATE: 'true' },
      httpGet: (url, options) =>
        url === 'https://holder.test/.well-known/did.json'
          ? Promise.resolve({
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: new TextEncoder().encode(JSON.stringify(document)),
              url,
            })
          : guarded(url, options),
    })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Kraftfahrt-Bundesamt')
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/verify-challenge',
      payload: await login.proof(t.app, HOLDER_DID),
    })
    assert.equal(signedIn.statusCode, 200, signedIn.body)
    token = signedIn.json().token

    const country = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/update`, issuer.token, { country: 'DE' })
    assert.equal(country.statusCode, 200, country.body)
    const preset = (await t.app.inject({ method: 'GET', url: '/api/schema-presets' }))
      .json()
      .presets.find((p: Json) => p.id === MDL)
    const schema = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/schemas`, issuer.token, preset.schema)
    assert.equal(schema.statusCode, 201, schema.body)
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: schema.json().schema.id,
      subject_did: HOLDER_DID,
      attributes: licence,
      format: 'mso_mdoc',
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const listed = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    iacaPem = listed.json().certificates.find((c: Json) => c.use === 'iaca' && c.status !== 'retired').pem
  })
  after(async () => {
    await outside.close()
    await t?.close()
    await front?.close()
  })

  it('shows age_over_18 alone before signing; a signature over other bytes is refused and nothing is sent', async () => {
    const { uri } = await outside.request(AGE_QUERY, { payload: MDOC_METADATA })
    const prepared = await answer(uri)
    assert.equal(prepared.statusCode, 201, prepared.body)
    const [presentation] = prepared.json().presentations as Json[]
    assert.equal(presentation!.format, 'mso_mdoc')
    assert.deepEqual(presentation!.claims, [[NS, 'age_over_18']])
    assert.deepEqual(presentation!.disclosed, { [NS]: { age_over_18: true } })
    assert.equal(presentation!.to_sign.cose.alg, 'ES256')
    // The key that must sign: the mDL's device key, so a client can tell whether it holds it.
    const devicePublic = createPublicKey(deviceKey).export({ format: 'jwk' })
    assert.equal(presentation!.to_sign.cose.key.x, devicePublic.x)
    assert.equal(presentation!.to_sign.cose.key.y, devicePublic.y)

    const other = Buffer.from(presentation!.to_sign.cose.to_be_signed, 'base64url')
    other.writeUInt8(other.readUInt8(other.length - 1) ^ 1, other.length - 1)
    const refused = await send(prepared.json().session_id, { mdl: deviceSign(other) })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.match(refused.json().message, /signatures\.mdl is refused/)
    const wrongShape = await send(prepared.json().session_id, { mdl: 'AAEC' })
    assert.equal(wrongShape.statusCode, 400, wrongShape.body)
    assert.equal(outside.received.length, 0, 'the verifier heard nothing')
  })

  it('sends a DeviceResponse that @auth0/mdl verifies for the request’s SessionTranscript, disclosing age_over_18 only', async () => {
    const request = await outside.request(AGE_QUERY, { payload: MDOC_METADATA })
    const prepared = await answer(request.uri)
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    const toBeSigned = Buffer.from(body.presentations[0].to_sign.cose.to_be_signed, 'base64url')
    const sent = await send(body.session_id, { mdl: deviceSign(toBeSigned) })
    assert.equal(sent.statusCode, 200, sent.body)
    assert.equal(sent.json().accepted, true, sent.body)

    const received = outside.received.at(-1)!
    const vpToken = JSON.parse(received.form.get('vp_token')!) as Record<string, string[]>
    assert.deepEqual(Object.keys(vpToken), ['mdl'])
    const deviceResponse = Buffer.from(vpToken.mdl![0]!, 'base64url')
    const asked = received.request!
    const encodedSessionTranscript = transcriptBytes({
      client_id: asked.client_id!,
      nonce: asked.nonce,
      response_uri: asked.response_uri!,
    })
    const { Verifier } = await import('@auth0/mdl')
    const verified = await new Verifier([iacaPem]).verify(deviceResponse, { encodedSessionTranscript })
    const document = verified.documents[0]!
    assert.equal(document.docType, MDL)
    assert.deepEqual(Object.keys(document.issuerSigned.nameSpaces), [NS], 'one namespace')
    assert.deepEqual(
      document.issuerSigned.nameSpaces[NS]!.map((item) => [item.elementIdentifier, item.elementValue]),
      [['age_over_18', true]],
    )
    // Another transcript (another nonce): the device signature does not verify.
    await assert.rejects(
      new Verifier([iacaPem]).verify(deviceResponse, {
        encodedSessionTranscript: transcriptBytes({
          client_id: asked.client_id!,
          nonce: `${asked.nonce}x`,
          response_uri: asked.response_uri!,
        }),
      }),
    )
    // Read without the library: one document, one disclosed item.
    const raw = cbor.decode(deviceResponse) as Map<string, unknown>
    const [doc] = raw.get('documents') as Array<Map<string, unknown>>
    const items = ((doc!.get('issuerSigned') as Map<string, unknown>).get('nameSpaces') as Map<string, unknown[]>).get(
      NS,
    )
    assert.equal(items!.length, 1)
  })
})
