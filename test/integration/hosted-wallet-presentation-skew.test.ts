/**
 * A VP-JWT signed on a holder's device whose clock runs ahead (its iat a little in this service's
 * future) verifies within CLOCK_SKEW_SECONDS and not beyond it: the presentation verifier reads the
 * setting (RFC 7519 §4.1.6) instead of a constant.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Card',
  version: '1',
  attributes: [{ name: 'given_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

/** Issues a card to a fresh holder, asks for it, and answers with a VP-JWT dated `aheadSeconds` ahead; the verifier's verdict. */
async function verdict(t: TestApp, aheadSeconds: number): Promise<string[]> {
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  await issuer.setUp(t.app, 'Card office')
  const schemaId = await issuer.schema(t.app, SCHEMA)
  const holderToken = await holder.login(t.app)
  const verifierToken = await verifier.login(t.app)
  const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
    credential_type: 'Card',
    schema_id: schemaId,
    subject_did: holder.did,
    attributes: { given_name: 'Ada' },
  })
  assert.equal(issued.statusCode, 201, issued.body)
  const { id, jwt } = issued.json().credential as Json
  const created = (
    await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'CardCheck',
      required_credentials: [{ credential_type: 'Card', issuer_did: issuer.did, required_attributes: ['given_name'] }],
      purpose: 'Check',
    })
  ).json() as Json
  assert.equal(
    (
      await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
        qr_code_data: created.qr_code_data,
      })
    ).statusCode,
    201,
  )
  const iat = Math.floor(Date.now() / 1000) + aheadSeconds
  const vp = signPresentation(holder, {
    aud: verifier.did,
    nonce: created.request.nonce,
    credentials: [jwt],
    iat,
    exp: iat + 600,
  })
  const approved = await callAs(
    t.app,
    'POST',
    `/api/wallet/presentation-requests/${created.request.id}/approve`,
    holderToken,
    { credential_ids: [id], presentation_jwt: vp },
  )
  assert.equal(approved.statusCode, 201, approved.body)
  const verified = await callAs(
    t.app,
    'POST',
    `/api/verifier/presentations/${approved.json().presentation.id}/verify`,
    verifierToken,
    { presentation_jwt: vp },
  )
  assert.equal(verified.statusCode, 200, verified.body)
  return verified.json().verification_result.errors as string[]
}

describe('a presentation from a holder whose clock runs ahead', () => {
  let lenient: TestApp
  let strict: TestApp
  before(async () => {
    lenient = await createTestApp()
    strict = await createTestApp({ env: { CLOCK_SKEW_SECONDS: '10' } })
  })
  after(async () => {
    await lenient.close()
    await strict.close()
  })

  it('30 s ahead verifies with the default 60 s, and is issued in the future with CLOCK_SKEW_SECONDS=10', async () => {
    assert.deepEqual(await verdict(lenient, 30), [])
    assert.ok((await verdict(strict, 30)).includes('the presentation is issued in the future'))
  })
})
