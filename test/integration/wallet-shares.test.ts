import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { foreignCredential } from '../helpers/wallet-fixtures.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

describe('wallet share links', () => {
  let t: TestApp
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  let holderToken: string
  let otherToken: string
  let credential: { id: string; jwt: string }
  let othersCredentialId: string

  before(async () => {
    t = await createTestApp({ clock, env: { WALLET_SHARE_MAX_TTL_SECONDS: '3600' } })
    await issuer.setUp(t.app, 'Pass Office')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    otherToken = await other.login(t.app)
    const issue = async (subject: string) => {
      const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'Pass',
        schema_id: schemaId,
        subject_did: subject,
        attributes: { holder_name: 'H' },
      })
      assert.equal(res.statusCode, 201, res.body)
      return { id: res.json().credential.id as string, jwt: res.json().credential.jwt as string }
    }
    credential = await issue(holder.did)
    othersCredentialId = (await issue(other.did)).id
  })
  after(() => t.close())

  const share = (body: Json, token = holderToken, did = holder.did) =>
    callAs(t.app, 'POST', `/api/wallet/${did}/credentials/share`, token, body)
  const open = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname })

  it('creates a link whose public GET returns the credential JWT until it expires', async () => {
    const res = await share({ credential_id: credential.id, expires_in_seconds: 120, purpose: 'landlord' })
    assert.equal(res.statusCode, 201, res.body)
    const s = res.json().share
    assert.match(s.id, /^share-/)
    assert.match(s.token, /^[A-Za-z0-9_-]{43}$/)
    assert.equal(s.share_url, `http://service.test/api/wallet/shared/${s.token}`)
    assert.equal(s.status, 'active')
    assert.equal(s.credential_id, credential.id)
    assert.equal(s.purpose, 'landlord')
    assert.equal(new Date(s.expires_at).getTime(), clock.now().getTime() + 120_000)

    // Public: no token needed.
    const opened = await open(s.share_url)
    assert.equal(opened.statusCode, 200, opened.body)
    assert.equal(opened.headers['cache-control'], 'no-store')
    const body = opened.json()
    assert.equal(body.credential_jwt, credential.jwt)
    assert.equal(body.holder_did, holder.did)
    assert.equal(body.credential.id, credential.id)
    assert.equal(body.credential.issuer_name, 'Pass Office')
    assert.equal(body.share.uses, 1)

    clock.advance(119_000)
    assert.equal((await open(s.share_url)).statusCode, 200)
    clock.advance(2_000)
    const expired = await open(s.share_url)
    assert.equal(expired.statusCode, 404, expired.body)
    assert.match(expired.json().message, /expired/)

    const listed = (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/shares`, holderToken)).json()
    const row = listed.data.find((x: Json) => x.id === s.id)
    assert.equal(row.status, 'expired')
    assert.equal(row.uses, 2)
    assert.ok(!('token' in row))
  })

  it('a use-limited link stops after its uses (HEAD takes none); unknown tokens are 404', async () => {
    const s = (await share({ credential_id: credential.id, max_uses: 1 })).json().share
    assert.equal(
      new Date(s.expires_at).getTime(),
      clock.now().getTime() + 3600_000,
      'default lifetime capped by WALLET_SHARE_MAX_TTL_SECONDS',
    )
    // A HEAD probe (link preview) does not take the use.
    assert.equal((await t.app.inject({ method: 'HEAD', url: new URL(s.share_url).pathname })).statusCode, 404)
    assert.equal((await open(s.share_url)).statusCode, 200)
    assert.equal((await open(s.share_url)).statusCode, 404)
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/wallet/shared/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }))
        .statusCode,
      404,
    )
  })

  it("the holder revokes a link (409 twice, 404 for someone else's); withdrawal and deletion stop links too", async () => {
    const s = (await share({ credential_id: credential.id })).json().share
    const revokeUrl = (id: string, did = holder.did) => `/api/wallet/${did}/shares/${id}/revoke`
    assert.equal((await callAs(t.app, 'POST', revokeUrl(s.id, other.did), otherToken)).statusCode, 404)
    assert.equal((await callAs(t.app, 'POST', revokeUrl(s.id), otherToken)).statusCode, 403)
    const revoked = await callAs(t.app, 'POST', revokeUrl(s.id), holderToken)
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.equal(revoked.json().share.status, 'revoked')
    assert.equal((await callAs(t.app, 'POST', revokeUrl(s.id), holderToken)).statusCode, 409)
    assert.equal((await open(s.share_url)).statusCode, 404)
    assert.equal((await callAs(t.app, 'POST', revokeUrl('share-nope'), holderToken)).statusCode, 404)

    // An imported credential, shared, then withdrawn: the link stops; a new share is refused.
    const external = new DidClient()
    const imported = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, {
      credential_jwt: foreignCredential(external, { subject: holder.did }),
    })
    assert.equal(imported.statusCode, 201, imported.body)
    const importedId = imported.json().credential.id
    const live = (await share({ credential_id: importedId })).json().share
    assert.equal((await open(live.share_url)).statusCode, 200)
    assert.equal(
      (await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/${importedId}/revoke`, holderToken))
        .statusCode,
      200,
    )
    assert.equal((await open(live.share_url)).statusCode, 404)
    assert.equal((await share({ credential_id: importedId })).statusCode, 409)
    const listed = (
      await callAs(
        t.app,
        'GET',
        `/api/wallet/${holder.did}/shares?credential_id=${encodeURIComponent(importedId)}`,
        holderToken,
      )
    ).json()
    assert.deepEqual(
      listed.data.map((x: Json) => x.status),
      ['revoked'],
    )

    // Deleting the credential from the wallet revokes its links.
    const second = (await share({ credential_id: credential.id })).json().share
    assert.equal(
      (await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${credential.id}`, holderToken)).statusCode,
      200,
    )
    assert.equal((await open(second.share_url)).statusCode, 404)
    assert.equal((await share({ credential_id: credential.id })).statusCode, 404)
  })

  it('lists shares with pagination and the active filter', async () => {
    const other2 = new DidClient()
    const token = await other2.login(t.app)
    const external = new DidClient()
    const ids: string[] = []
    const res = await callAs(t.app, 'POST', `/api/wallet/${other2.did}/credentials/import`, token, {
      credential_jwt: foreignCredential(external, { subject: other2.did }),
    })
    const cid = res.json().credential.id
    for (let i = 0; i < 3; i++) ids.push((await share({ credential_id: cid }, token, other2.did)).json().share.id)
    await callAs(t.app, 'POST', `/api/wallet/${other2.did}/shares/${ids[0]}/revoke`, token)
    const first = (await callAs(t.app, 'GET', `/api/wallet/${other2.did}/shares?limit=2`, token)).json()
    assert.equal(first.count, 2)
    assert.ok(first.next_cursor)
    const rest = (
      await callAs(
        t.app,
        'GET',
        `/api/wallet/${other2.did}/shares?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`,
        token,
      )
    ).json()
    assert.equal(rest.count, 1)
    assert.equal(rest.next_cursor, null)
    assert.deepEqual([...first.data, ...rest.data].map((x: Json) => x.id).sort(), [...ids].sort())
    const active = (await callAs(t.app, 'GET', `/api/wallet/${other2.did}/shares?active=true`, token)).json()
    assert.equal(active.count, 2)
    assert.ok(!active.data.some((x: Json) => x.id === ids[0]))
  })

  it("validates: 400 bad bodies, 404 another holder's credential, 403 another DID, 401 no token", async () => {
    assert.equal((await share({})).statusCode, 400)
    assert.equal((await share({ credential_id: credential.id, expires_in_seconds: 10 })).statusCode, 400)
    const tooLong = await share({ credential_id: othersCredentialId, expires_in_seconds: 7200 })
    assert.equal(tooLong.statusCode, 404, "someone else's credential is not found before the lifetime is checked")
    assert.equal((await share({ credential_id: othersCredentialId })).statusCode, 404)
    assert.equal((await share({ credential_id: credential.id }, otherToken)).statusCode, 403)
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/wallet/${holder.did}/credentials/share`,
          payload: { credential_id: credential.id },
        })
      ).statusCode,
      401,
    )
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/wallet/${holder.did}/shares`, headers: bearer(otherToken) }))
        .statusCode,
      403,
    )
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/wallet/${holder.did}/shares` })).statusCode, 401)
    const ownImported = (await callAs(t.app, 'GET', `/api/wallet/${other.did}/credentials`, otherToken)).json().data[0]
      .id
    const over = await share({ credential_id: ownImported, expires_in_seconds: 7200 }, otherToken, other.did)
    assert.equal(over.statusCode, 400, over.body)
    assert.equal(over.json().details.max, 3600)
  })
})
