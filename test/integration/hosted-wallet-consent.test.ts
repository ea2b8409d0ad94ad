/**
 * The holder decides (docs/openid4vc.md "Looking at an offer first", "Declining a request"): the
 * hosted wallet shows an OpenID4VCI offer (issuer, credentials, claims) without redeeming it, and
 * an OpenID4VP request (who asks, how that is proven, what would be disclosed) without sending
 * anything; the holder accepts or declines, and each decision is in the holder's activity. A
 * declined request reaches the verifier as the OID4VP 1.0 §8.5 error response: this service's own
 * verifier shows it and closes the request addressed to that holder; an outside verifier receives exactly that form.
 * Two real instances behind HTTPS fronts; a scripted issuer counts every call it receives.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeTwoInstances, openTwoInstances } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { OutsideVerifier } from '../helpers/outside-verifier.js'
import type { TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const CERT = readFileSync(new URL('../fixtures/tls/localhost-cert.pem', import.meta.url), 'utf8')
const KEY = readFileSync(new URL('../fixtures/tls/localhost-key.pem', import.meta.url), 'utf8')
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'

const SCHEMA = {
  name: 'Library card',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'email', data_type: 'email', required: true },
    { name: 'member_no', data_type: 'string' },
  ],
  anonymous_credentials: false,
}
const ATTRIBUTES = { given_name: 'Ada', email: 'ada@example.org', member_no: 'L-1815' }

const signed = (holder: DidClient, signingInput: string) =>
  `${signingInput}.${sign(null, Buffer.from(signingInput), holder.privateKey).toString('base64url')}`

async function post(app: FastifyInstance, url: string, token: string, did: string, payload: unknown) {
  return app.inject({
    method: 'POST',
    url,
    headers: { ...bearer(token), 'x-user-did': did },
    payload: payload as object,
  })
}

/**
 * An issuer written here from OID4VCI 1.0's examples (§12.2.4 display, Appendix A claims): it
 * serves its metadata and counts every request by path, so a test sees which endpoints were called.
 */
