/**
 * The SDK's OpenID4VC flows against the service on https (a real TLS port): acceptOffer takes an
 * OpenID4VCI offer of this service with its tx_code, answerPresentationRequest answers an
 * OpenID4VP request of a verifier here. The holder's client records what it sends, so the key
 * proof and the KB-JWT the SDK signed are checked with jose and key-did-resolver, apart from the service.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import {
  acceptOffer,
  answerPresentationRequest,
  createServiceClient,
  generateHolderKey,
  parseQrPayload,
  type HolderKey,
  type ServiceClient,
} from '@credential-service/sdk'
import { verifyKeyProof } from './support/independent.js'
import { startHttpsService, type LiveService } from './support/live-service.js'

const SCHEMA = {
  name: 'Resident',
  version: '1.0',
  anonymous_credentials: false,
  attributes: [
    { name: 'given_name', data_type: 'string' as const },
    { name: 'family_name', data_type: 'string' as const },
  ],
}

describe('the SDK with OpenID4VCI and OpenID4VP', () => {
  let svc: LiveService
  const parties = {} as Record<'issuer' | 'holder' | 'verifier', { key: HolderKey; client: ServiceClient }>
  /** The holder's requests as sent, by path. */
  const sent: { path: string; body: string }[] = []
  let schemaId: string

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
    await issuer.client.api.POST('/api/issuer', { body: { name: 'Town hall' } })
    schemaId = (
      await issuer.client.api.POST('/api/issuer/{did}/schemas', {
        params: { path: { did: issuer.key.did } },
        body: SCHEMA,
      })
    ).data!.schema.id
  })
  after(() => svc?.close())

  it('acceptOffer takes an SD-JWT VC offer with its tx_code; the key proof it signed verifies with jose', async () => {
    const { issuer, holder } = parties
    const { data: offer } = await issuer.client.api.POST('/api/issuer/{did}/offers', {
      params: { path: { did: issuer.key.did } },
      body: {
        credential_type: 'Resident',
        schema_id: schemaId,
        format: 'dc+sd-jwt',
        tx_code: true,
        attributes: { given_name: 'Erika', family_name: 'Mustermann' },
      },
    })
    const offerUri = offer!.credential_offer_uri!
    assert.equal(parseQrPayload(offerUri).kind, 'oid4vci-offer')

    const result = await acceptOffer(holder.client, holder.key, { offerUri, txCode: offer!.tx_code! })
    assert.equal(result.status, 'issued')
    assert.equal(result.credentials.length, 1)
    const stored = result.credentials[0] as { id: string; credential_type: string; owner_did: string }
    assert.deepEqual([stored.credential_type, stored.owner_did], ['Resident', holder.key.did])
    const { data: wallet } = await holder.client.api.GET('/api/wallet/{did}/credentials', {
      params: { path: { did: holder.key.did } },
    })
    assert.ok(wallet!.data.some((c) => c.id === stored.id))

    const completion = sent.find((s) => s.path === `/api/wallet/${holder.key.did}/offers/accept/${result.sessionId}`)
    const proofJwt = (JSON.parse(completion!.body) as { proof_jwt: string }).proof_jwt
    const credentialIssuer = (offer!.credential_offer as { credential_issuer: string }).credential_issuer
    const { payload, protectedHeader } = await verifyKeyProof(proofJwt, { audience: credentialIssuer })
    assert.equal(typeof payload.nonce, 'string')
    // The proof names the holder's own key: by its did:key, or as the public JWK itself.
    if (protectedHeader.kid) assert.equal(protectedHeader.kid, holder.key.kid)
    else assert.equal(protectedHeader.jwk?.x, holder.key.publicJwk.x)
  })

  it("answerPresentationRequest answers an openid4vp:// request: the verifier accepts, the request is verified, the KB-JWT is the holder key's", async () => {
    const { holder, verifier } = parties
    const { data: created } = await verifier.client.api.POST('/api/verifier/requests', {
      body: {
        verifier_did: verifier.key.did,
        presentation_type: 'ResidentCheck',
        purpose: 'Check residence',
        required_credentials: [{ credential_type: 'Resident', required_attributes: ['given_name'] }],
      },
    })
    const uri = created!.authorization_request_uri!
    assert.equal(parseQrPayload(uri).kind, 'oid4vp-request')

    const answer = await answerPresentationRequest(holder.client, holder.key, { authorizationRequestUri: uri })
    assert.equal(answer.accepted, true, JSON.stringify(answer))
    assert.equal(answer.verifier_status, 200)
    const { data: after } = await verifier.client.api.GET('/api/verifier/requests/{id}', {
      params: { path: { id: created!.request.id } },
    })
    assert.equal(after!.request.status, 'verified')

    const sentSignatures = sent
      .filter((s) => s.path.startsWith(`/api/wallet/${holder.key.did}/presentation-requests/answer/`))
      .at(-1)
    const signatures = Object.values(
      (JSON.parse(sentSignatures!.body) as { signatures: Record<string, string> }).signatures,
    )
    assert.equal(signatures.length, 1)
    // SD-JWT VC §4.3: the Key Binding JWT, signed by the key the credential is bound to (the holder's).
    const kbJwt = signatures[0]!
    const { payload, protectedHeader } = await jose.jwtVerify(
      kbJwt,
      await jose.importJWK(holder.key.publicJwk as jose.JWK, 'EdDSA'),
      { typ: 'kb+jwt' },
    )
    assert.equal(protectedHeader.alg, 'EdDSA')
    assert.equal(typeof payload.sd_hash, 'string')
    assert.equal(typeof payload.nonce, 'string')
  })
})
