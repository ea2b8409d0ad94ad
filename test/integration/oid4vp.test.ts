import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createPublicKey } from 'node:crypto'
import * as jose from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { PresentationWallet } from '../helpers/oid4vc-wallet/presentation-wallet.js'
import { generateWalletKey, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Identity',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'family_name', data_type: 'string', required: true },
    { name: 'age', data_type: 'number', required: true },
    { name: 'email', data_type: 'email' },
  ],
  anonymous_credentials: false,
}
const ATTRIBUTES = { given_name: 'Erika', family_name: 'Mustermann', age: 25, email: 'erika@example.com' }

/**
 * OpenID4VP 1.0 with DCQL end to end over a real HTTPS front: a wallet written only with
 * @openid4vc/openid4vp, dcql, @sd-jwt/sd-jwt-vc and jose resolves the `openid4vp://` URI of a
 * request made with the spec's POST /api/verifier/requests, verifies the signed request object
 * against the verifier's did:web (fetched over HTTPS by web-did-resolver), answers the DCQL query
 * and posts its response; the verdict is the HTTP status, and the spec's verifier routes show the
 * presentation with the same verdict.
 */
describe('OpenID4VP 1.0 with DCQL', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let schemaId: string
  let key: WalletKey
  let sdJwt: string
  let jwtVc: string
  let jwtVcId: string

  const issue = async (format: string, subject = key.did, attributes: Json = ATTRIBUTES) => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: subject,
      attributes,
      format,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential as Json
  }
  const createRequest = async (body: Json = {}) => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'IdentityCheck',
      required_credentials: [
        { credential_type: 'Identity', issuer_did: issuer.did, required_attributes: ['given_name', 'email'] },
      ],
      purpose: 'Identity check',
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  /** A logged-in holder's did:key (Ed25519) as the wallet's key. */
  const walletKeyOf = async (holder: DidClient): Promise<WalletKey> => {
    const publicJwk = (await jose.exportJWK(createPublicKey(holder.privateKey))) as WalletKey['publicJwk']
    return {
      alg: 'EdDSA',
      publicJwk,
      privateJwk: await jose.exportJWK(holder.privateKey),
      did: holder.did,
      didUrl: `${holder.did}#${holder.did.slice('did:key:'.length)}`,
    }
  }
  /** The request and its one presentation as the spec's verifier routes show them. */
  const recorded = async (requestId: string) => {
    const request = (await callAs(t.app, 'GET', `/api/verifier/requests/${requestId}`, verifierToken)).json() as Json
    const list = (
      await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/presentations?limit=100`, verifierToken)
    ).json() as Json
    const items = (list.presentations ?? list.items ?? list.data) as Json[]
    const presentation = items.find((p) => p.request_id === requestId) as Json
    return { request, presentation }
  }
  /**
   * A refused answer to a request addressed to no one consumes nothing (docs/openid4vp.md "What
   * consumes a request"): the request stays open, no presentation is recorded, and the verifier
   * sees the attempt, with its errors, among the request's refused attempts.
   */
  const refused = async (answer: { status: number; body: Json }, requestId: string, expected: RegExp) => {
    assert.equal(answer.status, 400, JSON.stringify(answer.body))
    assert.ok(typeof answer.body.error === 'string', JSON.stringify(answer.body))
    assert.match(String(answer.body.error_description), expected)
    const { request, presentation } = await recorded(requestId)
    assert.equal(request.openid4vp.answer, null)
    assert.equal(request.request.status, 'pending')
    assert.equal(presentation, undefined)
    const [attempt] = request.openid4vp.refused_attempts.recent as Json[]
    assert.ok(
      attempt?.errors.some((e: string) => expected.test(e)),
      JSON.stringify(request.openid4vp.refused_attempts),
    )
  }

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Registry')
    schemaId = await issuer.schema(t.app, SCHEMA)
    verifierToken = await verifier.login(t.app)
    key = await generateWalletKey('ES256')
    sdJwt = (await issue('dc+sd-jwt')).jwt
    const jwtCredential = await issue('jwt_vc_json')
    jwtVc = jwtCredential.jwt
    jwtVcId = jwtCredential.id
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('SD-JWT VC with a KB-JWT, direct_post: the signed request object verifies against the verifier did:web; accepted (200) and recorded as verified', async () => {
    const created = await createRequest()
    assert.match(
      created.authorization_request_uri,
      /^openid4vp:\/\/\?client_id=decentralized_identifier%3Adid%3Aweb%3A/,
    )
    assert.match(created.authorization_request_qr, /^data:image\/svg\+xml;base64,/)
    assert.equal(created.openid4vp.response_mode, 'direct_post')
    // The request object: typ oauth-authz-req+jwt, signed by a key of the verifier's did:web, served publicly.
    const object = await fetch(created.request_uri)
    assert.equal(object.status, 200)
    const jwt: string = await object.text()
    const header = jose.decodeProtectedHeader(jwt)
    assert.equal(header.typ, 'oauth-authz-req+jwt')
    assert.equal(header.alg, 'ES256')
    const did = created.openid4vp.client_id.slice('decentralized_identifier:'.length)
    assert.ok(String(header.kid).startsWith(`${did}#`))
    const payload = jose.decodeJwt(jwt) as Json
    assert.equal(payload.nonce, created.request.nonce)
    assert.equal(payload.dcql_query.credentials[0].format, 'dc+sd-jwt')
    const doc = await fetch(`${front.origin}/verifiers/${did.split(':').pop()}/did.json`)
    assert.equal(doc.status, 200)
    assert.deepEqual(((await doc.json()) as Json).alsoKnownAs, [verifier.did])

    const answer = await new PresentationWallet(key, [sdJwt, jwtVc]).answer(created.authorization_request_uri)
    assert.equal(answer.resolved.client.prefix, 'decentralized_identifier')
    assert.equal(answer.resolved.jar?.sendBy, 'reference')
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal(answer.body.redirect_uri, undefined)
    const { request, presentation } = await recorded(created.request.id)
    assert.equal(request.request.status, 'verified')
    assert.equal(request.openid4vp.answer, 'accepted')
    assert.equal(presentation.id, answer.body.presentation_id)
    assert.equal(presentation.status, 'verified')
    assert.equal(presentation.is_verified, true)
    assert.equal(presentation.prover_did, key.did)
    assert.deepEqual(presentation.provided_attributes, ['email', 'given_name'])
    // Selective disclosure: what the query did not ask for stayed with the holder.
    assert.equal(presentation.verification_result.credential_subjects[0].family_name, undefined)
    const one = await callAs(t.app, 'GET', `/api/verifier/presentations/${presentation.id}`, verifierToken)
    assert.equal(one.statusCode, 200, one.body)
  })

  it("a JWT-VC in a VP-JWT, direct_post.jwt: the response is encrypted to the request's own key; accepted and recorded", async () => {
    const created = await createRequest({ response_mode: 'direct_post.jwt' })
    assert.equal(created.openid4vp.response_mode, 'direct_post.jwt')
    const payload = jose.decodeJwt(await (await fetch(created.request_uri)).text()) as Json
    assert.equal(payload.client_metadata.jwks.keys[0].kty, 'EC')
    assert.equal(payload.client_metadata.jwks.keys[0].d, undefined)
    assert.deepEqual(payload.client_metadata.encrypted_response_enc_values_supported, ['A128GCM', 'A256GCM'])
    const answer = await new PresentationWallet(key, [sdJwt, jwtVc]).answer(created.authorization_request_uri, {
      skip: [0],
    })
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const { presentation } = await recorded(created.request.id)
    assert.equal(presentation.status, 'verified')
    assert.equal(presentation.prover_did, key.did)
    // The JWT-VC answered (its id is the record's), not the SD-JWT VC.
    assert.deepEqual(presentation.credential_ids, [jwtVcId])
  })

  it("the redirect_uri prefix: the request is unsigned and passed by value; the verifier's redirect_uri comes back on acceptance", async () => {
    const created = await createRequest({
      client_id_prefix: 'redirect_uri',
      redirect_uri: 'https://verifier.example/done',
    })
    assert.equal(created.request_uri, null)
    assert.equal(created.openid4vp.client_id, `redirect_uri:${created.openid4vp.response_uri}`)
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.resolved.client.prefix, 'redirect_uri')
    assert.equal(answer.resolved.jar, undefined)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    // With the response_code only the verifier can redeem (§8.2; oid4vp-abuse.test.ts).
    assert.match(String(answer.body.redirect_uri), /^https:\/\/verifier\.example\/done#response_code=[\w-]{22,}$/)
  })

  it('a replay (the same response again) is refused with 400 and leaves the verdict as it was', async () => {
    const created = await createRequest()
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const again = await answer.resend()
    assert.equal(again.status, 400)
    assert.equal(again.body.error, 'invalid_request')
    assert.match(String(again.body.error_description), /already answered/)
    const { request, presentation } = await recorded(created.request.id)
    assert.equal(request.openid4vp.answer, 'accepted')
    assert.equal(presentation.status, 'verified')
  })

  it("the spec's verify route checks an OpenID4VP presentation again as on receipt: valid, then failed once its credential is revoked", async () => {
    const holderKey = await generateWalletKey('ES256')
    const credential = await issue('dc+sd-jwt', holderKey.did)
    const created = await createRequest()
    const answer = await new PresentationWallet(holderKey, [credential.jwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const verify = () =>
      callAs(t.app, 'POST', `/api/verifier/presentations/${answer.body.presentation_id}/verify`, verifierToken, {
        presentation_jwt: JSON.stringify(answer.vpToken),
      })
    const again = await verify()
    assert.equal(again.statusCode, 200, again.body)
    assert.equal(again.json().verification_result.is_valid, true, again.body)
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
      { reason: 'test' },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    const after = await verify()
    assert.equal(after.statusCode, 200, after.body)
    assert.equal(after.json().verification_result.is_valid, false)
    assert.ok(
      after.json().verification_result.errors.some((e: string) => /revoked/.test(e)),
      after.body,
    )
    assert.equal(after.json().status, 'failed')
  })

  it("callbacks as the spec's routes send them: presentation.submitted, then presentation.verified", async () => {
    const url = `https://callbacks.example/${Date.now()}`
    const created = await createRequest({ callback_url: url })
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const events = await t.deps.database.db
      .selectFrom('callback_outbox')
      .select(['event_type', 'payload'])
      .where('url', '=', url)
      .orderBy('id')
      .execute()
    assert.deepEqual(
      events.map((e) => e.event_type),
      ['presentation.submitted', 'presentation.verified'],
    )
    assert.equal(JSON.stringify(events[1]!.payload).includes(String(answer.body.presentation_id)), true)
  })

  it('a request addressed to one holder: another holder is refused without closing it; that holder is accepted', async () => {
    const created = await createRequest({ holder_did: key.did })
    const stranger = await generateWalletKey('ES256')
    const theirs = await issue('dc+sd-jwt', stranger.did)
    const refusedAnswer = await new PresentationWallet(stranger, [theirs.jwt]).answer(created.authorization_request_uri)
    assert.equal(refusedAnswer.status, 400)
    assert.equal(refusedAnswer.body.error, 'invalid_request')
    const { request } = await recorded(created.request.id)
    assert.equal(request.request.status, 'pending')
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })

  it('a Dock BBS derived proof in a VP-JWT answers the jwt_vc_json query: given_name revealed, age >= 18 proven without disclosing age', async () => {
    const holder = new DidClient()
    const holderToken = await holder.login(t.app)
    const bbsSchema = await issuer.schema(t.app, { ...SCHEMA, version: '2.0', anonymous_credentials: true })
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: bbsSchema,
      subject_did: holder.did,
      attributes: ATTRIBUTES,
    })
    assert.equal(res.statusCode, 201, res.body)
    const created = await createRequest({
      required_credentials: [
        { credential_type: 'Identity', issuer_did: issuer.did, required_attributes: ['given_name'] },
      ],
      required_predicates: [{ attribute: 'age', operator: '>=', value: 18, credential_type: 'Identity' }],
    })
    const verifierWebDid = created.openid4vp.client_id.slice('decentralized_identifier:'.length)
    const derived = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${res.json().credential.id}/anonymous-proof`,
      holderToken,
      {
        reveal: ['given_name'],
        predicates: [{ attribute: 'age', operator: '>=', value: 18 }],
        nonce: created.request.nonce,
        verifier_did: verifierWebDid,
      },
    )
    assert.equal(derived.statusCode, 200, derived.body)
    const answer = await new PresentationWallet(await walletKeyOf(holder), [derived.json().proof]).answer(
      created.authorization_request_uri,
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const { presentation } = await recorded(created.request.id)
    assert.equal(presentation.status, 'verified')
    assert.equal(presentation.prover_did, holder.did)
    assert.deepEqual(presentation.provided_attributes, ['given_name'])
    assert.equal(presentation.verification_result.credential_subjects[0].age, undefined)
  })

  it("the consent state counts as on the spec's verify route: a consent granted for the purpose and revoked refuses the presentation", async () => {
    const holder = new DidClient()
    const holderToken = await holder.login(t.app)
    const credential = await issue('dc+sd-jwt', holder.did)
    const granted = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holderToken, {
      verifier_did: verifier.did,
      purpose: 'Identity check',
    })
    assert.equal(granted.statusCode, 201, granted.body)
    assert.equal(
      (
        await callAs(
          t.app,
          'POST',
          `/api/wallet/${holder.did}/consents/${granted.json().consent.id}/revoke`,
          holderToken,
        )
      ).statusCode,
      200,
    )
    const created = await createRequest()
    const answer = await new PresentationWallet(await walletKeyOf(holder), [credential.jwt]).answer(
      created.authorization_request_uri,
    )
    await refused(answer, created.request.id, /consent/)
    assert.equal(answer.body.error, 'access_denied')
  })

  it('a KB-JWT with another nonce is refused (400) and leaves the request open', async () => {
    const created = await createRequest()
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri, {
      nonce: 'not-the-nonce',
    })
    await refused(answer, created.request.id, /nonce/i)
  })

  it('a VP-JWT for another audience is refused (400) and leaves the request open', async () => {
    const created = await createRequest()
    const answer = await new PresentationWallet(key, [jwtVc]).answer(created.authorization_request_uri, {
      audience: verifier.did,
    })
    await refused(answer, created.request.id, /audience/)
  })

  it('a KB-JWT for another audience is refused', async () => {
    const created = await createRequest()
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri, {
      audience: 'decentralized_identifier:did:web:elsewhere.example',
    })
    await refused(answer, created.request.id, /aud/)
  })

  it('a required claim left undisclosed is refused', async () => {
    const created = await createRequest()
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri, {
      withhold: ['email'],
    })
    await refused(answer, created.request.id, /"email".*not disclosed|DCQL/)
  })

  it('a revoked credential is refused', async () => {
    const other = await generateWalletKey('ES256')
    const credential = await issue('dc+sd-jwt', other.did)
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
      { reason: 'test' },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    const created = await createRequest()
    const answer = await new PresentationWallet(other, [credential.jwt]).answer(created.authorization_request_uri)
    await refused(answer, created.request.id, /revoked/)
  })

  it('a credential that does not meet a predicate is refused; one that does is accepted', async () => {
    const predicate = {
      required_predicates: [{ attribute: 'age', operator: '>=', value: 30, credential_type: 'Identity' }],
    }
    const created = await createRequest(predicate)
    const payload = jose.decodeJwt(await (await fetch(created.request_uri)).text()) as Json
    assert.ok(payload.dcql_query.credentials[0].claims.some((c: Json) => c.path[0] === 'age'))
    await refused(
      await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri),
      created.request.id,
      /age >= 30 is not satisfied/,
    )
    const older = await generateWalletKey('ES256')
    const credential = await issue('dc+sd-jwt', older.did, { ...ATTRIBUTES, age: 40 })
    const next = await createRequest(predicate)
    const answer = await new PresentationWallet(older, [credential.jwt]).answer(next.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })

  it('garbage, oversized, unknown and mis-typed bodies: 400 with a message (or 415), nothing recorded', async () => {
    const created = await createRequest()
    const uri = created.openid4vp.response_uri
    const post = (body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(uri, { method: 'POST', headers: { 'content-type': type }, body })
    for (const body of [
      'vp_token=garbage',
      `vp_token=${encodeURIComponent('{"c0_sd_jwt":["not.a.credential"]}')}&state=${created.openid4vp.state}`,
      'state=x',
      '',
    ]) {
      const res = await post(body)
      assert.equal(res.status, 400, body)
      const json = (await res.json()) as Json
      assert.ok(json.message.length > 0)
      assert.equal(typeof json.error, 'string', JSON.stringify(json))
    }
    const deep = await post(`vp_token=${'['.repeat(40_000)}`)
    assert.equal(deep.status, 400)
    assert.match(((await deep.json()) as Json).message, /vp_token must not nest deeper/)
    const long = await post(`vp_token=${'a'.repeat(50 * 1024)}`)
    assert.equal(long.status, 400)
    assert.match(((await long.json()) as Json).message, /vp_token/)
    // Past the public routes' body limit (64 KiB): 413, with a message.
    const oversized = await post(`vp_token=${'a'.repeat(100 * 1024)}`)
    assert.equal(oversized.status, 413)
    assert.ok(((await oversized.json()) as Json).message.length > 0)
    assert.equal((await post('<xml/>', 'application/xml')).status, 415)
    const unknown = await fetch(`${front.origin}/openid4vp/responses/presreq-nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'vp_token=x',
    })
    assert.equal(unknown.status, 400)
    // direct_post.jwt: a plain vp_token, or a response that is no JWE for this request's key, is refused.
    const encrypted = await createRequest({ response_mode: 'direct_post.jwt' })
    const postTo = (body: string) =>
      fetch(encrypted.openid4vp.response_uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
    const plain = await postTo(
      `vp_token=${encodeURIComponent('{"c0_sd_jwt":["x"]}')}&state=${encrypted.openid4vp.state}`,
    )
    assert.equal(plain.status, 400)
    const notJwe = await postTo('response=eyJhbGciOiJFQ0RILUVTIn0.a.b.c.d')
    assert.equal(notJwe.status, 400)
    assert.match(((await notJwe.json()) as Json).error_description, /announced/)
    assert.equal((await recorded(encrypted.request.id)).request.request.status, 'pending')
    // Still open: garbage answers nothing.
    const { request } = await recorded(created.request.id)
    assert.equal(request.request.status, 'pending')
    assert.equal(request.openid4vp.answer, null)
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })
})