class ScriptedIssuer {
  readonly hits: string[] = []
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async open(): Promise<ScriptedIssuer> {
    const ref: { issuer?: ScriptedIssuer } = {}
    const server = createServer({ cert: CERT, key: KEY }, (req: IncomingMessage, res) => {
      req.resume()
      req.on('end', () => {
        const issuer = ref.issuer!
        const path = new URL(req.url ?? '/', 'https://x').pathname
        issuer.hits.push(`${req.method} ${path}`)
        const body = issuer.serve(path)
        if (!body) return res.writeHead(404).end()
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    ref.issuer = new ScriptedIssuer(server, `https://localhost:${(server.address() as AddressInfo).port}`)
    return ref.issuer
  }

  /** An offer by value of both configurations, with a pre-authorized code and a transaction code. */
  offerUri(): string {
    const offer = {
      credential_issuer: this.origin,
      credential_configuration_ids: ['university_degree', 'pid_draft'],
      grants: {
        [PRE_AUTHORIZED]: {
          'pre-authorized_code': 'code-that-must-stay-unspent',
          tx_code: { input_mode: 'numeric', length: 6, description: 'The code we sent by e-mail' },
        },
      },
    }
    return `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(offer))}`
  }

  private serve(path: string): Json | undefined {
    if (path === '/.well-known/openid-credential-issuer') {
      return {
        credential_issuer: this.origin,
        credential_endpoint: `${this.origin}/credential`,
        nonce_endpoint: `${this.origin}/nonce`,
        display: [
          { name: 'Universität Beispiel', locale: 'de-DE' },
          {
            name: 'Example University',
            locale: 'en-US',
            logo: { uri: 'https://university.example/logo.png', alt_text: 'the crest' },
          },
        ],
        credential_configurations_supported: {
          university_degree: {
            format: 'jwt_vc_json',
            credential_definition: { type: ['VerifiableCredential', 'UniversityDegreeCredential'] },
            credential_metadata: {
              display: [{ name: 'University degree', locale: 'en-US' }],
              claims: [
                {
                  path: ['credentialSubject', 'given_name'],
                  mandatory: true,
                  display: [{ name: 'Given name', locale: 'en-US' }],
                },
                { path: ['credentialSubject', 'degree', 'type'], display: [{ name: 'Degree', locale: 'en-US' }] },
              ],
            },
          },
          // An earlier draft's shape: display and claims beside the format.
          pid_draft: {
            format: 'dc+sd-jwt',
            vct: 'urn:eudi:pid:1',
            display: [{ name: 'PID' }],
            claims: [{ path: ['birthdate'], mandatory: false }],
          },
        },
      }
    }
    if (path === '/.well-known/oauth-authorization-server') {
      return {
        issuer: this.origin,
        token_endpoint: `${this.origin}/token`,
        'pre-authorized_grant_anonymous_access_supported': true,
      }
    }
    return undefined
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}

describe('the holder decides: previews, declines and consent records of the hosted wallet', () => {
  let homeFront: HttpsFront
  let foreignFront: HttpsFront
  let home: TestApp
  let foreign: TestApp
  let scripted: ScriptedIssuer
  let outside: OutsideVerifier
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let otherToken: string
  let verifierToken: string
  let schemaId: string

  const offer = async (body: Json = {}) => {
    const res = await callAs(foreign.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'LibraryCard',
      schema_id: schemaId,
      attributes: ATTRIBUTES,
      format: 'dc+sd-jwt',
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const wallet = (path: string, body: Json, who = holder, token = holderToken) =>
    post(home.app, `/api/wallet/${who.did}${path}`, token, who.did, body)
  const activities = async (type: string): Promise<Json[]> => {
    const res = await home.app.inject({
      method: 'GET',
      url: `/api/wallet/${holder.did}/activities?type=${type}&limit=100`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data as Json[]
  }
  const request = async (body: Json = {}) => {
    const res = await callAs(home.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'MemberCheck',
      required_credentials: [
        {
          credential_type: 'LibraryCard',
          schema_id: `${foreignFront.origin}/vct/${encodeURIComponent(schemaId)}`,
          required_attributes: ['given_name'],
        },
      ],
      purpose: 'Check the library card',
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const verifierView = async (id: string) => {
    const res = await callAs(home.app, 'GET', `/api/verifier/requests/${id}`, verifierToken)
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as Json
  }
  /** Accepts one offer of the foreign issuer (preview skipped). */
  const received = async () => {
    const created = await offer()
    const prepared = await wallet('/offers/accept', { offer_uri: created.credential_offer_uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const done = await wallet(`/offers/accept/${prepared.json().session_id}`, {
      proof_jwt: signed(holder, prepared.json().proof.signing_input),
    })
    assert.equal(done.statusCode, 201, done.body)
    return done.json().credentials[0] as Json
  }

  before(async () => {
    ;({ homeFront, foreignFront, home, foreign } = await openTwoInstances())
    scripted = await ScriptedIssuer.open()
    outside = await OutsideVerifier.open()
    await issuer.setUp(foreign.app, 'City library')
    schemaId = await issuer.schema(foreign.app, SCHEMA)
    holderToken = await holder.login(home.app)
    otherToken = await other.login(home.app)
    verifierToken = await verifier.login(home.app)
    const profile = await callAs(home.app, 'POST', '/api/verifier', verifierToken, {
      name: 'Reading room',
      logo_url: 'https://reading-room.example/logo.svg',
    })
    assert.equal(profile.statusCode, 201, profile.body)
  })
  after(async () => {
    await scripted?.close()
    await outside?.close()
    await closeTwoInstances({ homeFront, foreignFront, home, foreign })
  })

  it('previews an offer of another service without redeeming it: the same offer is accepted afterwards, and the acceptance is recorded with what was taken', async () => {
    const created = await offer({ tx_code: true })
    const preview = await wallet('/offers/preview', { offer_uri: created.credential_offer_uri })
    assert.equal(preview.statusCode, 200, preview.body)
    const body = preview.json() as Json
    assert.ok(body.credential_issuer.startsWith(foreignFront.origin), body.credential_issuer)
    assert.equal(body.issuer.name, 'City library')
    assert.equal(body.issuer.domain, new URL(foreignFront.origin).host)
    assert.equal(body.grant, 'pre-authorized_code')
    assert.notEqual(body.tx_code, null, 'the offer asks for a transaction code')
    const [configuration] = body.credential_configurations as Json[]
    assert.equal(body.credential_configurations.length, 1)
    assert.equal(configuration!.format, 'dc+sd-jwt')
    assert.equal(configuration!.display_name, 'Library card')
    const claims = new Map((configuration!.claims as Json[]).map((c) => [c.path.join('.'), c]))
    assert.deepEqual([...claims.keys()].sort(), ['email', 'given_name', 'member_no'])
    assert.equal(claims.get('given_name')!.mandatory, true)
    assert.equal(claims.get('member_no')!.mandatory, false)

    // Nothing was redeemed: the issuer counts no use, and the holder still accepts with the transaction code.
    const offers = (await callAs(foreign.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json()
      .data as Json[]
    assert.equal(offers.find((o) => o.id === created.offer.id)?.uses, 0)
    // An offer that now names another issuer than the one previewed (fetched again by reference) is refused, unredeemed.
    const changed = await wallet('/offers/accept', {
      offer_uri: created.credential_offer_uri,
      tx_code: created.tx_code,
      credential_issuer: 'https://other-issuer.example',
    })
    assert.equal(changed.statusCode, 409, changed.body)
    assert.match(changed.json().message, /not https:\/\/other-issuer\.example that was previewed/)
    const unspent = (await callAs(foreign.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json()
      .data as Json[]
    assert.equal(unspent.find((o) => o.id === created.offer.id)?.uses, 0)
    const prepared = await wallet('/offers/accept', {
      offer_uri: created.credential_offer_uri,
      tx_code: created.tx_code,
      credential_issuer: body.credential_issuer,
      credential_configuration_id: configuration!.id,
    })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const done = await wallet(`/offers/accept/${prepared.json().session_id}`, {
      proof_jwt: signed(holder, prepared.json().proof.signing_input),
    })
    assert.equal(done.statusCode, 201, done.body)
    const kept = done.json().credentials[0] as Json

    const accepted = (await activities('credential_offer_accepted')).find((a) => a.credential_id === kept.id)
    assert.ok(accepted, 'the acceptance is in the activity')
    assert.equal(accepted.details.issuer_name, 'City library')
    assert.equal(accepted.details.credential_configuration_id, configuration!.id)
    assert.deepEqual((accepted.details.claims as string[][]).map((p) => p.join('.')).sort(), [
      'email',
      'given_name',
      'member_no',
    ])
  })

  it("reads another issuer's display and claims (English preferred, logo, draft-shaped configurations) and never calls its token endpoint", async () => {
    const before = scripted.hits.length
    const res = await wallet('/offers/preview', { offer_uri: scripted.offerUri() })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json() as Json
    assert.deepEqual(body.issuer, {
      name: 'Example University',
      logo_uri: 'https://university.example/logo.png',
      domain: new URL(scripted.origin).host,
      did: null,
    })
    assert.deepEqual(body.tx_code, { input_mode: 'numeric', length: 6, description: 'The code we sent by e-mail' })
    const [degree, pid] = body.credential_configurations as Json[]
    assert.equal(degree!.credential_type, 'UniversityDegreeCredential')
    assert.equal(degree!.display_name, 'University degree')
    assert.deepEqual(degree!.claims, [
      { path: ['credentialSubject', 'given_name'], display_name: 'Given name', mandatory: true },
      { path: ['credentialSubject', 'degree', 'type'], display_name: 'Degree', mandatory: false },
    ])
    assert.equal(pid!.credential_type, 'urn:eudi:pid:1')
    assert.equal(pid!.display_name, 'PID')
    assert.deepEqual(pid!.claims, [{ path: ['birthdate'], display_name: null, mandatory: false }])

    const calls = scripted.hits.slice(before)
    assert.ok(calls.includes('GET /.well-known/openid-credential-issuer'), calls.join(', '))
    assert.ok(
      !calls.some((c) => c.endsWith('/token') || c.endsWith('/credential') || c.endsWith('/nonce')),
      `the preview called: ${calls.join(', ')}`,
    )

    // Declining tells the issuer nothing (OpenID4VCI has no such message) and is recorded for the holder.
    const declined = await wallet('/offers/decline', { offer_uri: scripted.offerUri(), reason: 'not mine' })
    assert.equal(declined.statusCode, 200, declined.body)
    assert.equal(declined.json().credential_issuer, scripted.origin)
    assert.ok(!scripted.hits.some((c) => c.endsWith('/token')), 'no token was asked for')
    const recorded = (await activities('credential_offer_declined')).find(
      (a) => a.details.credential_issuer === scripted.origin,
    )
    assert.ok(recorded, 'the refusal is in the activity')
    assert.equal(recorded.details.issuer_name, 'Example University')
    assert.deepEqual(recorded.details.credential_configuration_ids, ['university_degree', 'pid_draft'])
    assert.equal(recorded.details.reason, 'not mine')
  })

  it('refuses what is not an offer (400), answers an unreachable issuer with 503, and keeps the routes to the DID’s own holder (401, 403)', async () => {
    for (const offerUri of ['2026-01-01T00:00:00', 'openid-credential-offer://?nothing=1']) {
      for (const path of ['/offers/preview', '/offers/decline']) {
        const res = await wallet(path, { offer_uri: offerUri })
        assert.equal(res.statusCode, 400, `${path} ${res.body}`)
        assert.equal(res.json().details.field, 'offer_uri')
      }
    }
    const garbled = await wallet('/offers/preview', {
      offer_uri: 'openid-credential-offer://?credential_offer=%7Bnot-json',
    })
    assert.ok([400, 422].includes(garbled.statusCode), garbled.body)

    // A port nothing listens on: the issuer cannot be reached.
    const closed = await ScriptedIssuer.open()
    const gone = closed.origin
    await closed.close()
    const unreachable = `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${gone}/offers/1`)}`
    const res = await wallet('/offers/preview', { offer_uri: unreachable })
    assert.equal(res.statusCode, 503, res.body)
    assert.ok(typeof res.json().message === 'string')
    // Declining such an offer still records the refusal, naming the host.
    const declined = await wallet('/offers/decline', { offer_uri: unreachable })
    assert.equal(declined.statusCode, 200, declined.body)
    assert.equal(declined.json().credential_issuer, null)
    assert.ok((await activities('credential_offer_declined')).some((a) => a.details.offer_host === new URL(gone).host))

    const noToken = await home.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/offers/preview`,
      payload: { offer_uri: scripted.offerUri() },
    })
    assert.equal(noToken.statusCode, 401, noToken.body)
    const notTheirs = await post(home.app, `/api/wallet/${holder.did}/offers/preview`, otherToken, other.did, {
      offer_uri: scripted.offerUri(),
    })
    assert.equal(notTheirs.statusCode, 403, notTheirs.body)
  })

  it("shows who asks before anything is sent; a decline reaches this service's verifier, which closes the request addressed to the holder and shows the holder's error response", async () => {
    await received()
    // Addressed to the holder: its error response closes it (one addressed to no one stays open: oid4vp-error-response.test.ts).
    const created = await request({ holder_did: holder.did })
    const prepared = await wallet('/presentation-requests/answer', {
      authorization_request_uri: created.authorization_request_uri,
    })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    assert.match(body.verifier, /^decentralized_identifier:did:web:/)
    assert.equal(body.verifier_identity.client_id, body.verifier)
    assert.equal(body.verifier_identity.prefix, 'decentralized_identifier')
    assert.equal(body.verifier_identity.verified, true)
    assert.match(body.verifier_identity.verified_by, /did:web:/)
    assert.equal(body.verifier_identity.name, 'Reading room')
    assert.equal(body.verifier_identity.logo_uri, 'https://reading-room.example/logo.svg')
    assert.equal(body.verifier_identity.domain, new URL(homeFront.origin).host)
    assert.equal(body.purpose, 'Check the library card')
    assert.ok((body.presentations[0].claims as string[][]).some((p) => p.join('.') === 'given_name'))
    // Preparing sent nothing: the verifier still waits.
    assert.equal((await verifierView(created.request.id)).openid4vp.answer, null)

    const session = body.session_id as string
    const notTheirs = await wallet(`/presentation-requests/answer/${session}/decline`, {}, other, otherToken)
    assert.equal(notTheirs.statusCode, 404, notTheirs.body)
    const unknown = await wallet('/presentation-requests/answer/wps-00000000-0000-4000-8000-000000000000/decline', {})
    assert.equal(unknown.statusCode, 404, unknown.body)

    const declined = await wallet(`/presentation-requests/answer/${session}/decline`, { reason: 'not today' })
    assert.equal(declined.statusCode, 200, declined.body)
    assert.equal(declined.json().verifier_status, 200)

    const seen = await verifierView(created.request.id)
    assert.equal(seen.openid4vp.answer, 'declined')
    assert.equal(seen.openid4vp.holder_response.error, 'access_denied')
    assert.match(seen.openid4vp.holder_response.error_description, /not today/)
    assert.equal(seen.request.status, 'rejected', 'the request is closed, no longer pending')

    const twice = await wallet(`/presentation-requests/answer/${session}/decline`, {})
    assert.equal(twice.statusCode, 409, twice.body)
    const presentation = body.presentations[0] as Json
    const completed = await wallet(`/presentation-requests/answer/${session}`, {
      signatures: { [presentation.query_id]: signed(holder, presentation.to_sign.signing_input) },
    })
    assert.equal(completed.statusCode, 409, completed.body)

    const recorded = (await activities('presentation_declined')).find((a) => a.details.verifier === body.verifier)
    assert.ok(recorded, 'the decline is in the activity')
    assert.equal(recorded.details.reason, 'not today')
    assert.equal(
      (await activities('presentation_shared')).filter((a) => a.details.verifier === body.verifier).length,
      0,
      'nothing was shared',
    )
  })

  it("this service's verifier takes an error response to an addressed request once, with the request's state, and sends presentation.rejected; a vp_token afterwards is refused with invalid_request", async () => {
    const callbackUrl = `https://callbacks.example/declined-${Date.now()}`
    const created = await request({ callback_url: callbackUrl, holder_did: holder.did })
    const responseUri = created.openid4vp.response_uri as string
    const form = (fields: Record<string, string>) =>
      home.app.inject({
        method: 'POST',
        url: new URL(responseUri).pathname,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      })

    const wrongState = await form({ error: 'access_denied', state: 'not-the-state' })
    assert.equal(wrongState.statusCode, 400, wrongState.body)
    assert.equal(
      (await verifierView(created.request.id)).openid4vp.answer,
      null,
      'a response without the state changes nothing',
    )

    const declined = await form({
      error: 'access_denied',
      error_description: 'The holder declined',
      state: created.openid4vp.state,
    })
    assert.equal(declined.statusCode, 200, declined.body)
    const again = await form({ error: 'access_denied', state: created.openid4vp.state })
    assert.equal(again.statusCode, 400, again.body)
    const late = await form({ vp_token: JSON.stringify({ pass: ['x'] }), state: created.openid4vp.state })
    assert.equal(late.statusCode, 400, late.body)
    assert.equal(late.json().error ?? late.json().details?.oauth_error, 'invalid_request')
    const seen = await verifierView(created.request.id)
    assert.equal(seen.openid4vp.holder_response.error_description, 'The holder declined')
    assert.equal(seen.openid4vp.refused_attempts.count, 0)
    const events = await home.deps.database.db
      .selectFrom('callback_outbox')
      .select(['event_type', 'payload'])
      .where('url', '=', callbackUrl)
      .execute()
    assert.deepEqual(
      events.map((e) => e.event_type),
      ['presentation.rejected'],
    )
    assert.equal(
      (events[0]!.payload as Json).request_id ?? (events[0]!.payload as Json).data?.request_id,
      created.request.id,
      JSON.stringify(events[0]!.payload),
    )
  })

  it('an outside verifier receives the OID4VP 1.0 §8.5 error response, nothing else; a completed answer is recorded as shared', async () => {
    await received()
    const dcql = {
      credentials: [
        {
          id: 'card',
          format: 'dc+sd-jwt',
          meta: { vct_values: [`${foreignFront.origin}/vct/${encodeURIComponent(schemaId)}`] },
          claims: [{ path: ['given_name'] }],
        },
      ],
    }
    const { uri, state } = await outside.request(dcql, {
      payload: {
        client_metadata: {
          client_name: 'Outside shop',
          vp_formats_supported: {
            'dc+sd-jwt': { 'sd-jwt_alg_values': ['EdDSA', 'ES256'], 'kb-jwt_alg_values': ['EdDSA', 'ES256'] },
          },
        },
      },
    })
    const prepared = await wallet('/presentation-requests/answer', { authorization_request_uri: uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const body = prepared.json() as Json
    assert.equal(body.verifier_identity.name, 'Outside shop')
    assert.equal(body.verifier_identity.client_id, outside.clientId)
    assert.equal(body.verifier_identity.domain, new URL(outside.origin).host)
    assert.equal(body.purpose, null)
    assert.equal(outside.received.length, 0, 'nothing reached the verifier before the holder decided')

    const declined = await wallet(`/presentation-requests/answer/${body.session_id}/decline`, {})
    assert.equal(declined.statusCode, 200, declined.body)
    assert.equal(outside.received.length, 1)
    const sent = outside.received[0]!.form
    assert.deepEqual([...sent.keys()].sort(), ['error', 'error_description', 'state'])
    assert.equal(sent.get('error'), 'access_denied')
    assert.equal(sent.get('state'), state)

    // Another request of the same verifier, accepted: what was shared is in the activity.
    const second = await outside.request(dcql)
    const answer = (
      await wallet('/presentation-requests/answer', { authorization_request_uri: second.uri })
    ).json() as Json
    const p = answer.presentations[0] as Json
    const done = await wallet(`/presentation-requests/answer/${answer.session_id}`, {
      signatures: { [p.query_id]: signed(holder, p.to_sign.signing_input) },
    })
    assert.equal(done.statusCode, 200, done.body)
    assert.ok(outside.received.at(-1)!.form.has('vp_token'))
    const shared = (await activities('presentation_shared')).find((a) => a.details.verifier === outside.clientId)
    assert.ok(shared, 'the sharing is in the activity')
    assert.ok(
      (shared.details.claims as string[][]).some((path) => path.join('.') === 'given_name'),
      JSON.stringify(shared.details),
    )
    const late = await wallet(`/presentation-requests/answer/${answer.session_id}/decline`, {})
    assert.equal(late.statusCode, 409, late.body)
  })

  it("the spec's flow: the verifier sees each holder's answer to an unaddressed request, which stays open for the others; other verifiers see nothing", async () => {
    const created = await request({ required_credentials: [{ credential_type: 'LibraryCard' }] })
    const id = created.request.id as string
    const take = (who: DidClient, token: string) =>
      post(home.app, '/api/wallet/presentation-requests', token, who.did, { request_id: id })
    const taken = await take(holder, holderToken)
    assert.equal(taken.statusCode, 201, taken.body)
    assert.equal(taken.json().request.verifier_name, 'Reading room')
    assert.equal((await take(other, otherToken)).statusCode, 201)

    assert.deepEqual((await verifierView(id)).answers, [])
    const rejected = await post(home.app, `/api/wallet/presentation-requests/${id}/reject`, otherToken, other.did, {
      reason: 'no card with me',
    })
    assert.equal(rejected.statusCode, 200, rejected.body)
    const seen = await verifierView(id)
    assert.equal(seen.answers.length, 1)
    assert.equal(seen.answers[0].holder_did, other.did)
    assert.equal(seen.answers[0].status, 'rejected')
    assert.equal(seen.answers[0].reason, 'no card with me')
    assert.ok(!Number.isNaN(Date.parse(seen.answers[0].at)))
    assert.equal(seen.request.status, 'pending', 'an unaddressed request stays open for the other holders')

    const stranger = new DidClient()
    const strangerToken = await stranger.login(home.app)
    const hidden = await callAs(home.app, 'GET', `/api/verifier/requests/${id}`, strangerToken)
    assert.equal(hidden.statusCode, 404, hidden.body)
  })
})
