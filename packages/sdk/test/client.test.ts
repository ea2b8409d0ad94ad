/**
 * The SDK against the real service on a real port (plain HTTP): challenge login, typed calls,
 * the service's errors as ServiceError, and the spec's lifecycle with every party an SDK client
 * (the issuer issues, the holder presents with a predicate proof through presentToRequest, the
 * verifier verifies). What the holder signs is also checked by did-jwt-vc, apart from the service.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  createServiceClient,
  generateHolderKey,
  parseQrPayload,
  presentToRequest,
  resolveQrPayload,
  ServiceError,
  type HolderKey,
  type ServiceClient,
} from '@credential-service/sdk'
import { startService, type LiveService } from './support/live-service.js'
import { verifyVpJwt } from './support/independent.js'

const SCHEMA = {
  name: 'Degree',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string' as const, required: true },
    { name: 'gpa', data_type: 'number' as const, required: true },
  ],
}

describe('the SDK client over HTTP', () => {
  let svc: LiveService
  const parties = {} as Record<'issuer' | 'holder' | 'verifier', { key: HolderKey; client: ServiceClient }>
  let schemaId: string

  /** The raw answer of the same call, read without the SDK, to compare a ServiceError with. */
  const rawError = async (path: string, init: RequestInit = {}) =>
    (await (await fetch(`${svc.baseUrl}${path}`, init)).json()) as { code: string; message: string }
  const caught = async (call: Promise<unknown>): Promise<ServiceError> => {
    try {
      await call
    } catch (error) {
      assert.ok(error instanceof ServiceError, String(error))
      return error
    }
    assert.fail('the call was expected to throw a ServiceError')
  }

  before(async () => {
    svc = await startService()
    for (const name of ['issuer', 'holder', 'verifier'] as const) {
      const key = await generateHolderKey()
      const client = createServiceClient({ baseUrl: svc.baseUrl })
      await client.login(key)
      parties[name] = { key, client }
    }
    const { issuer } = parties
    await issuer.client.api.POST('/api/issuer', { body: { name: 'Example University' } })
    const { data } = await issuer.client.api.POST('/api/issuer/{did}/schemas', {
      params: { path: { did: issuer.key.did } },
      body: SCHEMA,
    })
    schemaId = data!.schema.id
  })
  after(() => svc?.close())

  it('login signs in with the challenge: the session reaches protected routes', async () => {
    const { holder } = parties
    assert.equal(holder.client.session?.did, holder.key.did)
    const { data } = await holder.client.api.GET('/api/auth/me')
    assert.equal(data!.user.did, holder.key.did)
    // A client made with a saved session needs no new login.
    const resumed = createServiceClient({ baseUrl: svc.baseUrl, session: holder.client.session })
    assert.equal((await resumed.api.GET('/api/auth/me')).data!.user.did, holder.key.did)
  })

  it("turns the service's errors into ServiceError with its status, code and message (400, 401, 403, 404)", async () => {
    const { issuer, holder } = parties
    const bad = await caught(
      issuer.client.api.POST('/api/issuer/{did}/schemas', {
        params: { path: { did: issuer.key.did } },
        body: { name: 'x' } as never,
      }),
    )
    const badRaw = await rawError(`/api/issuer/${issuer.key.did}/schemas`, {
      method: 'POST',
      headers: { authorization: `Bearer ${issuer.client.session!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    })
    assert.deepEqual([bad.status, bad.code, bad.message], [400, 'VALIDATION_FAILED', badRaw.message])

    const anonymous = createServiceClient({ baseUrl: svc.baseUrl })
    const unauthenticated = await caught(anonymous.api.GET('/api/auth/me'))
    assert.deepEqual(
      [unauthenticated.status, unauthenticated.code, unauthenticated.message],
      [401, 'UNAUTHENTICATED', (await rawError('/api/auth/me')).message],
    )

    const forbidden = await caught(
      holder.client.api.GET('/api/wallet/{did}/credentials', { params: { path: { did: issuer.key.did } } }),
    )
    assert.equal(forbidden.status, 403)
    assert.equal(forbidden.code, 'FORBIDDEN')
    assert.equal((forbidden.body as { code: string }).code, 'FORBIDDEN')

    const missing = await caught(
      parties.verifier.client.api.GET('/api/verifier/requests/{id}', { params: { path: { id: 'no-such-request' } } }),
    )
    assert.deepEqual([missing.status, missing.code], [404, 'NOT_FOUND'])
    assert.match(missing.message, /not found/i)
  })

  it('a non-JSON 5xx (a proxy in front of the service) is still a ServiceError, with a generic message', async () => {
    const client = createServiceClient({
      baseUrl: svc.baseUrl,
      fetch: async () =>
        new Response('<html><body>502 Bad Gateway</body></html>', {
          status: 502,
          statusText: 'Bad Gateway',
          headers: { 'content-type': 'text/html' },
        }),
    })
    const error = await caught(client.api.GET('/api/health'))
    assert.deepEqual(
      [error.status, error.code, error.message],
      [502, 'HTTP_502', 'The service answered 502 Bad Gateway'],
    )
    assert.match(String(error.body), /Bad Gateway/)
  })

  it('the spec lifecycle: issued, presented with a predicate proof by presentToRequest, verified (is_valid)', async () => {
    const { issuer, holder, verifier } = parties
    const { data: issued } = await issuer.client.api.POST('/api/issuer/{did}/issue', {
      params: { path: { did: issuer.key.did } },
      body: {
        credential_type: 'UniversityDegree',
        schema_id: schemaId,
        subject_did: holder.key.did,
        attributes: { given_name: 'Ada', gpa: 3.8 },
      },
    })
    const credentialId = issued!.credential.id
    const { data: created } = await verifier.client.api.POST('/api/verifier/requests', {
      body: {
        verifier_did: verifier.key.did,
        presentation_type: 'DegreeCheck',
        purpose: 'Hiring',
        required_credentials: [{ credential_type: 'UniversityDegree', required_attributes: ['given_name'] }],
        required_predicates: [{ attribute: 'gpa', operator: '>=', value: 3 }],
      },
    })
    // The holder learns the request from its QR payload.
    const scanned = parseQrPayload(created!.qr_code_data)
    assert.deepEqual([scanned.kind, scanned.value], ['spec-request', created!.request.id])

    const { presentationId, presentationJwt } = await presentToRequest(holder.client, holder.key, {
      requestId: scanned.value,
      credentialIds: [credentialId],
      reveal: ['given_name'],
      predicates: [{ attribute: 'gpa', operator: '>=', value: 3 }],
    })
    // did-jwt-vc, apart from the service: the VP-JWT is the holder's, for this verifier and nonce.
    const independent = await verifyVpJwt(presentationJwt, verifier.key.did, { format: false })
    assert.equal(independent.verified, true)
    assert.deepEqual(independent.verifiablePresentation.type, ['VerifiablePresentation'])
    assert.equal(independent.issuer, holder.key.did)
    assert.equal(independent.payload.nonce, created!.request.nonce)

    const { data: verdict } = await verifier.client.api.POST('/api/verifier/presentations/{id}/verify', {
      params: { path: { id: presentationId } },
      body: { presentation_jwt: presentationJwt },
    })
    assert.equal(verdict!.verification_result.is_valid, true, JSON.stringify(verdict!.verification_result.errors))
    assert.equal(verdict!.consent_valid, true)
    const subject = JSON.stringify(verdict!.verification_result.credential_subjects)
    assert.match(subject, /Ada/)
    assert.doesNotMatch(subject, /3\.8/)
  })

  it('presentToRequest without reveal or predicates presents the credential JWT as issued (the request read from a short QR URL)', async () => {
    const { issuer, holder, verifier } = parties
    const { data: issued } = await issuer.client.api.POST('/api/issuer/{did}/issue', {
      params: { path: { did: issuer.key.did } },
      body: {
        credential_type: 'UniversityDegree',
        schema_id: schemaId,
        subject_did: holder.key.did,
        attributes: { given_name: 'Grace', gpa: 3.1 },
      },
    })
    const { data: created } = await verifier.client.api.POST('/api/verifier/requests', {
      body: {
        verifier_did: verifier.key.did,
        presentation_type: 'DegreeCheck',
        purpose: 'Plain check',
        required_credentials: [{ credential_type: 'UniversityDegree' }],
      },
    })
    const { data: qr } = await verifier.client.api.POST('/api/qr/presentation-request', {
      body: { request_id: created!.request.id },
    })
    const scanned = await resolveQrPayload(holder.client, qr!.short_url)
    assert.deepEqual([scanned.kind, scanned.value], ['spec-request', created!.request.id])
    const { presentationId, presentationJwt } = await presentToRequest(holder.client, holder.key, {
      requestId: scanned.value,
      credentialIds: [issued!.credential.id],
    })
    const independent = await verifyVpJwt(presentationJwt, verifier.key.did)
    assert.deepEqual(
      independent.verifiablePresentation.verifiableCredential?.map((c) => c.proof?.jwt),
      [issued!.credential.jwt],
    )
    const { data: verdict } = await verifier.client.api.POST('/api/verifier/presentations/{id}/verify', {
      params: { path: { id: presentationId } },
      body: { presentation_jwt: presentationJwt },
    })
    assert.equal(verdict!.verification_result.is_valid, true, JSON.stringify(verdict!.verification_result.errors))
  })

  it('presentToRequest discloses an SD-JWT VC with a Key Binding JWT: the requested claims, or the ones named in reveal', async () => {
    const { issuer, holder, verifier } = parties
    const { data: schema } = await issuer.client.api.POST('/api/issuer/{did}/schemas', {
      params: { path: { did: issuer.key.did } },
      body: {
        name: 'Identity',
        version: '1.0',
        anonymous_credentials: false,
        attributes: [
          { name: 'given_name', data_type: 'string', required: true },
          { name: 'email', data_type: 'string', required: true },
          { name: 'nationality', data_type: 'string', required: true },
        ],
      },
    })
    const { data: issued } = await issuer.client.api.POST('/api/issuer/{did}/issue', {
      params: { path: { did: issuer.key.did } },
      body: {
        credential_type: 'Identity',
        schema_id: schema!.schema.id,
        subject_did: holder.key.did,
        format: 'dc+sd-jwt',
        attributes: { given_name: 'Erika', email: 'erika@example.com', nationality: 'DE' },
      },
    })
    const ask = async (purpose: string) =>
      (
        await verifier.client.api.POST('/api/verifier/requests', {
          body: {
            verifier_did: verifier.key.did,
            presentation_type: 'IdentityCheck',
            purpose,
            required_credentials: [{ credential_type: 'Identity', required_attributes: ['given_name'] }],
          },
        })
      ).data!.request.id
    const verdictOf = async (reveal?: string[]) => {
      const { presentationId, presentationJwt } = await presentToRequest(holder.client, holder.key, {
        requestId: await ask(`SD-JWT ${reveal?.join(',') ?? 'asked'}`),
        credentialIds: [issued!.credential.id],
        ...(reveal ? { reveal } : {}),
      })
      const { data } = await verifier.client.api.POST('/api/verifier/presentations/{id}/verify', {
        params: { path: { id: presentationId } },
        body: { presentation_jwt: presentationJwt },
      })
      return data!.verification_result
    }
    const asked = await verdictOf()
    assert.equal(asked.is_valid, true, JSON.stringify(asked.errors))
    assert.match(JSON.stringify(asked.credential_subjects), /Erika/)
    assert.doesNotMatch(JSON.stringify(asked.credential_subjects), /erika@example\.com|DE/)
    const chosen = await verdictOf(['given_name', 'email'])
    assert.equal(chosen.is_valid, true, JSON.stringify(chosen.errors))
    assert.match(JSON.stringify(chosen.credential_subjects), /erika@example\.com/)
    assert.doesNotMatch(JSON.stringify(chosen.credential_subjects), /"DE"/)
    // Predicates need a BBS credential: refused by the SDK rather than presented without them.
    await assert.rejects(
      presentToRequest(holder.client, holder.key, {
        requestId: await ask('SD-JWT predicate'),
        credentialIds: [issued!.credential.id],
        predicates: [{ attribute: 'given_name', operator: '>=', value: 1 }],
      }),
      /SD-JWT VC: it discloses claims but cannot prove predicates/,
    )
  })
})
