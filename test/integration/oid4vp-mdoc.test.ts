/**
 * An mDL presented to this service's verifier over OpenID4VP 1.0 (Appendix B.2, ISO/IEC 18013-7
 * Annex B as OpenID4VP 1.0 profiles it). The mDL is issued through the spec's issue route; the
 * wallet is independent of the service's mdoc code: it reads the request object, computes the
 * SessionTranscript itself with cbor-x and node:crypto (`OpenID4VPHandover`, §B.2.6.1), builds and
 * signs the DeviceResponse with @auth0/mdl, and posts it over direct_post or, encrypted with jose,
 * over direct_post.jwt. Each check of the verifier has a refusal: issuer signature, DS chain to a
 * root the service does not host, value digest, validity (expired, not yet valid), device
 * signature over another transcript, another doctype, revocation. Elements beyond what was asked
 * are verified with the rest but not kept in the verdict (data minimisation).
 */
import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import * as x509 from '@peculiar/x509'
import { Decoder } from 'cbor-x'
import * as jose from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { makeTestChain } from '../helpers/mdoc-test-chain.js'
import { auth0Wallet } from '../helpers/mdoc-wallet/auth0-wallet.js'
import {
  deviceResponse as signedDeviceResponse,
  handoverOf,
  type Handover,
  mdocQueryId,
  postMdocAnswer,
  requestObject,
} from '../helpers/mdoc-wallet/oid4vp-mdoc-answer.js'
import { generateWalletKey, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'
import { MDL_DOCTYPE as MDL, MDL_NAMESPACE as NAMESPACE, sampleLicence as licence } from '../helpers/mdl-sample.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const OTHER = 'org.example.membership.1'
const DAY = 86_400_000
const MINUTE = 60_000
const ASKED = ['given_name', 'age_over_18']
const cbor = new Decoder({ mapsAsObjects: false })

/** A DeviceResponse disclosing `elements` (by default what the requests here ask for). */
const deviceResponse = (
  holder: WalletKey,
  mdoc: Buffer | { foreign: string },
  h: Handover,
  options: { doctype?: string; namespace?: string; elements?: string[] } = {},
) => signedDeviceResponse(holder, mdoc, h, { ...options, elements: options.elements ?? ASKED })
const post = postMdocAnswer

/** The IssuerSigned with one byte of `part` (found in it) changed. */
function tampered(issuerSigned: Buffer, part: Buffer, at: number): Buffer {
  const offset = issuerSigned.indexOf(part)
  assert.ok(offset >= 0)
  const copy = Buffer.from(issuerSigned)
  copy[offset + at]! ^= 0x01
  return copy
}

describe(`an mDL presented over OpenID4VP 1.0 (Appendix B.2) to the service's verifier (${TEST_ENGINE})`, () => {
  let front: HttpsFront
  let t: TestApp
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let holder: WalletKey
  let mdlSchema: string
  let mdl: Buffer

  const issue = async (body: Json) => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: MDL,
      schema_id: mdlSchema,
      subject_did: holder.did,
      attributes: licence,
      format: 'mso_mdoc',
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential as Json
  }
  const createRequest = async (body: Json = {}) => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'AgeCheck',
      purpose: 'Age check',
      required_credentials: [{ credential_type: MDL, issuer_did: issuer.did, required_attributes: ASKED }],
      ...body,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const recorded = async (requestId: string) => {
    const request = (await callAs(t.app, 'GET', `/api/verifier/requests/${requestId}`, verifierToken)).json() as Json
    const list = (
      await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/presentations?limit=100`, verifierToken)
    ).json() as Json
    const items = (list.presentations ?? list.items ?? list.data) as Json[]
    return { request, presentation: items.find((p) => p.request_id === requestId) as Json | undefined }
  }
  /** Refused, nothing consumed: the request stays open and shows the attempt with an error matching `expected`. */
  const refused = async (answer: { status: number; body: Json }, requestId: string, expected: RegExp) => {
    assert.equal(answer.status, 400, JSON.stringify(answer.body))
    assert.match(String(answer.body.error_description), expected)
    const { request, presentation } = await recorded(requestId)
    assert.equal(request.request.status, 'pending')
    assert.equal(presentation, undefined)
    assert.ok(
      (request.openid4vp.refused_attempts.recent as Json[]).some((a) => a.errors.some((e: string) => expected.test(e))),
      JSON.stringify(request.openid4vp.refused_attempts),
    )
  }
  /** A fresh request, its request object, and the handover a wallet reads from it. */
  const open = async (body: Json = {}) => {
    const created = await createRequest(body)
    const request = await requestObject(created)
    return { created, request, handover: await handoverOf(request) }
  }

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin }, clock })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Kraftfahrt-Bundesamt')
    const country = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/update`, issuer.token, { country: 'DE' })
    assert.equal(country.statusCode, 200, country.body)
    verifierToken = await verifier.login(t.app)
    holder = await generateWalletKey('ES256')
    const preset = (await t.app.inject({ method: 'GET', url: '/api/schema-presets' }))
      .json()
      .presets.find((p: Json) => p.id === MDL)
    const schema = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/schemas`, issuer.token, preset.schema)
    assert.equal(schema.statusCode, 201, schema.body)
    mdlSchema = schema.json().schema.id
    mdl = Buffer.from((await issue({})).jwt, 'base64url')
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('asks by DCQL for an mso_mdoc of the doctype, each claim by [namespace, element], ES256 issuer and device auth', async () => {
    const { request } = await open()
    const query = (request.dcql_query.credentials as Json[]).find((c) => c.format === 'mso_mdoc')
    assert.ok(query, JSON.stringify(request.dcql_query))
    assert.deepEqual(query.meta, { doctype_value: MDL })
    assert.deepEqual(
      query.claims.map((c: Json) => c.path),
      ASKED.map((e) => [NAMESPACE, e]),
    )
    assert.deepEqual(request.client_metadata.vp_formats_supported.mso_mdoc, {
      issuerauth_alg_values: [-7],
      deviceauth_alg_values: [-7],
    })
  })

  it('direct_post: accepted, recorded as verified with what was asked, and the verify route checks it again', async () => {
    const { created, request, handover } = await open()
    const presentation = await deviceResponse(holder, mdl, handover)
    const answer = await post(request, presentation)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const { request: shown, presentation: kept } = await recorded(created.request.id)
    assert.equal(shown.request.status, 'verified')
    assert.equal(shown.openid4vp.answer, 'accepted')
    assert.equal(kept?.id, answer.body.presentation_id)
    assert.equal(kept?.status, 'verified')
    assert.deepEqual(kept?.provided_attributes, ['age_over_18', 'given_name'])
    const subject = kept?.verification_result.credential_subjects[0]
    assert.equal(subject.issuer, issuer.did)
    assert.equal(subject.given_name, 'Erika')
    assert.equal(subject.age_over_18, true)
    const again = await callAs(
      t.app,
      'POST',
      `/api/verifier/presentations/${answer.body.presentation_id}/verify`,
      verifierToken,
      { presentation_jwt: JSON.stringify({ [mdocQueryId(request)]: [presentation] }) },
    )
    assert.equal(again.statusCode, 200, again.body)
  })

  it("direct_post.jwt: encrypted to the request's key, the transcript naming its JWK thumbprint; without the thumbprint refused", async () => {
    const { created, request, handover } = await open({ response_mode: 'direct_post.jwt' })
    assert.ok(handover.thumbprint)
    const without = await post(request, await deviceResponse(holder, mdl, { ...handover, thumbprint: null }))
    await refused(without, created.request.id, /device/i)
    const answer = await post(request, await deviceResponse(holder, mdl, handover))
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const { presentation } = await recorded(created.request.id)
    assert.equal(presentation?.status, 'verified')
  })

  it('elements disclosed beyond what was asked are verified but not kept: the verdict names only the asked ones', async () => {
    const { created, request, handover } = await open()
    const answer = await post(
      request,
      await deviceResponse(holder, mdl, handover, { elements: [...ASKED, 'family_name', 'birth_date'] }),
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const { presentation } = await recorded(created.request.id)
    assert.deepEqual(presentation?.provided_attributes, ['age_over_18', 'given_name'])
    const subject = presentation?.verification_result.credential_subjects[0]
    assert.equal(subject.family_name, undefined)
    assert.equal(subject.birth_date, undefined)
    assert.equal(subject.given_name, 'Erika')
  })

  it('refuses a device signature over another transcript: another nonce, client_id or response_uri', async () => {
    const { created, request, handover } = await open()
    for (const other of [
      { nonce: 'another-nonce' },
      { clientId: 'redirect_uri:https://elsewhere.example/cb' },
      { responseUri: 'https://elsewhere.example/cb' },
    ]) {
      const answer = await post(request, await deviceResponse(holder, mdl, { ...handover, ...other }))
      await refused(answer, created.request.id, /device/i)
    }
  })

  it('an x509_hash client id (OID4VP 1.0 §5.9.3): the transcript names it; one naming another client id is refused', async () => {
    const { created, request, handover } = await open({ client_id_prefix: 'x509_hash' })
    assert.match(handover.clientId, /^x509_hash:[A-Za-z0-9_-]{43}$/)
    const other = await post(
      request,
      await deviceResponse(holder, mdl, { ...handover, clientId: `x509_san_dns:${new URL(front.origin).hostname}` }),
    )
    await refused(other, created.request.id, /device/i)
    const answer = await post(request, await deviceResponse(holder, mdl, handover))
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
  })

  it('dcql_trusted_authorities (OID4VP 1.0 §6.1.1): the mdoc query names the trusted roots by aki; the mDL, its DS issued under one, is accepted', async () => {
    const chain = await makeTestChain({ country: 'DE' })
    const chainRoot = new X509Certificate(chain.iacaDer).toString()
    const { created, request, handover } = await open({ dcql_trusted_authorities: true, trusted_roots: [chainRoot] })
    const query = (request.dcql_query.credentials as Json[]).find((c) => c.format === 'mso_mdoc')!
    const ski = (pem: string) =>
      Buffer.from(
        new x509.X509Certificate(pem).getExtension(x509.SubjectKeyIdentifierExtension)!.keyId,
        'hex',
      ).toString('base64url')
    const certs = (await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })).json()
      .certificates as Json[]
    const iaca = certs.find((c) => c.use === 'iaca' && c.status === 'active')!.pem as string
    assert.equal(query.trusted_authorities[0].type, 'aki')
    assert.ok(query.trusted_authorities[0].values.includes(ski(iaca)), 'the hosted IACA')
    // The request's trusted root has no subject key identifier: nothing in a chain could name it, so it is left out.
    assert.ok(query.trusted_authorities[0].values.every((v: string) => /^[A-Za-z0-9_-]+$/.test(v)))
    // The mDL's Document Signer names the hosted IACA as its authority: a wallet matches it.
    const ds = certs.find((c) => c.use === 'document_signer' && c.status === 'active')!.pem as string
    const aki = new x509.X509Certificate(ds).getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId!
    assert.ok(query.trusted_authorities[0].values.includes(Buffer.from(aki, 'hex').toString('base64url')))
    const answer = await post(request, await deviceResponse(holder, mdl, handover))
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal((await recorded(created.request.id)).request.request.status, 'verified')
    // Without the option the query names no authorities.
    const plain = await open()
    assert.equal((plain.request.dcql_query.credentials as Json[])[0]!.trusted_authorities, undefined)
  })

  it('refuses an issuer signature with one byte flipped', async () => {
    const issuerAuth = cbor.decode(mdl).get('issuerAuth') as unknown[]
    const signature = Buffer.from(issuerAuth[3] as Uint8Array)
    const { created, request, handover } = await open()
    const answer = await post(request, await deviceResponse(holder, tampered(mdl, signature, 10), handover))
    await refused(answer, created.request.id, /signature/i)
  })

  it('refuses a changed element value (its digest in the MSO no longer matches)', async () => {
    const { created, request, handover } = await open()
    const changed = tampered(mdl, Buffer.from('Erika'), 4)
    const answer = await post(request, await deviceResponse(holder, changed, handover))
    await refused(answer, created.request.id, /digest/i)
  })

  it('refuses an mDL whose Document Signer chains to an IACA root the service does not host', async () => {
    // Made with @auth0/mdl by a test IACA and Document Signer (ISO/IEC 18013-5 Annex B) this service does not host.
    const chain = await makeTestChain({ country: 'DE' })
    const now = clock.now()
    const foreign = {
      foreign: await auth0Wallet({
        kind: 'issue',
        doctype: MDL,
        namespace: NAMESPACE,
        values: { given_name: 'Erika', age_over_18: true, issuing_country: 'DE' },
        validFrom: now.toISOString(),
        validUntil: new Date(now.getTime() + 30 * DAY).toISOString(),
        deviceKey: holder.publicJwk as jose.JWK,
        issuerPrivateKey: chain.dsPrivateKey.export({ format: 'jwk' }) as jose.JWK,
        issuerCertificatePem: new X509Certificate(chain.dsDer).toString(),
      }),
    }
    const { created, request, handover } = await open()
    const answer = await post(request, await deviceResponse(holder, foreign, handover))
    await refused(answer, created.request.id, /trust|root|chain|IACA/i)
  })

  it('refuses an expired mDL, and one not yet valid (the service clock moved)', async () => {
    const short = Buffer.from(
      (await issue({ expiration_date: new Date(clock.now().getTime() + MINUTE).toISOString() })).jwt,
      'base64url',
    )
    clock.advance(20 * MINUTE)
    try {
      const { created, request, handover } = await open()
      await refused(
        await post(request, await deviceResponse(holder, short, handover)),
        created.request.id,
        /expired|valid/i,
      )
    } finally {
      clock.advance(-20 * MINUTE)
    }
    const fresh = Buffer.from((await issue({})).jwt, 'base64url')
    clock.advance(-20 * MINUTE)
    try {
      const { created, request, handover } = await open()
      await refused(
        await post(request, await deviceResponse(holder, fresh, handover)),
        created.request.id,
        /not yet valid|valid/i,
      )
    } finally {
      clock.advance(20 * MINUTE)
    }
  })

  it('refuses an mdoc of another doctype than the one asked for', async () => {
    const schema = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/schemas`, issuer.token, {
      name: 'Membership',
      version: '1.0',
      attributes: [
        { name: 'given_name', data_type: 'string', required: true },
        { name: 'age_over_18', data_type: 'boolean', required: true },
      ],
      mdoc: { doctype: OTHER, namespace: OTHER },
    })
    assert.equal(schema.statusCode, 201, schema.body)
    const membership = await issue({
      credential_type: OTHER,
      schema_id: schema.json().schema.id,
      attributes: { given_name: 'Erika', age_over_18: true },
    })
    const { created, request, handover } = await open()
    const answer = await post(
      request,
      await deviceResponse(holder, Buffer.from(membership.jwt, 'base64url'), handover, {
        doctype: OTHER,
        namespace: OTHER,
      }),
    )
    await refused(answer, created.request.id, /missing required credential|DCQL/)
  })

  it("refuses an mDL its issuer revoked through the spec's route (the MSO's status list reference)", async () => {
    const credential = await issue({})
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
      { reason: 'test' },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    const { created, request, handover } = await open()
    const answer = await post(request, await deviceResponse(holder, Buffer.from(credential.jwt, 'base64url'), handover))
    await refused(answer, created.request.id, /revoked/)
  })

  describe('requirements named by the type an mDL was issued as, by its schema, or by its doctype', () => {
    let licenceMdl: Buffer
    before(async () => {
      licenceMdl = Buffer.from((await issue({ credential_type: 'DrivingLicence' })).jwt, 'base64url')
    })
    const onlyAge = (body: Json = {}) => ({
      required_credentials: [
        {
          credential_type: 'DrivingLicence',
          issuer_did: issuer.did,
          required_attributes: ['age_over_18'],
          format: 'mso_mdoc',
          ...body,
        },
      ],
    })

    it('format mso_mdoc asks for the mdoc only, by the doctype of the schema the type is issued under; the mDL meets it, age_over_18 alone is kept', async () => {
      const { created, request, handover } = await open(onlyAge())
      const queries = request.dcql_query.credentials as Json[]
      assert.deepEqual(
        queries.map((q) => q.format),
        ['mso_mdoc'],
      )
      assert.deepEqual(queries[0]!.meta, { doctype_value: MDL })
      assert.deepEqual(
        queries[0]!.claims.map((c: Json) => c.path),
        [[NAMESPACE, 'age_over_18']],
      )
      const answer = await post(
        request,
        await deviceResponse(holder, licenceMdl, handover, { elements: ['age_over_18'] }),
      )
      assert.equal(answer.status, 200, JSON.stringify(answer.body))
      const { presentation } = await recorded(created.request.id)
      assert.equal(presentation?.status, 'verified')
      assert.deepEqual(presentation?.provided_attributes, ['age_over_18'])
      const subject = presentation?.verification_result.credential_subjects[0]
      // Beside the service's own members (issuer, type, credential_id), the one element asked for.
      assert.deepEqual(
        Object.keys(subject)
          .filter((k) => !['issuer', 'type', 'credential_id'].includes(k))
          .sort(),
        ['age_over_18'],
      )
    })

    it("is met through the schema it names, and refused when the mDL is another issuer's", async () => {
      const bySchema = await open(onlyAge({ schema_id: mdlSchema }))
      const answered = await post(
        bySchema.request,
        await deviceResponse(holder, licenceMdl, bySchema.handover, { elements: ['age_over_18'] }),
      )
      assert.equal(answered.status, 200, JSON.stringify(answered.body))

      const elsewhere = await open(onlyAge({ issuer_did: verifier.did }))
      const refusedAnswer = await post(
        elsewhere.request,
        await deviceResponse(holder, licenceMdl, elsewhere.handover, { elements: ['age_over_18'] }),
      )
      await refused(refusedAnswer, elsewhere.created.request.id, /missing required credential DrivingLicence from/)
    })

    it('a ready-made doctype named as the type is asked in its own namespace, with no schema of it here', async () => {
      const pid = 'eu.europa.ec.eudi.pid.1'
      const { request } = await open({
        required_credentials: [{ credential_type: pid, required_attributes: ['age_over_18'], format: 'mso_mdoc' }],
      })
      const queries = request.dcql_query.credentials as Json[]
      assert.deepEqual(
        queries.map(({ id, format, meta, claims }) => ({ id, format, meta, claims })),
        [{ id: 'c0_mdoc', format: 'mso_mdoc', meta: { doctype_value: pid }, claims: [{ path: [pid, 'age_over_18'] }] }],
      )
    })

    it('refuses a format this service does not ask for, and mso_mdoc for a type never issued as an mdoc (400, nothing created)', async () => {
      const ask = (required: Json) =>
        callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
          verifier_did: verifier.did,
          presentation_type: 'AgeCheck',
          purpose: 'Age check',
          required_credentials: [required],
        })
      const unknown = await ask({ credential_type: 'DrivingLicence', format: 'ldp_vp' })
      assert.equal(unknown.statusCode, 400, unknown.body)
      assert.equal(unknown.json().details.field, 'required_credentials[0].format')
      const never = await ask({ credential_type: 'UniversityDegree', format: 'mso_mdoc' })
      assert.equal(never.statusCode, 400, never.body)
      assert.equal(never.json().details.field, 'required_credentials[0]')
      assert.match(never.json().message, /UniversityDegree as mso_mdoc/)
    })
  })
})
