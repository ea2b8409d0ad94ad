/**
 * The hosted wallet tolerates a small clock difference with the verifiers it answers
 * (CLOCK_SKEW_SECONDS, RFC 7519 §4.1.4-6): an outside verifier built with @openid4vc/openid4vp whose
 * clock runs a little ahead (or behind) is answered, one far off is refused with a message that
 * says why, and the setting decides which is which.
 */
import assert from 'node:assert/strict'
import { sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { OutsideVerifier } from '../helpers/outside-verifier.js'
import { createTestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = { name: 'Pass', version: '1', attributes: [{ name: 'given_name', data_type: 'string', required: true }], anonymous_credentials: false }

/** One service instance behind HTTPS, its holder holding an SD-JWT VC, with `skew` as CLOCK_SKEW_SECONDS (unset: the default). */
async function walletWith(skew?: string) {
  const front = await HttpsFront.open()
  const t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin, OUTBOUND_ALLOW_PRIVATE: 'true', ...(skew === undefined ? {} : { CLOCK_SKEW_SECONDS: skew }) } })
  front.serve(t.app)
  const issuer = new IssuerActor()
  await issuer.setUp(t.app, 'Pass office')
  const schemaId = await issuer.schema(t.app, SCHEMA)
  const holder = new DidClient()
  const token = await holder.login(t.app)
  const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, { credential_type: 'Pass', schema_id: schemaId, subject_did: holder.did, attributes: { given_name: 'Ada' }, format: 'dc+sd-jwt' })
  assert.equal(issued.statusCode, 201, issued.body)
  const vct = `${front.origin}/vct/${encodeURIComponent(schemaId)}`
  const answer = (uri: string) => t.app.inject({ method: 'POST', url: `/api/wallet/${holder.did}/presentation-requests/answer`, headers: { ...bearer(token), 'x-user-did': holder.did }, payload: { authorization_request_uri: uri } })
  const send = (prepared: Json) =>
    t.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/presentation-requests/answer/${prepared.session_id}`,
      headers: { ...bearer(token), 'x-user-did': holder.did },
      payload: { signatures: Object.fromEntries((prepared.presentations as Json[]).map((p) => [p.query_id, `${p.to_sign.signing_input}.${sign(null, Buffer.from(p.to_sign.signing_input), holder.privateKey).toString('base64url')}`])) },
    })
  return { front, t, vct, answer, send, close: async () => (await t.close(), await front.close()) }
}

describe('the hosted wallet and a verifier whose clock differs', () => {
  let outside: OutsideVerifier
  let wallet: Awaited<ReturnType<typeof walletWith>>
  let strict: Awaited<ReturnType<typeof walletWith>>
  const dcql = (vct: string) => ({ credentials: [{ id: 'pass', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }] }] })

  before(async () => {
    outside = await OutsideVerifier.open()
    wallet = await walletWith()
    strict = await walletWith('10')
  })
  after(async () => {
    await outside.close()
    await wallet.close()
    await strict.close()
  })

  for (const ahead of [2, 30]) {
    it(`answers a verifier ${ahead} s ahead (nbf and iat in this service's future), and the verifier gets the answer`, async () => {
      const { uri, state } = await outside.request(dcql(wallet.vct), { aheadSeconds: ahead })
      const prepared = await wallet.answer(uri)
      assert.equal(prepared.statusCode, 201, prepared.body)
      const sent = await wallet.send(prepared.json())
      assert.equal(sent.json().accepted, true, sent.body)
      assert.equal(outside.received.at(-1)?.form.get('state'), state)
    })
  }

  it('answers a verifier 30 s behind whose request object expired 30 s ago by this service’s clock', async () => {
    const { uri } = await outside.request(dcql(wallet.vct), { aheadSeconds: -330 })
    const prepared = await wallet.answer(uri)
    assert.equal(prepared.statusCode, 201, prepared.body)
  })

  it('refuses a verifier 10 minutes ahead, saying the request object is not valid yet and by how much', async () => {
    const { uri } = await outside.request(dcql(wallet.vct), { aheadSeconds: 600 })
    const refused = await wallet.answer(uri)
    assert.equal(refused.statusCode, 422, refused.body)
    assert.match(refused.json().message, /request object is not valid yet: its (nbf|iat) is (599|600) s ahead of this service's clock, more than the 60 s it tolerates \(CLOCK_SKEW_SECONDS/)
  })

  it('CLOCK_SKEW_SECONDS decides: with 10, a verifier 30 s ahead or an object expired 30 s ago is refused, 2 s ahead still answered', async () => {
    const ahead = await strict.answer((await outside.request(dcql(strict.vct), { aheadSeconds: 30 })).uri)
    assert.equal(ahead.statusCode, 422, ahead.body)
    assert.match(ahead.json().message, /not valid yet: its (nbf|iat) is (29|30) s ahead .* 10 s it tolerates/)
    const expired = await strict.answer((await outside.request(dcql(strict.vct), { aheadSeconds: -330 })).uri)
    assert.equal(expired.statusCode, 422, expired.body)
    assert.match(expired.json().message, /request object is expired: its exp is (30|31) s behind/)
    const close = await strict.answer((await outside.request(dcql(strict.vct), { aheadSeconds: 2 })).uri)
    assert.equal(close.statusCode, 201, close.body)
  })
})
