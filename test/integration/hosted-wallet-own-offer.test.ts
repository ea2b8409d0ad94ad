/**
 * The hosted wallet accepting an OpenID4VCI offer of its own service (docs/openid4vc.md "The
 * hosted wallet"): a credential bound to the holder's DID (jwt_vc_json, ldp_vc) is stored under
 * the holder when it is issued, so the acceptance answers that record instead of a 409 (the CLI
 * saw "already in your wallet" with the credential stored); an SD-JWT VC (bound to a bare key) is
 * imported. Once in the wallet either way; the Idempotency-Key of the completion replays it.
 */
import assert from 'node:assert/strict'
import { sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import type { TestApp } from '../helpers/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Resident',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'family_name', data_type: 'string', required: true },
  ],
  anonymous_credentials: false,
}

describe('the hosted wallet takes an offer of its own service, in every format', () => {
  let opened: { front: HttpsFront; t: TestApp; schemaId: string }
  const issuer = new IssuerActor()
  const holder = new DidClient()
  let holderToken: string

  const post = (url: string, payload: Json, headers: Record<string, string> = {}) =>
    opened.t.app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did, ...headers },
      payload,
    })
  const walletOf = async (type: string): Promise<Json[]> =>
    (
      await opened.t.app.inject({
        method: 'GET',
        url: `/api/wallet/${holder.did}/credentials?type=${type}`,
        headers: { ...bearer(holderToken), 'x-user-did': holder.did },
      })
    ).json().data

  before(async () => {
    opened = await openHttpsIssuer(issuer, 'Town hall', SCHEMA, { env: { OUTBOUND_ALLOW_PRIVATE: 'true' } })
    holderToken = await holder.login(opened.t.app)
  })
  after(() => closeHttpsIssuer(opened))

  for (const [format, configured] of [
    [undefined, 'jwt_vc_json'],
    ['dc+sd-jwt', 'dc+sd-jwt'],
    ['eddsa-rdfc-2022', 'ldp_vc'],
  ] as const) {
    it(`${format ?? 'the default format'} (${configured}): 201 issued, in the wallet once; the completion's key replays it`, async () => {
      const type = `Resident${configured.replace(/\W/g, '')}`
      const offer = await makeOffer(opened.t, issuer, {
        credential_type: type,
        schema_id: opened.schemaId,
        attributes: { given_name: 'Erika', family_name: 'Mustermann' },
        ...(format ? { format } : {}),
      })
      const prepared = await post(`/api/wallet/${holder.did}/offers/accept`, { offer_uri: offer.credential_offer_uri })
      assert.equal(prepared.statusCode, 201, prepared.body)
      assert.equal(prepared.json().format, configured)
      const { session_id: sessionId, proof } = prepared.json() as Json
      const proofJwt = `${proof.signing_input}.${sign(null, Buffer.from(proof.signing_input), holder.privateKey).toString('base64url')}`
      const key = { 'idempotency-key': `"own-offer-${configured}"` }
      const done = await post(`/api/wallet/${holder.did}/offers/accept/${sessionId}`, { proof_jwt: proofJwt }, key)
      assert.equal(done.statusCode, 201, done.body)
      assert.equal(done.json().status, 'issued')
      const kept = (done.json().credentials as Json[])[0]!
      assert.equal(kept.credential_type, type)
      const listed = await walletOf(type)
      assert.deepEqual(
        listed.map((c) => c.id),
        [kept.id],
      )
      const replay = await post(`/api/wallet/${holder.did}/offers/accept/${sessionId}`, { proof_jwt: proofJwt }, key)
      assert.equal(replay.statusCode, 201, replay.body)
      assert.deepEqual(
        (replay.json().credentials as Json[]).map((c) => c.id),
        [kept.id],
      )
      // Without the key the session is spent: a second completion is refused, nothing more is stored.
      const again = await post(`/api/wallet/${holder.did}/offers/accept/${sessionId}`, { proof_jwt: proofJwt })
      assert.equal(again.statusCode, 404, again.body)
      assert.equal((await walletOf(type)).length, 1)
    })
  }

  it('importing a credential issued here to the holder, still in its wallet, stays a 409', async () => {
    const offer = await makeOffer(opened.t, issuer, {
      credential_type: 'ResidentTwice',
      schema_id: opened.schemaId,
      attributes: { given_name: 'Erika', family_name: 'Mustermann' },
    })
    const prepared = (
      await post(`/api/wallet/${holder.did}/offers/accept`, { offer_uri: offer.credential_offer_uri })
    ).json() as Json
    const proofJwt = `${prepared.proof.signing_input}.${sign(null, Buffer.from(prepared.proof.signing_input), holder.privateKey).toString('base64url')}`
    const done = await post(`/api/wallet/${holder.did}/offers/accept/${prepared.session_id}`, { proof_jwt: proofJwt })
    assert.equal(done.statusCode, 201, done.body)
    const jwt = (await walletOf('ResidentTwice'))[0]?.jwt as string | undefined
    assert.ok(jwt, 'the wallet lists the credential with its JWT')
    const imported = await post(`/api/wallet/${holder.did}/credentials/import`, { credential_jwt: jwt })
    assert.equal(imported.statusCode, 409, imported.body)
  })
})
