/**
 * OpenID4VCI 1.0 deferred issuance and notifications (test/helpers/oid4vc-wallet): an offer that
 * requires approval makes the credential endpoint record a spec credential request; the issuer
 * approves (or rejects) it with the spec's routes; the wallet polls the deferred endpoint, then
 * tells the issuer what it did with the credential, which lands in the holder's activity log.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import { bearer, DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import { errorOf, walletKeyOf, type Json } from '../helpers/oid4vci-checks.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import type { TestApp } from '../helpers/test-app.js'

const SCHEMA = {
  name: 'Permit',
  version: '1',
  attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

describe('OpenID4VCI deferred issuance and notifications', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => ({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Town hall', SCHEMA)))
  after(() => closeHttpsIssuer({ front, t }))

  const offer = (body: Json = {}) =>
    makeOffer(t, issuer, { credential_type: 'Permit', schema_id: schemaId, attributes: { holder_name: 'Ada' } }, body)
  const pendingRequestOf = async (holderDid: string) => {
    const listed = (
      await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/requests?status=pending`, issuer.token)
    ).json().data as Json[]
    return listed.find((r) => r.holder_did === holderDid)
  }
  const activities = async (holder: DidClient, token: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/wallet/${holder.did}/activities?limit=50`,
      headers: { ...bearer(token), 'x-user-did': holder.did },
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data as Json[]
  }

  it('defers until the issuer approves with the spec route, then delivers once', async () => {
    const holder = new DidClient()
    const holderToken = await holder.login(t.app)
    const wallet = await IssuanceWallet.withKeys([walletKeyOf(holder)])
    const created = await offer({ format: 'jwt_vc_json', requires_approval: true })
    const { resolved, token, answer } = await wallet.receive(created.credential_offer_uri, { useDid: true })
    assert.equal(answer.response.status, 202)
    const transactionId = answer.credentialResponse.transaction_id as string
    assert.ok(transactionId)
    assert.equal(typeof answer.credentialResponse.interval, 'number')

    const waiting = await wallet.deferred(resolved, token, transactionId)
    assert.equal(waiting.response.status, 202)
    assert.equal(waiting.deferredCredentialResponse.transaction_id, transactionId)

    const request = await pendingRequestOf(holder.did)
    assert.ok(request, 'the credential request is pending for the issuer')
    const challenge = (
      await callAs(t.app, 'GET', `/api/wallet/issuer/${issuer.did}/request/${request.id}/challenge`, issuer.token)
    ).json().challenge as string
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/issuer/${issuer.did}/request/${request.id}/approve`,
      issuer.token,
      { signature: issuer.sign(challenge) },
    )
    assert.equal(approved.statusCode, 200, approved.body)

    const delivered = await wallet.deferred(resolved, token, transactionId)
    assert.equal(delivered.response.status, 200)
    const credentials = delivered.deferredCredentialResponse.credentials as Json[]
    assert.equal(credentials.length, 1)
    const payload = jose.decodeJwt(credentials[0]!.credential)
    assert.equal(payload.sub, holder.did)
    assert.equal(payload.jti, approved.json().credential.id)
    assert.equal(await errorOf(wallet.deferred(resolved, token, transactionId)), 'invalid_transaction_id')

    const types = (await activities(holder, holderToken)).map((a) => a.type)
    for (const type of ['credential_request_created', 'credential_received'])
      assert.ok(types.includes(type), `${type} in ${types.join(', ')}`)
  })

  it('answers credential_request_denied after a rejection', async () => {
    const wallet = await IssuanceWallet.create(['EdDSA'])
    const created = await offer({ format: 'jwt_vc_json', requires_approval: true })
    const { resolved, token, answer } = await wallet.receive(created.credential_offer_uri, { useDid: true })
    const request = await pendingRequestOf(wallet.keys[0]!.did)
    const rejected = await callAs(
      t.app,
      'POST',
      `/api/wallet/issuer/${issuer.did}/request/${request!.id}/reject`,
      issuer.token,
      { reason: 'not eligible' },
    )
    assert.equal(rejected.statusCode, 200, rejected.body)
    assert.equal(
      await errorOf(wallet.deferred(resolved, token, answer.credentialResponse.transaction_id as string)),
      'credential_request_denied',
    )
  })

  it('records notifications of an immediate issuance, and refuses an unknown notification_id or another token', async () => {
    const holder = new DidClient()
    const holderToken = await holder.login(t.app)
    const wallet = await IssuanceWallet.withKeys([walletKeyOf(holder)])
    const { resolved, token, answer } = await wallet.receive(
      (await offer({ format: 'jwt_vc_json' })).credential_offer_uri,
      { useDid: true },
    )
    const notificationId = answer.credentialResponse.notification_id as string
    assert.equal(
      await errorOf(wallet.notify(resolved, token, 'not-a-notification', 'credential_accepted')),
      'invalid_notification_id',
    )
    const stranger = await IssuanceWallet.create(['ES256'])
    const strangerRun = await stranger.receive((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
    assert.equal(
      await errorOf(stranger.notify(resolved, strangerRun.token, notificationId, 'credential_deleted')),
      'invalid_notification_id',
    )
    assert.equal((await wallet.notify(resolved, token, notificationId, 'credential_accepted')).response.status, 204)
    assert.equal((await wallet.notify(resolved, token, notificationId, 'credential_deleted')).response.status, 204)
    const logged = await activities(holder, holderToken)
    for (const type of ['credential_accepted', 'credential_deleted']) {
      const entry = logged.find((a) => a.type === type)
      assert.ok(entry, type)
      assert.equal(entry.details.source, 'openid4vci_notification')
      assert.equal(
        entry.credential_id,
        answer.credentialResponse.credentials
          ? jose.decodeJwt((answer.credentialResponse.credentials as Json[])[0]!.credential).jti
          : undefined,
      )
    }
  })

  it('delivers a deferred batch: the approved credential and a copy for each other proof key, each bound to its key', async () => {
    const wallet = await IssuanceWallet.create(['ES256', 'ES256'])
    const created = await offer({ format: 'dc+sd-jwt', requires_approval: true })
    const { resolved, token, answer } = await wallet.receive(created.credential_offer_uri)
    assert.equal(answer.response.status, 202)
    const request = await pendingRequestOf(wallet.keys[0]!.did)
    assert.ok(request)
    const challenge = (
      await callAs(t.app, 'GET', `/api/wallet/issuer/${issuer.did}/request/${request.id}/challenge`, issuer.token)
    ).json().challenge as string
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/issuer/${issuer.did}/request/${request.id}/approve`,
      issuer.token,
      { signature: issuer.sign(challenge), attributes: { holder_name: 'Ada Lovelace' } },
    )
    assert.equal(approved.statusCode, 200, approved.body)
    const delivered = await wallet.deferred(resolved, token, answer.credentialResponse.transaction_id as string)
    const credentials = delivered.deferredCredentialResponse.credentials as Json[]
    assert.equal(credentials.length, 2)
    for (const [i, item] of credentials.entries()) {
      const payload = jose.decodeJwt((item.credential as string).split('~')[0]!) as Json
      // The approved copy's key comes from the holder's DID document (it names its kid); the others from the proofs.
      const { kid: _kid, ...bound } = payload.cnf.jwk
      assert.deepEqual(bound, wallet.keys[i]!.publicJwk)
      const record = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${payload.jti}`, issuer.token)
      assert.equal(record.json().credential.owner_did, wallet.keys[i]!.did)
      assert.equal(record.json().credential.credential_data.holder_name, 'Ada Lovelace')
    }
  })
})
