import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { foreignCredential } from '../helpers/wallet-fixtures.js'

const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [
    { name: 'holder_name', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
}
const LISTING_FIELDS = [
  'id',
  'issuer_did',
  'issuer_name',
  'credential_type',
  'credential_preview',
  'credential_data',
  'ipfs_hash',
  'status',
  'signature_type',
  'evidence_attachments',
  'extensions',
]

describe('wallet credentials', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  let holderToken: string
  let otherToken: string
  const ids: string[] = []

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Pass Office')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    otherToken = await other.login(t.app)
    for (const [subject, level] of [
      [holder.did, 1],
      [holder.did, 2],
      [holder.did, 3],
      [other.did, 9],
    ] as const) {
      const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'Pass',
        schema_id: schemaId,
        subject_did: subject,
        attributes: { holder_name: 'H', level },
      })
      assert.equal(res.statusCode, 201, res.body)
      if (subject === holder.did) ids.push(res.json().credential.id)
    }
  })
  after(() => t.close())
  const list = (query = '', did = holder.did, token = holderToken) =>
    t.app.inject({
      method: 'GET',
      url: `/api/wallet/${did}/credentials${query}`,
      headers: { ...bearer(token), 'x-user-did': holder.did },
    })

  it("lists exactly the holder's credentials with the spec fields, count and normalised query_did", async () => {
    const res = await list()
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.count, 3)
    assert.equal(body.query_did, holder.did)
    assert.deepEqual(body.data.map((c: { id: string }) => c.id).sort(), [...ids].sort())
    for (const c of body.data) {
      for (const field of LISTING_FIELDS) assert.ok(field in c, field)
      assert.equal(c.issuer_name, 'Pass Office')
      assert.equal(c.status, 'active')
      assert.equal(c.signature_type, 'bbs+')
      assert.equal(c.credential_data.holder_name, 'H')
    }
    // A percent-encoded DID in the path is the same wallet.
    const encoded = await list('', encodeURIComponent(holder.did))
    assert.equal(encoded.statusCode, 200)
    assert.equal(encoded.json().query_did, holder.did)
    assert.equal(encoded.json().count, 3)
  })

  it('paginates and filters', async () => {
    const first = (await list('?limit=2')).json()
    assert.equal(first.count, 2)
    const second = (await list(`?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).json()
    assert.equal(second.count, 1)
    assert.equal(second.next_cursor, null)
    assert.equal((await list('?status=revoked')).json().count, 0)
    assert.equal((await list('?type=Other')).json().count, 0)
    assert.equal((await list('?limit=abc')).statusCode, 400)
  })

  it("refuses another DID's wallet (403) and no token (401)", async () => {
    assert.equal((await list('', holder.did, otherToken)).statusCode, 403)
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/wallet/${holder.did}/credentials` })).statusCode, 401)
  })

  it('deletes from the wallet only: the issuer record stays active and unrevoked', async () => {
    const url = (id: string, did = holder.did) => `/api/wallet/${did}/credentials/${id}`
    // Someone else's credential, or an unknown one: 404; another DID's wallet: 403.
    assert.equal((await callAs(t.app, 'DELETE', url(ids[0]!, other.did), otherToken)).statusCode, 404)
    assert.equal(
      (await callAs(t.app, 'DELETE', url('aly:00000000-0000-4000-8000-000000000000'), holderToken)).statusCode,
      404,
    )
    assert.equal((await callAs(t.app, 'DELETE', url(ids[0]!), otherToken)).statusCode, 403)
    const res = await callAs(t.app, 'DELETE', url(ids[0]!), holderToken)
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(res.json().message)
    assert.equal((await callAs(t.app, 'DELETE', url(ids[0]!), holderToken)).statusCode, 404)
    const remaining = (await list()).json().data.map((c: { id: string }) => c.id)
    assert.ok(!remaining.includes(ids[0]))
    assert.equal(remaining.length, 2)
    const issuerView = (
      await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${ids[0]}`, issuer.token)
    ).json().credential
    assert.equal(issuerView.status, 'active')
    assert.equal(issuerView.revoked_at, null)
  })

  it('shows a revocation by the issuer', async () => {
    assert.equal(
      (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${ids[1]}/revoke`, issuer.token)).statusCode,
      200,
    )
    const revoked = (await list('?status=revoked')).json()
    assert.deepEqual(
      revoked.data.map((c: { id: string }) => c.id),
      [ids[1]],
    )
  })
})

describe('wallet listing pages over issued and imported credentials', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const external = new DidClient()
  const holder = new DidClient()
  let holderToken: string
  let schemaId: string

  before(async () => {
    // Outside status lists are unreachable here; imports keep an unknown status.
    t = await createTestApp({ httpGet: async (url) => ({ status: 404, headers: {}, body: new Uint8Array(), url }) })
    await issuer.setUp(t.app, 'Pass Office')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
  })
  after(() => t.close())

  const issue = async () => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Pass',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { holder_name: 'H' },
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential.id as string
  }
  const importOne = async () => {
    const jwt = foreignCredential(external, {
      subject: holder.did,
      issuerName: 'Badge Co',
      attributes: { given_name: 'Ada' },
    })
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/credentials/import`,
      headers: bearer(holderToken),
      payload: { credential_jwt: jwt },
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential.id as string
  }
  const page = async (cursor?: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/wallet/${holder.did}/credentials?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      headers: { ...bearer(holderToken), 'x-user-did': holder.did },
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as { data: { id: string }[]; next_cursor: string | null }
  }

  it('returns every credential once, in id order, while others arrive between pages', async () => {
    const existing: string[] = []
    for (let i = 0; i < 5; i++) existing.push(await issue(), await importOne())
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const body = await page(cursor)
      seen.push(...body.data.map((c) => c.id))
      // Arrivals during the walk: either source, concurrently with the next page.
      await Promise.all([issue(), importOne()])
      cursor = body.next_cursor ?? undefined
    } while (cursor)
    assert.deepEqual(seen, [...seen].sort(), 'pages in id order')
    assert.equal(new Set(seen).size, seen.length, 'no credential twice')
    for (const id of existing) assert.ok(seen.includes(id), `${id} missing from the pages`)
  })
})
