import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { tamper } from '../helpers/wallet-fixtures.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

/**
 * Only the parties of a record change it, and nothing appears in a holder's wallet that the
 * holder did not sign or accept (issue 20, item 2): a stranger who knows a request id cannot
 * close the verifier's request for everyone, and a verifier cannot file a presentation in a
 * holder's name.
 */
describe('records of others: requests and presentations change only by their parties', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  const stranger = new DidClient()
  let holderToken: string
  let verifierToken: string
  let strangerToken: string
  let credential: { id: string; jwt: string }

  const createRequest = async (extra: Json = {}): Promise<Json> => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [{ credential_type: 'Degree', issuer_did: issuer.did }],
      purpose: 'Hiring',
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().request
  }
  const take = (token: string, id: string) =>
    callAs(t.app, 'POST', '/api/wallet/presentation-requests', token, { request_id: id })
  const reject = (token: string, id: string) =>
    callAs(t.app, 'POST', `/api/wallet/presentation-requests/${id}/reject`, token, { reason: 'no' })
  const approve = (request: Json) =>
    callAs(t.app, 'POST', `/api/wallet/presentation-requests/${request.id}/approve`, holderToken, {
      credential_ids: [credential.id],
      presentation_jwt: signPresentation(holder, {
        aud: verifier.did,
        nonce: request.nonce,
        credentials: [credential.jwt],
      }),
    })
  const requestStatus = async (id: string) =>
    (await callAs(t.app, 'GET', `/api/verifier/requests/${id}`, verifierToken)).json().request.status
  const holderPresentations = async () =>
    (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/presentations`, holderToken)).json().data as Json[]

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Uni')
    const schemaId = await issuer.schema(t.app, JWT_DEGREE_SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
    strangerToken = await stranger.login(t.app)
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Degree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Ada', gpa: 3.5 },
    })
    assert.equal(res.statusCode, 201, res.body)
    credential = { id: res.json().credential.id, jwt: res.json().credential.jwt }
  })
  after(() => t.close())

  it("a stranger's rejection of an open request answers only the stranger; the holder still answers it", async () => {
    const request = await createRequest()
    assert.equal((await take(strangerToken, request.id)).statusCode, 201)
    const rejected = await reject(strangerToken, request.id)
    assert.equal(rejected.statusCode, 200, rejected.body)
    assert.equal(rejected.json().status, 'rejected')
    const strangerView = (
      await callAs(t.app, 'GET', `/api/wallet/presentation-requests/${request.id}/status`, strangerToken)
    ).json()
    assert.equal(strangerView.status, 'rejected')
    assert.equal(strangerView.request_status, 'pending')
    assert.equal(await requestStatus(request.id), 'pending')
    // The holder the verifier meant takes and answers it.
    assert.equal((await take(holderToken, request.id)).statusCode, 201)
    const approved = await approve(request)
    assert.equal(approved.statusCode, 201, approved.body)
    assert.equal(await requestStatus(request.id), 'submitted')
  })

  it('a request addressed to a holder: nobody else takes, answers or submits to it; its holder rejecting closes it', async () => {
    const request = await createRequest({ holder_did: holder.did })
    assert.equal(request.holder_did, holder.did)
    const foreignTake = await take(strangerToken, request.id)
    assert.equal(foreignTake.statusCode, 404, foreignTake.body)
    assert.equal(typeof foreignTake.json().message, 'string')
    assert.equal((await reject(strangerToken, request.id)).statusCode, 404)
    // Submitted directly by the stranger, signed by the stranger: not for this request.
    const direct = await callAs(t.app, 'POST', '/api/verifier/presentations', strangerToken, {
      request_id: request.id,
      presentation_jwt: signPresentation(stranger, {
        aud: verifier.did,
        nonce: request.nonce,
        credentials: [credential.jwt],
      }),
    })
    assert.equal(direct.statusCode, 400, direct.body)
    assert.match(direct.json().message, /request_id/)
    assert.equal(await requestStatus(request.id), 'pending')

    assert.equal((await take(holderToken, request.id)).statusCode, 201)
    assert.equal((await reject(holderToken, request.id)).statusCode, 200)
    assert.equal(await requestStatus(request.id), 'rejected')
    assert.equal((await approve(request)).statusCode, 409)
  })

  it("a verifier cannot file a presentation in a holder's name that the holder did not sign", async () => {
    const before = (await holderPresentations()).length
    const request = await createRequest()
    const claims = { aud: verifier.did, nonce: request.nonce, credentials: [credential.jwt] }
    const forgeries: Array<[string, string]> = [
      // The holder's kid, the verifier's signature.
      ['signed by another key', signPresentation(holder, claims, verifier)],
      // The verifier's own kid and key, iss the holder.
      [
        'signed by the verifier as itself',
        tamper(signPresentation(verifier, claims), (p) => {
          p.iss = holder.did
          ;(p.vp as Json).holder = holder.did
        }),
      ],
      [
        'a genuine VP with its claims edited',
        tamper(signPresentation(holder, { ...claims, nonce: 'other' }), (p) => {
          p.nonce = request.nonce
        }),
      ],
      ['no signature', `${signPresentation(holder, claims).split('.').slice(0, 2).join('.')}.`],
    ]
    for (const [name, jwt] of forgeries) {
      const res = await callAs(t.app, 'POST', '/api/verifier/presentations', verifierToken, {
        presentation_jwt: jwt,
        request_id: request.id,
      })
      assert.equal(res.statusCode, 400, `${name}: ${res.body}`)
      assert.match(res.json().message, /presentation_jwt/, name)
    }
    assert.equal((await holderPresentations()).length, before, 'nothing appeared in the wallet')
    assert.equal(await requestStatus(request.id), 'pending')
    // What the holder did sign, the verifier may file: it then shows in the holder's wallet.
    const genuine = await callAs(t.app, 'POST', '/api/verifier/presentations', verifierToken, {
      presentation_jwt: signPresentation(holder, claims),
      request_id: request.id,
    })
    assert.equal(genuine.statusCode, 201, genuine.body)
    assert.ok((await holderPresentations()).some((p) => p.id === genuine.json().presentation.id))
  })
})
