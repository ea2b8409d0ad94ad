/**
 * The whole lifecycle over HTTP, as three parties would run it: issuer, holder and verifier log
 * in with their DIDs; the issuer issues; the holder sees the credential, answers the verifier's
 * request with a VP-JWT signed on its own side; the verifier verifies; the issuer revokes; a new
 * presentation fails. The verifier's callback receiver is a real node:http server on 127.0.0.1
 * (hence CALLBACK_ALLOW_PRIVATE) and checks every event's signature with the JWKS the service
 * publishes, using jose rather than the service's own code.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createLocalJWKSet, flattenedVerify } from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

interface ReceivedEvent {
  body: Buffer
  signature: string
  event: { id: string; type: string; created_at: string; data: Json }
}

/** The verifier's webhook endpoint: records what arrives and answers 204. */
async function startReceiver(): Promise<{ url: string; events: ReceivedEvent[]; close(): Promise<void> }> {
  const events: ReceivedEvent[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      events.push({ body, signature: String(req.headers['x-signature']), event: JSON.parse(body.toString()) })
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks/verifier?token=receiver-secret`,
    events,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('full lifecycle with signed callbacks', () => {
  let t: TestApp
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string

  before(async () => {
    receiver = await startReceiver()
    t = await createTestApp({ env: { CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_POLL_MS: '20' } })
    await issuer.setUp(t.app, 'Lifecycle University')
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  const request = async (): Promise<Json> => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [
        { credential_type: 'UniversityDegree', issuer_did: issuer.did, required_attributes: ['given_name'] },
      ],
      required_predicates: [{ attribute: 'gpa', operator: '>=', value: 3 }],
      purpose: 'Hiring',
      callback_url: receiver.url,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  const approve = async (created: Json, credential: { id: string; jwt: string }): Promise<Json> => {
    const inbox = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
      qr_code_data: created.qr_code_data,
    })
    assert.equal(inbox.statusCode, 201, inbox.body)
    const vp = signPresentation(holder, {
      aud: verifier.did,
      nonce: created.request.nonce,
      credentials: [credential.jwt],
    })
    const res = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${created.request.id}/approve`,
      holderToken,
      { credential_ids: [credential.id], presentation_jwt: vp },
    )
    assert.equal(res.statusCode, 201, res.body)
    return { ...res.json().presentation, vp }
  }
  const verify = async (presentation: Json): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentation.id}/verify`, verifierToken, {
      presentation_jwt: presentation.vp,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  const eventsOf = (requestId: string) =>
    receiver.events.filter((e) => e.event.data.request_id === requestId).map((e) => e.event.type)

  it('issues, presents, verifies, revokes and fails the next presentation; every step is a signed callback', async () => {
    const schemaId = await issuer.schema(t.app, {
      name: 'Degree',
      version: '1.0',
      attributes: [
        { name: 'given_name', data_type: 'string', required: true },
        { name: 'gpa', data_type: 'number', required: true },
      ],
    })
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Ada', gpa: 3.7 },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const credential = { id: issued.json().credential.id as string, jwt: issued.json().credential.jwt as string }

    const wallet = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/credentials`, holderToken)
    assert.equal(wallet.statusCode, 200, wallet.body)
    assert.ok(
      wallet.json().data.some((c: Json) => c.id === credential.id),
      'the holder sees the issued credential',
    )

    const first = await request()
    const presentation = await approve(first, credential)
    const result = await verify(presentation)
    assert.deepEqual(result.verification_result.errors, [])
    assert.equal(result.verification_result.is_valid, true)
    assert.equal(result.status, 'verified')
    await waitFor('submitted and verified events', () => eventsOf(first.request.id).length === 2)
    assert.deepEqual(eventsOf(first.request.id), ['presentation.submitted', 'presentation.verified'])

    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)

    const second = await request()
    const failed = await verify(await approve(second, credential))
    assert.equal(failed.verification_result.is_valid, false)
    assert.equal(failed.status, 'failed')
    assert.ok(
      failed.verification_result.errors.some((e: string) => /revoked/.test(e)),
      failed.verification_result.errors.join('; '),
    )
    await waitFor('submitted and failed events', () => eventsOf(second.request.id).length === 2)
    assert.deepEqual(eventsOf(second.request.id), ['presentation.submitted', 'presentation.failed'])
    const failedEvent = receiver.events.find((e) => e.event.type === 'presentation.failed')!
    assert.equal(failedEvent.event.data.is_valid, false)
    assert.ok(failedEvent.event.data.errors.some((e: string) => /revoked/.test(e)))

    const third = await request()
    const inbox = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
      request_id: third.request.id,
    })
    assert.equal(inbox.statusCode, 201, inbox.body)
    const rejected = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${third.request.id}/reject`,
      holderToken,
      { reason: 'not today' },
    )
    assert.equal(rejected.statusCode, 200, rejected.body)
    await waitFor('rejected event', () => eventsOf(third.request.id).length === 1)
    assert.deepEqual(eventsOf(third.request.id), ['presentation.rejected'])
    assert.equal(receiver.events.find((e) => e.event.type === 'presentation.rejected')!.event.data.reason, 'not today')

    // Every event verifies against the published keys; none verifies once its body is altered.
    const published = await t.app.inject({ method: 'GET', url: '/api/callbacks/jwks' })
    assert.equal(published.statusCode, 200)
    const jwks = createLocalJWKSet(published.json())
    assert.equal(receiver.events.length, 5)
    for (const { body, signature, event } of receiver.events) {
      const [protectedHeader, , sig] = signature.split('.') as [string, string, string]
      const checked = await flattenedVerify(
        { protected: protectedHeader, payload: body.toString('base64url'), signature: sig },
        jwks,
        { algorithms: ['EdDSA'] },
      )
      assert.deepEqual(JSON.parse(Buffer.from(checked.payload).toString()), event)
      const altered = Buffer.from(body.toString().replace(event.type, 'presentation.forged'))
      await assert.rejects(
        flattenedVerify({ protected: protectedHeader, payload: altered.toString('base64url'), signature: sig }, jwks),
      )
    }
    assert.equal(new Set(receiver.events.map((e) => e.event.id)).size, 5, 'each event has its own id')
  })
})
