import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
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
const VC_V1 = 'https://www.w3.org/2018/credentials/v1'

/**
 * An attacker over HTTP against the public OpenID4VP endpoints of an open request: the QR code
 * (so the request object: nonce, state, response_uri, client id) is all it has. Nothing it posts
 * may close the request for the real holder; what it tried is shown to the verifier, bounded.
 * Also direct_post.jwt taking only the JWE it announced (OID4VP 1.0 §8.3), and data minimisation
 * of what a wallet sends beyond the query.
 */
describe('OpenID4VP abuse: responses that must not consume a request', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let schemaId: string
  let key: WalletKey
  let sdJwt: string
  let jwtVc: string

  const issue = async (format: string, subject = key.did, attributes: Json = ATTRIBUTES) => {
    const body = { credential_type: 'Identity', schema_id: schemaId, subject_did: subject, attributes, format }
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, body)
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
  const requestView = async (id: string) => {
    const res = await callAs(t.app, 'GET', `/api/verifier/requests/${id}`, verifierToken)
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as Json
  }
  const presentationsOf = async (requestId: string) => {
    const list = (
      await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/presentations?limit=100`, verifierToken)
    ).json() as Json
    return ((list.presentations ?? list.items ?? list.data) as Json[]).filter((p) => p.request_id === requestId)
  }
  const post = async (created: Json, fields: Record<string, string>) => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded' }
    const res = await fetch(created.openid4vp.response_uri, {
      method: 'POST',
      headers,
      body: new URLSearchParams(fields).toString(),
    })
    return { status: res.status, body: (await res.json()) as Json }
  }
  /** What the request object tells anyone who scanned the QR code. */
  const requestObject = async (created: Json) => jose.decodeJwt(await (await fetch(created.request_uri)).text()) as Json
  /** A VP-JWT signed by `signer` (by default a fresh key of the attacker's own) naming `holder`, for this request's nonce and client id. */
  const vpJwt = async (created: Json, credentials: string[], signer: WalletKey, holder = signer) => {
    const object = await requestObject(created)
    const vp = {
      '@context': [VC_V1],
      type: ['VerifiablePresentation'],
      holder: holder.did,
      verifiableCredential: credentials,
    }
    return new jose.SignJWT({ nonce: object.nonce, vp })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: holder.didUrl })
      .setIssuer(holder.did)
      .setAudience(object.client_id)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(await jose.importJWK(signer.privateJwk, 'ES256'))
  }
  const strangersVp = async (created: Json, credentials: string[] = [], stranger?: WalletKey) =>
    vpJwt(created, credentials, stranger ?? (await generateWalletKey('ES256')))
  /** A JWT-VC the attacker issues to itself (a did:jwk issuer anyone can be). */
  const selfIssued = async (own: WalletKey) => {
    const issuanceDate = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000', '')
    const credentialSubject = { id: own.did, given_name: 'Mallory', email: 'm@example.com' }
    const vc = {
      '@context': [VC_V1],
      type: ['VerifiableCredential', 'Identity'],
      issuer: own.did,
      issuanceDate,
      credentialSubject,
    }
    return new jose.SignJWT({ jti: `urn:uuid:${randomUUID()}`, vc })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: own.didUrl })
      .setIssuer(own.did)
      .setSubject(own.did)
      .setNotBefore(Math.floor(Date.now() / 1000) - 5)
      .sign(await jose.importJWK(own.privateJwk, 'ES256'))
  }
  const assertOpen = async (created: Json) => {
    const view = await requestView(created.request.id)
    assert.equal(view.request.status, 'pending', JSON.stringify(view.request))
    assert.equal(view.openid4vp.answer, null)
    assert.deepEqual(await presentationsOf(created.request.id), [])
    return view
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
    jwtVc = (await issue('jwt_vc_json')).jwt
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it("a stranger's VP-JWT (fresh key, no credential) with the public state: the request stays open, the attempt is shown", async () => {
    const created = await createRequest()
    const object = await requestObject(created)
    const attack = await post(created, {
      vp_token: JSON.stringify({ c0_jwt_vc: [await strangersVp(created)] }),
      state: object.state,
    })
    assert.equal(attack.status, 400, JSON.stringify(attack.body))
    assert.equal(attack.body.error, 'access_denied')
    assert.match(attack.body.error_description, /holds no credential/)
    const view = await assertOpen(created)
    assert.equal(view.openid4vp.refused_attempts.count, 1)
    const [attempt] = view.openid4vp.refused_attempts.recent
    assert.equal(attempt.holder_proof_verified, false)
    assert.ok(
      attempt.errors.some((e: string) => /holds no credential/.test(e)),
      JSON.stringify(attempt),
    )
    assert.ok(!Number.isNaN(Date.parse(attempt.received_at)))
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal((await requestView(created.request.id)).request.status, 'verified')
  })

  it('a stranger whose holder proof verifies (a self-issued credential) leaves a request open to anyone open', async () => {
    const created = await createRequest()
    const stranger = await generateWalletKey('ES256')
    const object = await requestObject(created)
    const vp = await strangersVp(created, [await selfIssued(stranger)], stranger)
    const attack = await post(created, { vp_token: JSON.stringify({ c0_jwt_vc: [vp] }), state: object.state })
    assert.equal(attack.status, 400, JSON.stringify(attack.body))
    assert.equal(attack.body.error, 'access_denied')
    const view = await assertOpen(created)
    assert.equal(view.openid4vp.refused_attempts.recent[0].holder, stranger.did)
    assert.equal(view.openid4vp.refused_attempts.recent[0].holder_proof_verified, true)
    const answer = await new PresentationWallet(key, [jwtVc]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })

  it("an old vp_token (the holder's answer to another request) replayed here: refused, counted once, consumes nothing", async () => {
    const first = await createRequest()
    const old = await new PresentationWallet(key, [sdJwt]).answer(first.authorization_request_uri)
    assert.equal(old.status, 200, JSON.stringify(old.body))
    const created = await createRequest()
    const state = (await requestObject(created)).state
    for (let i = 0; i < 3; i++) {
      const replay = await post(created, { vp_token: JSON.stringify({ c0_sd_jwt: old.vpToken.c0_sd_jwt }), state })
      assert.equal(replay.status, 400, JSON.stringify(replay.body))
      assert.match(replay.body.error_description, /nonce|key binding/)
    }
    const view = await assertOpen(created)
    assert.equal(view.openid4vp.refused_attempts.count, 1)
    assert.equal(view.openid4vp.refused_attempts.recent.length, 1)
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })

  it('a KB-JWT or VP-JWT for another nonce or audience (the holder proof fails) leaves the request open', async () => {
    const created = await createRequest()
    const wallet = new PresentationWallet(key, [sdJwt, jwtVc])
    for (const options of [
      { nonce: 'not-the-nonce' },
      { audience: verifier.did },
      { audience: verifier.did, skip: [0] },
    ]) {
      const answer = await wallet.answer(created.authorization_request_uri, options)
      assert.equal(answer.status, 400, JSON.stringify(answer.body))
      assert.match(String(answer.body.error_description), /nonce|aud/i)
    }
    const view = await assertOpen(created)
    assert.equal(view.openid4vp.refused_attempts.count, 3)
    assert.ok(view.openid4vp.refused_attempts.recent.every((a: Json) => a.holder_proof_verified === false))
    assert.equal((await wallet.answer(created.authorization_request_uri)).status, 200)
  })

  it("addressed to a holder: a VP-JWT naming it signed by another key leaves it open; the holder's refused answer closes it", async () => {
    const holder = await generateWalletKey('ES256')
    const credential = await issue('jwt_vc_json', holder.did, { ...ATTRIBUTES, age: 16 })
    const adult = [{ attribute: 'age', operator: '>=', value: 18, credential_type: 'Identity' }]
    const created = await createRequest({ holder_did: holder.did, required_predicates: adult })
    const object = await requestObject(created)
    const forged = await vpJwt(created, [credential.jwt], await generateWalletKey('ES256'), holder)
    const attack = await post(created, { vp_token: JSON.stringify({ c0_jwt_vc: [forged] }), state: object.state })
    assert.equal(attack.status, 400, JSON.stringify(attack.body))
    assert.match(attack.body.error_description, /signature/)
    await assertOpen(created)
    // The holder's own answer, its proof verified, is a real answer: it closes the request as failed (docs/openid4vp.md).
    const answer = await new PresentationWallet(holder, [credential.jwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 400, JSON.stringify(answer.body))
    assert.match(String(answer.body.error_description), /age >= 18/)
    const view = await requestView(created.request.id)
    assert.equal(view.request.status, 'failed')
    assert.equal(view.openid4vp.answer, 'refused')
    const [presentation] = await presentationsOf(created.request.id)
    assert.equal(presentation?.status, 'failed')
  })

  it('refused attempts are kept bounded: the last 10, and the count of all', async () => {
    const created = await createRequest()
    const state = (await requestObject(created)).state
    for (let i = 0; i < 12; i++) {
      const attack = await post(created, {
        vp_token: JSON.stringify({ c0_jwt_vc: [await strangersVp(created)] }),
        state,
      })
      assert.equal(attack.status, 400)
    }
    const view = await assertOpen(created)
    assert.equal(view.openid4vp.refused_attempts.count, 12)
    assert.equal(view.openid4vp.refused_attempts.recent.length, 10)
  })

  it("session fixation (§8.2): the redirect_uri carries a response_code only the request's verifier can redeem, once", async () => {
    const created = await createRequest({
      client_id_prefix: 'redirect_uri',
      redirect_uri: 'https://verifier.example/done',
    })
    const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const redirect = new URL(String(answer.body.redirect_uri))
    assert.equal(`${redirect.origin}${redirect.pathname}`, 'https://verifier.example/done')
    const code = new URLSearchParams(redirect.hash.slice(1)).get('response_code')
    assert.ok(code && code.length >= 22, `a fresh response_code in ${redirect.href}`)
    const redeem = (responseCode: string, token = verifierToken) =>
      callAs(t.app, 'POST', `/api/verifier/requests/${created.request.id}/response-code`, token, {
        response_code: responseCode,
      })
    const stranger = new DidClient()
    assert.equal((await redeem(code, await stranger.login(t.app))).statusCode, 404)
    assert.equal((await redeem('not-the-code')).statusCode, 400)
    const redeemed = await redeem(code)
    assert.equal(redeemed.statusCode, 200, redeemed.body)
    assert.equal(redeemed.json().presentation_id, answer.body.presentation_id)
    const again = await redeem(code)
    assert.equal(again.statusCode, 409, again.body)
  })

  describe("direct_post.jwt takes only a JWE to the request's own key, with the alg/enc it announced (OID4VP 1.0 §8.3)", () => {
    const encryptedRequest = async () => {
      const created = await createRequest({ response_mode: 'direct_post.jwt' })
      const object = await requestObject(created)
      const { vpToken } = await new PresentationWallet(key, [sdJwt]).prepare(created.authorization_request_uri)
      const plaintext = new TextEncoder().encode(JSON.stringify({ vp_token: vpToken, state: object.state }))
      return { created, object, vpToken, plaintext, jwk: object.client_metadata.jwks.keys[0] as Json }
    }

    it('refused, consuming nothing: a JWS, a JWE to another key or kid, an enc or alg not announced, plain or both fields', async () => {
      const { created, object, vpToken, plaintext, jwk } = await encryptedRequest()
      const signed = await new jose.SignJWT({ vp_token: vpToken, state: object.state, aud: object.client_id })
        .setProtectedHeader({ alg: 'ES256', kid: key.didUrl })
        .setIssuer(key.did)
        .setExpirationTime('5m')
        .sign(await jose.importJWK(key.privateJwk, 'ES256'))
      const requestKey = await jose.importJWK(jwk as jose.JWK, 'ECDH-ES')
      const other = await jose.generateKeyPair('ECDH-ES', { crv: 'P-256' })
      type Key = jose.CryptoKey | jose.KeyObject | Uint8Array
      const jwe = (header: jose.CompactJWEHeaderParameters, to: Key = requestKey) =>
        new jose.CompactEncrypt(plaintext).setProtectedHeader(header).encrypt(to)
      const attempts: Record<string, Record<string, string>> = {
        'a signed JWS': { response: signed },
        'a JWE to another key': {
          response: await jwe({ alg: 'ECDH-ES', enc: 'A128GCM', kid: jwk.kid }, other.publicKey),
        },
        'a JWE with an enc not announced': {
          response: await jwe({ alg: 'ECDH-ES', enc: 'A256CBC-HS512', kid: jwk.kid }),
        },
        'a JWE with an alg not announced': {
          response: await jwe({ alg: 'ECDH-ES+A128KW', enc: 'A128GCM', kid: jwk.kid }),
        },
        'a JWE naming another kid': { response: await jwe({ alg: 'ECDH-ES', enc: 'A128GCM', kid: 'another-key' }) },
        'plain vp_token and state': { vp_token: JSON.stringify(vpToken), state: object.state },
        'both vp_token and response': {
          response: await jwe({ alg: 'ECDH-ES', enc: 'A128GCM', kid: jwk.kid }),
          vp_token: JSON.stringify({ c0_sd_jwt: ['x'] }),
        },
      }
      for (const [what, fields] of Object.entries(attempts)) {
        const res = await post(created, fields)
        assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`)
        assert.equal(res.body.error, 'invalid_request', what)
        assert.ok(res.body.error_description.length > 0, what)
      }
      await assertOpen(created)
      // The JWE the request announced, to its key, is accepted.
      const good = await post(created, { response: await jwe({ alg: 'ECDH-ES', enc: 'A256GCM', kid: jwk.kid }) })
      assert.equal(good.status, 200, JSON.stringify(good.body))
    })
  })

  describe('data minimisation: what a holder sends beyond the query is neither stored nor reported', () => {
    const assertMinimal = async (requestId: string, callbackUrl: string) => {
      const [presentation] = await presentationsOf(requestId)
      assert.equal(presentation?.status, 'verified', JSON.stringify(presentation))
      assert.deepEqual(presentation.provided_attributes, ['email', 'given_name'])
      const one = (
        await callAs(t.app, 'GET', `/api/verifier/presentations/${presentation.id}`, verifierToken)
      ).json() as Json
      const views = [presentation, one.presentation] as Json[]
      for (const subjects of views.map((p) => p.verification_result.credential_subjects as Json[])) {
        assert.equal(subjects.length, 1)
        assert.deepEqual(Object.keys(subjects[0]!).sort(), ['credential_id', 'email', 'given_name', 'issuer', 'type'])
      }
      const events = await t.deps.database.db
        .selectFrom('callback_outbox')
        .select(['payload'])
        .where('url', '=', callbackUrl)
        .execute()
      assert.equal(events.length, 2)
      for (const e of events) assert.doesNotMatch(JSON.stringify(e.payload), /Mustermann|family_name|"age"/)
    }

    it('an SD-JWT VC disclosing every claim: only given_name and email are kept and reported', async () => {
      const url = `https://callbacks.example/${randomUUID()}`
      const created = await createRequest({ callback_url: url })
      const answer = await new PresentationWallet(key, [sdJwt]).answer(created.authorization_request_uri, {
        overDisclose: true,
      })
      assert.equal(answer.status, 200, JSON.stringify(answer.body))
      await assertMinimal(created.request.id, url)
    })

    it('a JWT-VC (it carries every attribute): only given_name and email are kept and reported', async () => {
      const url = `https://callbacks.example/${randomUUID()}`
      const created = await createRequest({ callback_url: url })
      const answer = await new PresentationWallet(key, [jwtVc]).answer(created.authorization_request_uri)
      assert.equal(answer.status, 200, JSON.stringify(answer.body))
      await assertMinimal(created.request.id, url)
    })
  })
})
