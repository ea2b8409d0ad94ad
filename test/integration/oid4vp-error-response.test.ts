/**
 * A wallet's error response (OID4VP 1.0 §8.5) at this service's verifier, as an attacker would
 * post it: the response endpoint is public and a request's `state` is public to whoever saw its
 * QR code. A request addressed to no one is not closed by it (anyone could send it); the verifier
 * sees each decline. A request addressed to one holder is closed by it. Malformed error fields,
 * another request's state, an expired or answered request: 400, nothing recorded.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { callAs } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

describe("OpenID4VP: a wallet's error response at this service's verifier", () => {
  let t: TestApp
  const clock = new ManualClock(new Date())
  const verifier = new DidClient()
  const holder = new DidClient()
  let token: string

  const create = async (body: Json = {}) => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', token, {
      verifier_did: verifier.did,
      presentation_type: 'AgeCheck',
      purpose: 'Age check',
      required_credentials: [
        {
          credential_type: 'Identity',
          schema_id: 'https://issuer.example/vct/identity',
          required_attributes: ['given_name'],
        },
      ],
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const post = (created: Json, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: new URL(created.openid4vp.response_uri).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    })
  const view = async (id: string) => {
    const res = await callAs(t.app, 'GET', `/api/verifier/requests/${id}`, token)
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as Json
  }
  const callbacks = (url: string) =>
    t.deps.database.db.selectFrom('callback_outbox').select(['event_type']).where('url', '=', url).execute()

  before(async () => {
    t = await createTestApp({ clock, env: { PUBLIC_BASE_URL: 'https://service.test' } })
    token = await verifier.login(t.app)
  })
  after(async () => {
    await t?.close()
  })

  it('a request addressed to no one stays open: each decline is seen (holder_response, refused_attempts), the same one counted once, one callback', async () => {
    const callbackUrl = `https://callbacks.example/open-${Date.now()}`
    const created = await create({ callback_url: callbackUrl })
    const state = created.openid4vp.state as string

    const first = await post(created, { error: 'access_denied', error_description: 'The holder declined', state })
    assert.equal(first.statusCode, 200, first.body)
    let seen = await view(created.request.id)
    assert.equal(seen.request.status, 'pending', 'whoever saw the QR code cannot close it for everyone')
    assert.equal(seen.openid4vp.answer, null)
    assert.equal(seen.openid4vp.holder_response?.error, 'access_denied')
    assert.equal(seen.openid4vp.holder_response?.error_description, 'The holder declined')
    assert.equal(seen.openid4vp.refused_attempts.count, 1)
    assert.equal(seen.openid4vp.refused_attempts.recent[0].holder_proof_verified, false)
    assert.match(seen.openid4vp.refused_attempts.recent[0].errors[0], /access_denied/)

    // The very same form again is the same response: recorded once.
    const replay = await post(created, { error: 'access_denied', error_description: 'The holder declined', state })
    assert.equal(replay.statusCode, 200, replay.body)
    assert.equal((await view(created.request.id)).openid4vp.refused_attempts.count, 1)

    // Another wallet declines too: seen, the latest shown.
    const second = await post(created, { error: 'access_denied', error_description: 'Not me', state })
    assert.equal(second.statusCode, 200, second.body)
    seen = await view(created.request.id)
    assert.equal(seen.openid4vp.refused_attempts.count, 2)
    assert.equal(seen.openid4vp.holder_response.error_description, 'Not me')
    assert.equal(seen.request.status, 'pending')
    // A stranger posting declines cannot make the verifier's webhook fire for each.
    assert.deepEqual(
      (await callbacks(callbackUrl)).map((e) => e.event_type),
      ['presentation.rejected'],
    )
  })

  it('a request addressed to one holder is closed by its error response, once; later responses are refused', async () => {
    const callbackUrl = `https://callbacks.example/addressed-${Date.now()}`
    const created = await create({ holder_did: holder.did, callback_url: callbackUrl })
    const state = created.openid4vp.state as string
    const declined = await post(created, { error: 'access_denied', state })
    assert.equal(declined.statusCode, 200, declined.body)
    const seen = await view(created.request.id)
    assert.equal(seen.request.status, 'rejected')
    assert.equal(seen.openid4vp.answer, 'declined')
    assert.equal(seen.openid4vp.holder_response.error, 'access_denied')
    assert.equal(seen.openid4vp.holder_response.error_description, null)
    const again = await post(created, { error: 'access_denied', state })
    assert.equal(again.statusCode, 400, again.body)
    assert.deepEqual(
      (await callbacks(callbackUrl)).map((e) => e.event_type),
      ['presentation.rejected'],
    )
  })

  it('refuses what is no OAuth error response (RFC 6749 §4.1.2.1 characters, control characters), another state, a vp_token beside it: 400, nothing recorded', async () => {
    const created = await create()
    const state = created.openid4vp.state as string
    const malformed: Array<Record<string, string>> = [
      { error: 'access denied"', state },
      { error: 'access_denied\u0000', state },
      { error: 'zugriff_verweigert_ü', state },
      { error: '', state },
      { error: 'access_denied', error_description: 'line one\nline two', state },
      { error: 'access_denied', error_description: 'bell\u0007', state },
      { error: 'access_denied', state: 'another-state' },
      { error: 'access_denied' },
      { error: 'access_denied', state, vp_token: '{}' },
    ]
    for (const fields of malformed) {
      const res = await post(created, fields)
      assert.equal(res.statusCode, 400, `${JSON.stringify(fields)}: ${res.body}`)
    }
    const seen = await view(created.request.id)
    assert.equal(seen.openid4vp.holder_response, null)
    assert.equal(seen.openid4vp.refused_attempts.count, 0)
    // A description in another language is still taken (only control characters are refused).
    const polite = await post(created, { error: 'access_denied', error_description: 'Nein, danke – später', state })
    assert.equal(polite.statusCode, 200, polite.body)
  })

  it('an expired request takes no error response (400), and nothing is recorded', async () => {
    const created = await create({ holder_did: holder.did })
    clock.advance(2 * 3600_000)
    token = await verifier.login(t.app)
    const late = await post(created, { error: 'access_denied', state: created.openid4vp.state })
    assert.equal(late.statusCode, 400, late.body)
    const seen = await view(created.request.id)
    assert.equal(seen.openid4vp.holder_response, null)
    assert.equal(seen.openid4vp.answer, null)
  })
})
