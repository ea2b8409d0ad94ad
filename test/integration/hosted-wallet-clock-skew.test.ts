/**
 * The hosted wallet tolerates a small clock difference with the verifiers it answers
 * (CLOCK_SKEW_SECONDS, RFC 7519 §4.1.4-6): an outside verifier built with @openid4vc/openid4vp whose
 * clock runs a little ahead (or behind) is answered, one far off is refused with a message that
 * says why, and the setting decides which is which.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { hostedWallet, type HostedWallet } from '../helpers/hosted-wallet.js'
import { OutsideVerifier } from '../helpers/outside-verifier.js'

describe('the hosted wallet and a verifier whose clock differs', () => {
  let outside: OutsideVerifier
  let wallet: HostedWallet
  let strict: HostedWallet
  const dcql = (vct: string) => ({
    credentials: [{ id: 'pass', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }] }],
  })

  before(async () => {
    outside = await OutsideVerifier.open()
    wallet = await hostedWallet({ OUTBOUND_ALLOW_PRIVATE: 'true' })
    strict = await hostedWallet({ OUTBOUND_ALLOW_PRIVATE: 'true', CLOCK_SKEW_SECONDS: '10' })
  })
  after(async () => {
    await outside.close()
    await wallet.close()
    await strict.close()
  })

  for (const ahead of [2, 30]) {
    it(`answers a verifier ${ahead} s ahead (nbf and iat in this service's future), and the verifier gets the answer`, async () => {
      const { uri, state } = await outside.request(dcql(wallet.vct), { aheadSeconds: ahead })
      const prepared = await wallet.answer({ authorization_request_uri: uri })
      assert.equal(prepared.statusCode, 201, prepared.body)
      const sent = await wallet.send(prepared.json())
      assert.equal(sent.json().accepted, true, sent.body)
      assert.equal(outside.received.at(-1)?.form.get('state'), state)
    })
  }

  it('answers a verifier 30 s behind whose request object expired 30 s ago by this service’s clock', async () => {
    const { uri } = await outside.request(dcql(wallet.vct), { aheadSeconds: -330 })
    const prepared = await wallet.answer({ authorization_request_uri: uri })
    assert.equal(prepared.statusCode, 201, prepared.body)
  })

  it('refuses a verifier 10 minutes ahead, saying the request object is not valid yet and by how much', async () => {
    const { uri } = await outside.request(dcql(wallet.vct), { aheadSeconds: 600 })
    const refused = await wallet.answer({ authorization_request_uri: uri })
    assert.equal(refused.statusCode, 422, refused.body)
    assert.match(
      refused.json().message,
      /request object is not valid yet: its (nbf|iat) is (599|600) s ahead of this service's clock, more than the 60 s it tolerates \(CLOCK_SKEW_SECONDS/,
    )
  })

  it('CLOCK_SKEW_SECONDS decides: with 10, a verifier 30 s ahead or an object expired 30 s ago is refused, 2 s ahead still answered', async () => {
    const ahead = await strict.answer({
      authorization_request_uri: (await outside.request(dcql(strict.vct), { aheadSeconds: 30 })).uri,
    })
    assert.equal(ahead.statusCode, 422, ahead.body)
    assert.match(ahead.json().message, /not valid yet: its (nbf|iat) is (29|30) s ahead .* 10 s it tolerates/)
    const expired = await strict.answer({
      authorization_request_uri: (await outside.request(dcql(strict.vct), { aheadSeconds: -330 })).uri,
    })
    assert.equal(expired.statusCode, 422, expired.body)
    assert.match(expired.json().message, /request object is expired: its exp is (30|31) s behind/)
    const close = await strict.answer({
      authorization_request_uri: (await outside.request(dcql(strict.vct), { aheadSeconds: 2 })).uri,
    })
    assert.equal(close.statusCode, 201, close.body)
  })
})
