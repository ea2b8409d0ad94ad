/**
 * The hosted wallet against an issuer that demands DPoP server nonces (RFC 9449 §8, §9): the
 * token request without a nonce is answered use_dpop_nonce, and the credential request, sent
 * after the nonce of the token response went stale, is answered 401 use_dpop_nonce; the wallet
 * retries each once with the DPoP-Nonce given and receives the credential. The issuer is a second
 * instance behind its own HTTPS front; both share a clock the test moves, behind the machine's; the issuer's log shows its answers.
 */
import assert from 'node:assert/strict'
import { sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { DPOP_NONCE_TTL_S } from '../../src/modules/openid4vc/issuer/oid4vci-dpop.js'

const SCHEMA = {
  name: 'Gym pass',
  version: '1',
  attributes: [{ name: 'member', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

describe('the hosted wallet and an issuer that requires DPoP nonces', () => {
  let homeFront: HttpsFront
  let foreignFront: HttpsFront
  let home: TestApp
  let foreign: TestApp
  // Ten minutes behind the machine's time: every party must date what it signs by the service's clock, not the machine's.
  const clock = new ManualClock(new Date(Date.now() - 10 * 60_000))
  const logged: string[] = []
  const issuer = new IssuerActor()
  const holder = new DidClient()

  before(async () => {
    homeFront = await HttpsFront.open()
    foreignFront = await HttpsFront.open()
    home = await createTestApp({ env: { PUBLIC_BASE_URL: homeFront.origin, OUTBOUND_ALLOW_PRIVATE: 'true' }, clock })
    foreign = await createTestApp({
      env: { PUBLIC_BASE_URL: foreignFront.origin, LOG_LEVEL: 'info' },
      clock,
      logSink: { write: (line) => void logged.push(line) },
    })
    homeFront.serve(home.app)
    foreignFront.serve(foreign.app)
  })
  after(async () => {
    await home.close()
    await foreign.close()
    await homeFront.close()
    await foreignFront.close()
  })

  /** The status codes the issuer answered on one of its OpenID4VCI endpoints, in order (Fastify's request log). */
  const answered = (endpoint: string) => {
    const entries = logged.map(
      (line) => JSON.parse(line) as { reqId?: string; req?: { url?: string }; res?: { statusCode?: number } },
    )
    const urls = new Map(entries.filter((e) => e.req?.url).map((e) => [e.reqId, e.req!.url!]))
    return entries
      .filter((e) => e.res?.statusCode !== undefined && urls.get(e.reqId)?.endsWith(`/oid4vci/${endpoint}`))
      .map((e) => e.res!.statusCode)
  }

  it('retries the token and the credential request once with the nonce given, and keeps the credential', async () => {
    await issuer.setUp(foreign.app, 'Gym')
    const schemaId = await issuer.schema(foreign.app, SCHEMA)
    const token = await holder.login(home.app)
    const created = await callAs(foreign.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'GymPass',
      schema_id: schemaId,
      attributes: { member: 'Ada' },
      format: 'dc+sd-jwt',
    })
    assert.equal(created.statusCode, 201, created.body)
    const headers = { ...bearer(token), 'x-user-did': holder.did }
    const prepared = await home.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/offers/accept`,
      headers,
      payload: { offer_uri: created.json().credential_offer_uri },
    })
    assert.equal(prepared.statusCode, 201, prepared.body)
    // The holder takes its time to sign: the nonce of the token response is stale at the issuer.
    clock.advance((DPOP_NONCE_TTL_S + 1) * 1000)
    const { session_id: sessionId, proof } = prepared.json() as { session_id: string; proof: { signing_input: string } }
    const signature = sign(null, Buffer.from(proof.signing_input), holder.privateKey).toString('base64url')
    const done = await home.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/offers/accept/${sessionId}`,
      headers,
      payload: { proof_jwt: `${proof.signing_input}.${signature}` },
    })
    assert.equal(done.statusCode, 201, done.body)
    assert.equal(done.json().credentials[0].credential_data.member, 'Ada')
    assert.deepEqual(answered('token'), [400, 200], 'use_dpop_nonce, then the token')
    assert.deepEqual(answered('credential'), [401, 200], 'use_dpop_nonce, then the credential')
  })
})
