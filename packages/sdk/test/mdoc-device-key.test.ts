/**
 * acceptOffer with a device key, against the service on https: an mDL offer (ISO/IEC 18013-5,
 * `mso_mdoc`) is taken bound to a P-256 key the holder keeps (§9.1.2.4), the key proof names that
 * key and is signed by it (checked with jose, apart from the SDK); without a device key an Ed25519
 * holder is refused by the service, and a device key that is not P-256 is refused before anything
 * is sent. The wallet then lists the mDL, which mdocSummary names by its doctype and elements, and
 * resolveRequest with the device key answers a verifier's mso_mdoc request for age_over_18 alone.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import {
  acceptOffer,
  createServiceClient,
  generateHolderKey,
  mdocSummary,
  resolveRequest,
  ServiceError,
  type HolderKey,
  type ServiceClient,
} from '@credential-service/sdk'
import { MDL_DOCTYPE, sampleLicence } from '../../../test/helpers/mdl-sample.js'
import { startHttpsService, type LiveService } from './support/live-service.js'

describe('acceptOffer with a device key (an mDL)', () => {
  let svc: LiveService
  const parties = {} as Record<'issuer' | 'holder' | 'verifier', { key: HolderKey; client: ServiceClient }>
  let device: HolderKey
  /** The holder's requests as sent, by path. */
  const sent: { path: string; body: string }[] = []
  let schemaId: string

  const mdlOffer = async () => {
    const { issuer } = parties
    const { data } = await issuer.client.api.POST('/api/issuer/{did}/offers', {
      params: { path: { did: issuer.key.did } },
      body: { credential_type: 'DrivingLicence', schema_id: schemaId, format: 'mso_mdoc', attributes: sampleLicence },
    })
    return data!.credential_offer_uri!
  }

  before(async () => {
    svc = await startHttpsService()
    for (const name of ['issuer', 'holder', 'verifier'] as const) {
      const key = await generateHolderKey()
      const record = async (request: Request) => {
        sent.push({ path: decodeURIComponent(new URL(request.url).pathname), body: await request.clone().text() })
        return fetch(request)
      }
      const client = createServiceClient({ baseUrl: svc.baseUrl, ...(name === 'holder' ? { fetch: record } : {}) })
      await client.login(key)
      parties[name] = { key, client }
    }
    const { issuer } = parties
    await issuer.client.api.POST('/api/issuer', { body: { name: 'Kraftfahrt-Bundesamt', country: 'DE' } })
    const { data: presets } = await issuer.client.api.GET('/api/schema-presets', {})
    const mdl = presets!.presets.find((p) => p.id === MDL_DOCTYPE)!
    schemaId = (
      await issuer.client.api.POST('/api/issuer/{did}/schemas', {
        params: { path: { did: issuer.key.did } },
        body: mdl.schema,
      })
    ).data!.schema.id
  })
  after(() => svc?.close())

  it('binds the mDL to the device key: the proof carries its public JWK and verifies with it; the wallet lists the doctype and elements', async () => {
    const { holder } = parties
    device = await generateHolderKey({ alg: 'ES256' })
    const result = await acceptOffer(holder.client, holder.key, { offerUri: await mdlOffer(), deviceKey: device })
    assert.equal(result.status, 'issued')

    const started = sent.find((s) => s.path === `/api/wallet/${holder.key.did}/offers/accept`)
    const asked = JSON.parse(started!.body) as { device_key: JsonWebKey }
    assert.deepEqual(asked.device_key, { kty: 'EC', crv: 'P-256', x: device.publicJwk.x, y: device.publicJwk.y })
    const completion = sent.find((s) => s.path === `/api/wallet/${holder.key.did}/offers/accept/${result.sessionId}`)
    const proofJwt = (JSON.parse(completion!.body) as { proof_jwt: string }).proof_jwt
    const header = jose.decodeProtectedHeader(proofJwt)
    assert.equal(header.alg, 'ES256')
    assert.equal(header.typ, 'openid4vci-proof+jwt')
    assert.deepEqual([header.jwk?.x, header.jwk?.y], [device.publicJwk.x, device.publicJwk.y])
    await jose.compactVerify(proofJwt, await jose.importJWK(device.publicJwk as jose.JWK, 'ES256'))
    const other = await generateHolderKey({ alg: 'ES256', extractable: true })
    await assert.rejects(jose.compactVerify(proofJwt, await jose.importJWK(other.publicJwk as jose.JWK, 'ES256')))

    const { data: wallet } = await holder.client.api.GET('/api/wallet/{did}/credentials', {
      params: { path: { did: holder.key.did } },
    })
    const summaries = wallet!.data.map((c) => mdocSummary(c)).filter((s) => s !== undefined)
    assert.equal(summaries.length, 1)
    assert.equal(summaries[0]!.doctype, MDL_DOCTYPE)
    assert.deepEqual([...summaries[0]!.elements].sort(), Object.keys(sampleLicence).sort())
  })

  it("resolveRequest with the device key: the verifier's mso_mdoc request for age_over_18 is answered with that element alone; without it nothing is signed or sent", async () => {
    const { holder, verifier } = parties
    const ask = async () =>
      (
        await verifier.client.api.POST('/api/verifier/requests', {
          body: {
            verifier_did: verifier.key.did,
            presentation_type: 'AgeCheck',
            purpose: 'Age over 18',
            required_credentials: [
              { credential_type: 'DrivingLicence', required_attributes: ['age_over_18'], format: 'mso_mdoc' },
            ],
          },
        })
      ).data!

    const first = await ask()
    const without = await resolveRequest(holder.client, holder.key, {
      authorizationRequestUri: first.authorization_request_uri!,
    })
    const answers = () => sent.filter((s) => /\/presentation-requests\/answer\/[^/]+$/.test(s.path)).length
    const before = answers()
    await assert.rejects(without.accept(), /asks for ES256; this key signs EdDSA/)
    assert.equal(answers(), before, 'nothing sent')

    const asked = await ask()
    const preview = await resolveRequest(holder.client, holder.key, {
      authorizationRequestUri: asked.authorization_request_uri!,
      deviceKey: device,
    })
    assert.equal(preview.presentations.length, 1)
    assert.equal(preview.presentations[0]!.format, 'mso_mdoc')
    assert.deepEqual(preview.presentations[0]!.disclosed, { 'org.iso.18013.5.1': { age_over_18: true } })
    const answer = await preview.accept()
    assert.equal(answer.accepted, true, JSON.stringify(answer))
    const { data: result } = await verifier.client.api.GET('/api/verifier/requests/{id}', {
      params: { path: { id: asked.request.id } },
    })
    assert.equal(result!.request.status, 'verified')
  })

  it('without a device key the Ed25519 holder is refused (422); a device key that is not P-256 is refused here, nothing sent', async () => {
    const { holder } = parties
    const offerUri = await mdlOffer()
    await assert.rejects(acceptOffer(holder.client, holder.key, { offerUri }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.equal(error.status, 422)
      return true
    })
    const before = sent.length
    await assert.rejects(
      acceptOffer(holder.client, holder.key, { offerUri, deviceKey: await generateHolderKey({ alg: 'EdDSA' }) }),
      /P-256 \(ES256\) key; this one signs EdDSA/,
    )
    assert.equal(sent.length, before, 'nothing sent')
  })
})
