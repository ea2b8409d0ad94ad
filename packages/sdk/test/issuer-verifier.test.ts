/**
 * The issuer's and the verifier's helpers against the service on a real port (plain HTTP, a clock
 * the test moves): each helper does what its route does (read back through `client.api` or the
 * holder's side), waitForResult ends on each outcome (answered, declined, expired) and on its
 * signal, and the helpers fail clearly where they cannot work (not signed in, no OpenID4VP on http).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  createIssuerClient,
  createServiceClient,
  createVerifierClient,
  generateHolderKey,
  parseQrPayload,
  presentToRequest,
  ServiceError,
  signIn,
  type HolderKey,
  type IssuerClient,
  type ServiceClient,
  type VerifierClient,
} from '@credential-service/sdk'
import { ManualClock } from '../../../test/helpers/test-app.js'
import { startService, type LiveService } from './support/live-service.js'

const DEGREE = {
  name: 'Degree',
  version: '1.0',
  anonymous_credentials: false,
  attributes: [
    { name: 'given_name', data_type: 'string' as const, required: true },
    { name: 'degree', data_type: 'string' as const, required: true },
  ],
}

describe('the issuer and verifier helpers', () => {
  let svc: LiveService
  const clock = new ManualClock(new Date())
  let issuer: IssuerClient
  let verifier: VerifierClient
  let holder: { key: HolderKey; client: ServiceClient }
  /** GET /api/verifier/requests/:id calls the verifier's client made. */
  let requestReads = 0
  let onRequestRead: () => void = () => {}
  let schemaId: string

  before(async () => {
    svc = await startService({}, { clock })
    issuer = createIssuerClient(await signIn({ baseUrl: svc.baseUrl, key: await generateHolderKey() }))
    // Counts the reads of a request, and runs onRequestRead once each is answered.
    const counting = async (request: Request) => {
      const response = await fetch(request)
      if (request.method === 'GET' && /\/api\/verifier\/requests\/[^/]+$/.test(new URL(request.url).pathname)) {
        requestReads++
        onRequestRead()
      }
      return response
    }
    verifier = createVerifierClient(
      await signIn({ baseUrl: svc.baseUrl, key: await generateHolderKey(), fetch: counting }),
    )
    const key = await generateHolderKey()
    holder = { key, client: await signIn({ baseUrl: svc.baseUrl, key }) }
  })
  after(() => svc?.close())

  it('createProfile, createSchema, issue and revoke do what their routes do', async () => {
    const profile = await issuer.createProfile({ name: 'Example University' })
    assert.deepEqual([profile.did, profile.name], [issuer.did, 'Example University'])
    const schema = await issuer.createSchema(DEGREE)
    schemaId = schema.id
    const { data: schemas } = await issuer.client.api.GET('/api/issuer/{did}/schemas', {
      params: { path: { did: issuer.did } },
    })
    assert.ok(schemas!.data.some((s) => s.id === schema.id && s.name === 'Degree'))

    const credential = await issuer.issue({
      credential_type: 'Degree',
      schema_id: schema.id,
      subject_did: holder.key.did,
      attributes: { given_name: 'Erika', degree: 'BSc' },
    })
    const { data: wallet } = await holder.client.api.GET('/api/wallet/{did}/credentials', {
      params: { path: { did: holder.key.did } },
    })
    assert.ok(
      wallet!.data.some((c) => c.id === credential.id),
      'the holder has the credential',
    )

    const revoked = await issuer.revoke(credential.id, { reason: 'Issued in error' })
    assert.deepEqual([revoked.id, revoked.status], [credential.id, 'revoked'])
    const { data: read } = await issuer.client.api.GET('/api/issuer/{did}/credentials/{credential_id}', {
      params: { path: { did: issuer.did, credential_id: credential.id } },
    })
    assert.equal(read!.credential.status, 'revoked')
  })

  it("createOffer answers the spec's offer; on http there is no OpenID4VCI URI; a bad body is the service's 400", async () => {
    const offer = await issuer.createOffer({
      credential_type: 'Degree',
      schema_id: schemaId,
      attributes: { given_name: 'Max', degree: 'MSc' },
    })
    assert.equal(offer.offer.schema_id, schemaId)
    assert.deepEqual(parseQrPayload(offer.qrCodeData), {
      kind: 'spec-offer',
      value: offer.offer.id,
      raw: JSON.parse(offer.qrCodeData),
    })
    assert.deepEqual([offer.offerUri, offer.txCode, offer.credentialOffer], [null, null, null])

    const error = await issuer.createOffer({ credential_type: '', schema_id: schemaId }).then(
      () => undefined,
      (e: unknown) => e,
    )
    assert.ok(error instanceof ServiceError && error.status === 400, String(error))
  })

  it('a client that is not signed in is refused before any call', async () => {
    const anonymous = createIssuerClient(createServiceClient({ baseUrl: svc.baseUrl }))
    assert.throws(() => anonymous.did, /Not signed in/)
    await assert.rejects(anonymous.createSchema(DEGREE), /Not signed in/)
    await assert.rejects(
      createVerifierClient(createServiceClient({ baseUrl: svc.baseUrl })).waitForResult('x'),
      /Not signed in/,
    )
  })

  it('createOpenid4vpRequest fails on http (no openid4vp:// URI); createPresentationRequest answers the spec request', async () => {
    const body = {
      presentation_type: 'DegreeCheck',
      purpose: 'Check a degree',
      required_credentials: [{ credential_type: 'Degree' }],
    }
    await assert.rejects(
      verifier.createOpenid4vpRequest(body),
      /has no openid4vp:\/\/ URI: the service makes one only on https/,
    )
    const created = await verifier.createPresentationRequest(body)
    assert.equal(created.authorizationRequestUri, null)
    assert.deepEqual([created.request.verifier_did, created.request.status], [verifier.did, 'pending'])
    assert.equal(parseQrPayload(created.qrCodeData).value, created.request.id)
    assert.equal((await verifier.getRequest(created.request.id)).id, created.request.id)
  })

  it('waitForResult: answered by a presentation, which verify checks again', async () => {
    await verifier.createProfile({ name: 'Example Employer' })
    const credential = await issuer.issue({
      credential_type: 'Degree',
      schema_id: schemaId,
      subject_did: holder.key.did,
      attributes: { given_name: 'Erika', degree: 'PhD' },
    })
    const { request } = await verifier.createPresentationRequest({
      presentation_type: 'DegreeCheck',
      purpose: 'Hiring',
      required_credentials: [{ credential_type: 'Degree' }],
    })
    const waiting = verifier.waitForResult(request.id, { intervalMs: 20 })
    const { presentationId } = await presentToRequest(holder.client, holder.key, {
      requestId: request.id,
      credentialIds: [credential.id],
    })
    const result = await waiting
    assert.equal(result.outcome, 'answered')
    assert.equal(result.presentation?.id, presentationId)
    assert.equal(result.request.status, 'submitted')
    const check = await verifier.verify(presentationId)
    assert.equal(check.verification_result.is_valid, true, check.verification_result.errors.join('; '))
    assert.equal(check.presentation.status, 'verified')
  })

  it('waitForResult: declined when the holder it was addressed to rejects it', async () => {
    const { request } = await verifier.createPresentationRequest({
      presentation_type: 'DegreeCheck',
      purpose: 'Hiring',
      required_credentials: [{ credential_type: 'Degree' }],
      holder_did: holder.key.did,
    })
    const waiting = verifier.waitForResult(request.id, { intervalMs: 20 })
    await holder.client.api.POST('/api/wallet/presentation-requests', { body: { request_id: request.id } })
    await holder.client.api.POST('/api/wallet/presentation-requests/{request_id}/reject', {
      params: { path: { request_id: request.id } },
      body: { reason: 'Not now' },
    })
    const result = await waiting
    assert.deepEqual(
      [result.outcome, result.request.status, result.presentation, result.reason],
      ['declined', 'rejected', null, 'Not now'],
    )
  })

  it('waitForResult: declined when a holder rejects a request addressed to no one (which stays open to others)', async () => {
    const { request } = await verifier.createPresentationRequest({
      presentation_type: 'DegreeCheck',
      purpose: 'Hiring',
      required_credentials: [{ credential_type: 'Degree' }],
    })
    const waiting = verifier.waitForResult(request.id, { intervalMs: 20 })
    await holder.client.api.POST('/api/wallet/presentation-requests', { body: { request_id: request.id } })
    await holder.client.api.POST('/api/wallet/presentation-requests/{request_id}/reject', {
      params: { path: { request_id: request.id } },
      body: { reason: 'Wrong employer' },
    })
    const result = await waiting
    assert.deepEqual([result.outcome, result.request.status, result.reason], ['declined', 'pending', 'Wrong employer'])
  })

  it('waitForResult: expired once the request outlives its expiry unanswered', async () => {
    const expiresAt = new Date(clock.now().getTime() + 5 * 60_000).toISOString()
    const { request } = await verifier.createPresentationRequest({
      presentation_type: 'DegreeCheck',
      purpose: 'Hiring',
      required_credentials: [{ credential_type: 'Degree' }],
      expires_at: expiresAt,
    })
    const reads = requestReads
    // The first read sees it pending; then the service's clock passes its expiry (the sessions last longer).
    onRequestRead = () => {
      if (requestReads === reads + 1) clock.advance(6 * 60_000)
    }
    try {
      const result = await verifier.waitForResult(request.id, { intervalMs: 20 })
      assert.deepEqual([result.outcome, result.request.status], ['expired', 'expired'])
      assert.ok(requestReads >= reads + 2, 'it read the request again after the first answer')
    } finally {
      onRequestRead = () => {}
    }
  })

  it("waitForResult: its signal ends the wait with the signal's reason, while the request is still pending", async () => {
    const { request } = await verifier.createPresentationRequest({
      presentation_type: 'DegreeCheck',
      purpose: 'Hiring',
      required_credentials: [{ credential_type: 'Degree' }],
    })
    const stop = new AbortController()
    const reads = requestReads
    onRequestRead = () => {
      if (requestReads === reads + 2) stop.abort(new Error('gave up'))
    }
    try {
      await assert.rejects(verifier.waitForResult(request.id, { signal: stop.signal, intervalMs: 20 }), /gave up/)
    } finally {
      onRequestRead = () => {}
    }
    assert.equal((await verifier.getRequest(request.id)).status, 'pending')
    // Already aborted: no read at all.
    const before = requestReads
    await assert.rejects(
      verifier.waitForResult(request.id, { signal: AbortSignal.abort(new Error('never mind')) }),
      /never mind/,
    )
    assert.equal(requestReads, before)
  })
})
