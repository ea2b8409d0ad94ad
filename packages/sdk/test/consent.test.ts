/**
 * The SDK's preview step (docs/openid4vc.md "Looking at an offer first", "Declining a request")
 * against the service on https: resolveOffer shows an offer without redeeming it, declineOffer
 * records the refusal, resolveRequest shows who asks and what would be disclosed before anything
 * is sent, and its decline() reaches the verifier, whose request then shows the holder's error response.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  acceptOffer,
  createServiceClient,
  declineOffer,
  generateHolderKey,
  resolveOffer,
  resolveRequest,
  ServiceError,
  type HolderKey,
  type ServiceClient,
} from '@credential-service/sdk'
import { startHttpsService, type LiveService } from './support/live-service.js'

const SCHEMA = {
  name: 'Resident',
  version: '1.0',
  anonymous_credentials: false,
  attributes: [
    { name: 'given_name', data_type: 'string' as const, required: true },
    { name: 'family_name', data_type: 'string' as const },
  ],
}

describe('the SDK lets the holder look before deciding', () => {
  let svc: LiveService
  const parties = {} as Record<'issuer' | 'holder' | 'verifier', { key: HolderKey; client: ServiceClient }>
  let schemaId: string

  const offer = async () => {
    const { issuer } = parties
    const { data } = await issuer.client.api.POST('/api/issuer/{did}/offers', {
      params: { path: { did: issuer.key.did } },
      body: {
        credential_type: 'Resident',
        schema_id: schemaId,
        format: 'dc+sd-jwt',
        tx_code: true,
        attributes: { given_name: 'Erika', family_name: 'Mustermann' },
      },
    })
    return { uri: data!.credential_offer_uri!, txCode: data!.tx_code!, id: data!.offer.id }
  }
  const request = async () => {
    const { verifier } = parties
    const { data } = await verifier.client.api.POST('/api/verifier/requests', {
      body: {
        verifier_did: verifier.key.did,
        presentation_type: 'ResidentCheck',
        purpose: 'Check residence',
        required_credentials: [{ credential_type: 'Resident', required_attributes: ['given_name'] }],
      },
    })
    return { uri: data!.authorization_request_uri!, id: data!.request.id }
  }
  const activities = async (type: string) => {
    const { holder } = parties
    const { data } = await holder.client.api.GET('/api/wallet/{did}/activities', {
      params: { path: { did: holder.key.did }, query: { type } },
    })
    return data!.data
  }

  before(async () => {
    svc = await startHttpsService()
    for (const name of ['issuer', 'holder', 'verifier'] as const) {
      const key = await generateHolderKey()
      const client = createServiceClient({ baseUrl: svc.baseUrl })
      await client.login(key)
      parties[name] = { key, client }
    }
    const { issuer, verifier } = parties
    await issuer.client.api.POST('/api/issuer', { body: { name: 'Town hall' } })
    await verifier.client.api.POST('/api/verifier', { body: { name: 'Bike rental' } })
    schemaId = (
      await issuer.client.api.POST('/api/issuer/{did}/schemas', {
        params: { path: { did: issuer.key.did } },
        body: SCHEMA,
      })
    ).data!.schema.id
  })
  after(() => svc?.close())

  it('resolveOffer shows the issuer, the credential and its claims; the offer stays unredeemed and is accepted afterwards; declineOffer records a refusal', async () => {
    const { holder, issuer } = parties
    const first = await offer()
    const preview = await resolveOffer(holder.client, holder.key, { offerUri: first.uri })
    assert.equal(preview.issuer.name, 'Town hall')
    assert.equal(preview.issuer.domain, new URL(svc.baseUrl).host)
    assert.equal(preview.grant, 'pre-authorized_code')
    assert.notEqual(preview.tx_code, null)
    const [configuration] = preview.credential_configurations
    assert.equal(configuration!.format, 'dc+sd-jwt')
    assert.equal(configuration!.display_name, 'Resident')
    assert.deepEqual(configuration!.claims.map((c) => [c.path.join('.'), c.mandatory]).sort(), [
      ['family_name', false],
      ['given_name', true],
    ])

    const { data: offers } = await issuer.client.api.GET('/api/issuer/{did}/offers', {
      params: { path: { did: issuer.key.did } },
    })
    assert.equal(offers!.data.find((o) => o.id === first.id)?.uses, 0, 'the preview redeemed nothing')
    const accepted = await acceptOffer(holder.client, holder.key, { offerUri: first.uri, txCode: first.txCode })
    assert.equal(accepted.status, 'issued')

    const second = await offer()
    const declined = await declineOffer(holder.client, holder.key, { offerUri: second.uri, reason: 'one is enough' })
    assert.equal(declined.credentialIssuer, preview.credential_issuer)
    const refusals = await activities('credential_offer_declined')
    assert.equal(refusals.length, 1)
    assert.equal(refusals[0]!.details.reason, 'one is enough')

    await assert.rejects(
      resolveOffer(holder.client, holder.key, { offerUri: 'https://not-an-offer.example/' }),
      (e: unknown) => e instanceof ServiceError && e.status === 400,
    )
  })

  it('resolveRequest shows the verifier and what would be disclosed before anything is sent; decline() reaches the verifier; accept() answers another request', async () => {
    const { holder, verifier } = parties
    const asked = await request()
    const preview = await resolveRequest(holder.client, holder.key, { authorizationRequestUri: asked.uri })
    assert.equal(preview.verifierIdentity.prefix, 'decentralized_identifier')
    assert.equal(preview.verifierIdentity.verified, true)
    assert.equal(preview.verifierIdentity.name, 'Bike rental')
    assert.equal(preview.purpose, 'Check residence')
    assert.equal(preview.verifier, preview.verifierIdentity.client_id)
    assert.equal(preview.presentations.length, 1)
    assert.ok(preview.presentations[0]!.claims.some((p) => p.join('.') === 'given_name'))
    assert.equal(preview.presentations[0]!.disclosed.given_name, 'Erika')
    assert.ok(!('to_sign' in preview.presentations[0]!), 'the preview carries nothing to sign')
    const waiting = await verifier.client.api.GET('/api/verifier/requests/{id}', { params: { path: { id: asked.id } } })
    assert.equal(waiting.data!.openid4vp!.answer, null, 'nothing was sent yet')

    const declined = await preview.decline('not now')
    assert.equal(declined.verifier_status, 200)
    const seen = await verifier.client.api.GET('/api/verifier/requests/{id}', { params: { path: { id: asked.id } } })
    // Addressed to no one, the request stays open after a decline; the verifier sees it (docs/openid4vp.md).
    assert.equal(seen.data!.openid4vp!.answer, null)
    assert.equal(seen.data!.openid4vp!.holder_response?.error, 'access_denied')
    await assert.rejects(preview.accept(), /answered or declined already/)
    assert.equal((await activities('presentation_declined')).length, 1)

    const next = await resolveRequest(holder.client, holder.key, { authorizationRequestUri: (await request()).uri })
    const answer = await next.accept()
    assert.equal(answer.accepted, true, JSON.stringify(answer))
    // The service refuses a decline after the answer was sent (409), whatever the client does.
    const late = await holder.client.api
      .POST('/api/wallet/{did}/presentation-requests/answer/{session_id}/decline', {
        params: { path: { did: holder.key.did, session_id: next.sessionId } },
        body: {},
      })
      .catch((e: unknown) => e)
    assert.ok(late instanceof ServiceError && late.status === 409, String(late))
  })
})
