/**
 * Whom a verifier trusts besides the issuers hosted here (docs/trust.md): an mDL issued by another
 * instance of the service (its own IACA root and Document Signer, its own Token Status List) is
 * refused until the request names that root (`trusted_roots`) or the verifier's trust sources do
 * (PUT /api/verifier/:did/trust); then it is accepted, named by its Document Signer, and its status
 * is read from the other instance's list in CWT form, so a revocation there refuses it here. The
 * wallet is independent of the service's mdoc code (@auth0/mdl, cbor-x, jose).
 */
import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeTwoInstances, openTwoInstances } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { MDL_DOCTYPE as MDL, sampleLicence as licence } from '../helpers/mdl-sample.js'
import { makeTestChain } from '../helpers/mdoc-test-chain.js'
import { deviceResponse, handoverOf, postMdocAnswer, requestObject } from '../helpers/mdoc-wallet/oid4vp-mdoc-answer.js'
import { generateWalletKey, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import type { TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const DAY = 86_400_000
const ASKED = ['age_over_18']

describe(`a verifier's trust in mDL issuers elsewhere: trust sources and a request's trusted_roots (${TEST_ENGINE})`, () => {
  let homeFront: HttpsFront
  let foreignFront: HttpsFront
  let home: TestApp
  let foreign: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let holder: WalletKey
  let mdlSchema: string
  let iacaPem: string

  const issueMdl = async (): Promise<Json> => {
    const res = await callAs(foreign.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: mdlSchema,
      subject_did: holder.did,
      attributes: licence,
      format: 'mso_mdoc',
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential as Json
  }
  const trust = (sources: Json[]) =>
    callAs(home.app, 'PUT', `/api/verifier/${verifier.did}/trust`, verifierToken, { sources })
  const createRequest = (body: Json = {}) =>
    callAs(home.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'AgeCheck',
      purpose: 'Age check',
      required_credentials: [{ credential_type: MDL, required_attributes: ASKED, format: 'mso_mdoc' }],
      ...body,
    })
  /** A new request on the home instance answered with the mDL: the answer and the request's view. */
  const present = async (credential: Json, body: Json = {}) => {
    const created = await createRequest(body)
    assert.equal(created.statusCode, 201, created.body)
    const request = await requestObject(created.json())
    const presentation = await deviceResponse(
      holder,
      Buffer.from(credential.jwt, 'base64url'),
      await handoverOf(request),
      { elements: ASKED },
    )
    const answer = await postMdocAnswer(request, presentation)
    const view = (
      await callAs(home.app, 'GET', `/api/verifier/requests/${created.json().request.id}`, verifierToken)
    ).json() as Json
    return { answer, view }
  }
  const refusedFor = (outcome: { answer: { status: number; body: Json } }, why: RegExp) => {
    assert.equal(outcome.answer.status, 400, JSON.stringify(outcome.answer.body))
    assert.match(String(outcome.answer.body.error_description), why)
  }

  before(async () => {
    ;({ homeFront, foreignFront, home, foreign } = await openTwoInstances())
    await issuer.setUp(foreign.app, 'Kraftfahrt-Bundesamt')
    const country = await callAs(foreign.app, 'PUT', `/api/issuer/${issuer.did}/update`, issuer.token, {
      country: 'DE',
    })
    assert.equal(country.statusCode, 200, country.body)
    const preset = (await foreign.app.inject({ method: 'GET', url: '/api/schema-presets' }))
      .json()
      .presets.find((p: Json) => p.id === MDL)
    mdlSchema = await issuer.schema(foreign.app, preset.schema)
    // What a relying party downloads from the issuer: its IACA root (public).
    const certificates = (
      await foreign.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    ).json().certificates as Json[]
    iacaPem = certificates.find((c) => c.use === 'iaca' && c.status === 'active')!.pem
    verifierToken = await verifier.login(home.app)
    const profile = await callAs(home.app, 'POST', '/api/verifier', verifierToken, { name: 'Bar at the corner' })
    assert.equal(profile.statusCode, 201, profile.body)
    holder = await generateWalletKey('ES256')
  })
  after(() => closeTwoInstances({ homeFront, foreignFront, home, foreign }))

  it('refuses the mDL of an issuer elsewhere while neither the request nor the verifier names its root', async () => {
    refusedFor(await present(await issueMdl()), /trust|root|chain/i)
  })

  it("accepts it when the request names the root: named by its Document Signer, its status read from the other instance's CWT list", async () => {
    const { answer, view } = await present(await issueMdl(), { trusted_roots: [iacaPem] })
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal(view.request.status, 'verified')
    const presentation = (
      await callAs(home.app, 'GET', `/api/verifier/${verifier.did}/presentations?limit=100`, verifierToken)
    ).json().presentations as Json[]
    const kept = presentation.find((p) => p.id === answer.body.presentation_id)!
    const subject = kept.verification_result.credential_subjects[0] as Json
    assert.equal(subject.age_over_18, true)
    assert.match(subject.issuer, /^x509:.*CN=/)
    assert.equal(subject.issuer.includes(issuer.did), false)
  })

  it("accepts it when the verifier's trust sources name the root, and refuses it again once they no longer do", async () => {
    const set = await trust([{ type: 'x509', certificates: [iacaPem] }])
    assert.equal(set.statusCode, 200, set.body)
    const shown = await callAs(home.app, 'GET', `/api/verifier/${verifier.did}/trust`, verifierToken)
    assert.equal(shown.statusCode, 200, shown.body)
    const source = shown.json().sources[0] as Json
    assert.deepEqual(source.state, { loaded: true, entries: 1 })
    assert.equal(source.certificates[0].subject, new X509Certificate(iacaPem).subject.replaceAll('\n', ', '))

    const credential = await issueMdl()
    const accepted = await present(credential)
    assert.equal(accepted.answer.status, 200, JSON.stringify(accepted.answer.body))

    const cleared = await trust([])
    assert.equal(cleared.statusCode, 200, cleared.body)
    refusedFor(await present(credential), /trust|root|chain/i)
  })

  it('refuses it once its issuer revokes it on the other instance: the CWT list there says so', async () => {
    assert.equal((await trust([{ type: 'x509', certificates: [iacaPem] }])).statusCode, 200)
    const credential = await issueMdl()
    const before = await present(credential)
    assert.equal(before.answer.status, 200, JSON.stringify(before.answer.body))
    const revoked = await callAs(
      foreign.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
      { reason: 'test' },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    refusedFor(await present(credential), /revoked/)
    assert.equal((await trust([])).statusCode, 200)
  })

  it('refuses what is not a certificate to trust: a private key (not echoed), garbage, an expired root (400 naming the field)', async () => {
    const chain = await makeTestChain({ country: 'DE' })
    const keyPem = chain.dsPrivateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
    const key = await trust([{ type: 'x509', certificates: [keyPem] }])
    assert.equal(key.statusCode, 400, key.body)
    assert.equal(key.json().details.field, 'sources[0].certificates[0]')
    assert.match(key.json().message, /private key/)
    assert.equal(key.body.includes(keyPem.split('\n')[1]!), false)

    const garbage = await trust([
      { type: 'x509', certificates: [iacaPem, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'] },
    ])
    assert.equal(garbage.statusCode, 400, garbage.body)
    assert.equal(garbage.json().details.field, 'sources[0].certificates[1]')

    const old = await makeTestChain({
      notBefore: new Date(Date.now() - 10 * DAY),
      notAfter: new Date(Date.now() - DAY),
    })
    const expired = await trust([{ type: 'x509', certificates: [new X509Certificate(old.iacaDer).toString()] }])
    assert.equal(expired.statusCode, 400, expired.body)
    assert.match(expired.json().message, /expired/)

    const unknownType = await trust([{ type: 'etsi_tl', certificates: [iacaPem] }])
    assert.equal(unknownType.statusCode, 400, unknownType.body)

    // Nothing was kept by the refused calls.
    const shown = await callAs(home.app, 'GET', `/api/verifier/${verifier.did}/trust`, verifierToken)
    assert.deepEqual(shown.json().sources, [])

    const request = await createRequest({ trusted_roots: [keyPem] })
    assert.equal(request.statusCode, 400, request.body)
    assert.equal(request.json().details.field, 'trusted_roots[0]')
  })

  it('answers 404 to a DID with no verifier profile', async () => {
    const stranger = new DidClient()
    const token = await stranger.login(home.app)
    const res = await callAs(home.app, 'GET', `/api/verifier/${stranger.did}/trust`, token)
    assert.equal(res.statusCode, 404, res.body)
    const put = await callAs(home.app, 'PUT', `/api/verifier/${stranger.did}/trust`, token, { sources: [] })
    assert.equal(put.statusCode, 404, put.body)
  })
})
