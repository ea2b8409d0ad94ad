import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { bearer, DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { foreignCredential, multipart, PDF_BYTES } from '../helpers/wallet-fixtures.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

/**
 * One known sequence of wallet events, then the log and the statistics it must produce:
 * each event's entry, in order, and numbers counted by the database.
 */
describe('wallet activities and statistics', () => {
  let t: TestApp
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()
  const external = new DidClient()
  const holder = new DidClient()
  const other = new DidClient()
  let holderToken: string
  let otherToken: string
  const ids: Record<string, string> = {}

  before(async () => {
    t = await createTestApp({ clock, env: { JWT_TTL_SECONDS: '86400' } })
    await issuer.setUp(t.app, 'Pass Office')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    otherToken = await other.login(t.app)
    const ok = (res: { statusCode: number; body: string }, status: number) => {
      assert.equal(res.statusCode, status, res.body)
      return JSON.parse(res.body) as Json
    }
    const issue = async (extra: Json = {}) =>
      ok(
        await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
          credential_type: 'Pass',
          schema_id: schemaId,
          subject_did: holder.did,
          attributes: { holder_name: 'H' },
          ...extra,
        }),
        201,
      ).credential.id as string
    const importJwt = async (type: string) =>
      ok(
        await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, {
          credential_jwt: foreignCredential(external, { subject: holder.did, type }),
        }),
        201,
      ).credential.id as string

    ids.a = await issue()
    ids.b = await issue()
    ids.e = await issue({ expiration_date: new Date(clock.now().getTime() + 3600_000).toISOString() })
    ids.request = ok(
      await callAs(t.app, 'POST', '/api/wallet/credential-request', holderToken, {
        issuer_did: issuer.did,
        schema_id: schemaId,
        credential_type: 'Pass',
      }),
      201,
    ).request.id
    ids.c = await importJwt('ExternalBadge')
    ids.d = await importJwt('ExternalBadge')
    const share = ok(
      await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/share`, holderToken, { credential_id: ids.a }),
      201,
    ).share
    ids.share = share.id
    ok(await t.app.inject({ method: 'GET', url: new URL(share.share_url).pathname }), 200)
    ok(await callAs(t.app, 'POST', `/api/wallet/${holder.did}/shares/${share.id}/revoke`, holderToken), 200)
    ok(
      await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/${ids.b}/revoke`, holderToken, {
        reason: 'no longer needed',
      }),
      200,
    )
    const { payload, headers } = multipart([
      { name: 'label', value: 'transcript' },
      { name: 'file', filename: 't.pdf', contentType: 'application/pdf', data: PDF_BYTES },
    ])
    ids.evidence = ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/wallet/${holder.did}/evidence/upload`,
        headers: { ...headers, ...bearer(holderToken) },
        payload,
      }),
      201,
    ).record.id
    ok(await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${ids.c}`, holderToken), 200)
    // The issuer revokes A (logged for the holder: its status in the wallet changes); time passes
    // beyond E's expiry (not an event).
    ok(await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${ids.a}/revoke`, issuer.token), 200)
    clock.advance(2 * 3600_000)
  })
  after(() => t.close())

  const activities = async (query = '', token = holderToken, did = holder.did): Promise<Json> => {
    const res = await callAs(t.app, 'GET', `/api/wallet/${did}/activities${query}`, token)
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  const EXPECTED: Array<[string, string | null]> = [
    ['credential_received', 'a'],
    ['credential_received', 'b'],
    ['credential_received', 'e'],
    ['credential_request_created', null],
    ['credential_imported', 'c'],
    ['credential_imported', 'd'],
    ['credential_shared', 'a'],
    ['share_accessed', 'a'],
    ['share_revoked', 'a'],
    ['credential_withdrawn', 'b'],
    ['evidence_uploaded', null],
    ['credential_deleted', 'c'],
    ['credential_revoked', 'a'],
  ]

  it('logs one entry per event, in order (asc), newest first by default', async () => {
    const asc = await activities('?order=asc')
    assert.equal(asc.count, EXPECTED.length)
    assert.deepEqual(
      asc.data.map((e: Json) => [e.type, e.credential_id]),
      EXPECTED.map(([type, key]) => [type, key === null ? null : ids[key]]),
    )
    for (const entry of asc.data) {
      assert.equal(entry.holder_did, holder.did)
      assert.ok(!Number.isNaN(Date.parse(entry.created_at)))
    }
    assert.equal(asc.data[3].details.request_id, ids.request)
    assert.equal(asc.data[6].details.share_id, ids.share)
    assert.equal(asc.data[10].details.evidence_id, ids.evidence)
    assert.equal(asc.data[9].details.shares_revoked, 0)
    const ascIds = asc.data.map((e: Json) => BigInt(e.id))
    assert.ok(ascIds.every((id: bigint, i: number) => i === 0 || id > ascIds[i - 1]!))

    const desc = await activities()
    assert.deepEqual(
      desc.data.map((e: Json) => e.id),
      [...asc.data].reverse().map((e: Json) => e.id),
    )
  })

  it('paginates with the cursor in either order, and filters by type and credential', async () => {
    const all: string[] = []
    let cursor: string | null = null
    do {
      const page: Json = await activities(`?order=asc&limit=5${cursor ? `&cursor=${cursor}` : ''}`)
      assert.ok(page.count <= 5)
      all.push(...page.data.map((e: Json) => e.type))
      cursor = page.next_cursor
    } while (cursor)
    assert.deepEqual(
      all,
      EXPECTED.map(([type]) => type),
    )
    const first = await activities('?limit=2')
    const second = await activities(`?limit=2&cursor=${first.next_cursor}`)
    assert.deepEqual(
      second.data.map((e: Json) => e.type),
      ['evidence_uploaded', 'credential_withdrawn'],
    )

    assert.equal((await activities('?type=credential_received')).count, 3)
    const forA = await activities(`?order=asc&credential_id=${encodeURIComponent(ids.a!)}`)
    assert.deepEqual(
      forA.data.map((e: Json) => e.type),
      ['credential_received', 'credential_shared', 'share_accessed', 'share_revoked', 'credential_revoked'],
    )
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/activities?cursor=abc`, holderToken)).statusCode,
      400,
    )
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/activities?order=sideways`, holderToken)).statusCode,
      400,
    )
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/activities?limit=0`, holderToken)).statusCode,
      400,
    )
  })

  it('is append-only in the database too', async () => {
    const db = t.deps.database.db
    await assert.rejects(sql`update wallet_activities set type = 'x'`.execute(db), /append-only/)
    await assert.rejects(sql`delete from wallet_activities`.execute(db), /append-only/)
  })

  it('counts the wallet in SQL after the known sequence', async () => {
    const res = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/statistics`, holderToken)
    assert.equal(res.statusCode, 200, res.body)
    const s = res.json().statistics
    // In the wallet: A (revoked by the issuer), B (withdrawn), E (expired), D (imported); C deleted.
    assert.deepEqual(s.credentials, {
      total: 4,
      active: 3,
      revoked: 1,
      withdrawn: 1,
      expired: 1,
      by_source: { issued: 3, imported: 1 },
      by_type: { Pass: 3, ExternalBadge: 1 },
      by_issuer: { [issuer.did]: 3, [external.did]: 1 },
    })
    assert.deepEqual(s.shares, { total: 1, active: 0, revoked: 1, expired: 0, accesses: 1 })
    assert.deepEqual(s.evidence, { count: 1, total_bytes: PDF_BYTES.length })
    assert.deepEqual(s.credential_requests, { total: 1, by_status: { pending: 1 } })
    assert.deepEqual(s.presentations, { total: 0, by_status: {} })
    assert.equal(s.activities.total, EXPECTED.length)
    assert.deepEqual(s.activities.by_type, {
      credential_received: 3,
      credential_request_created: 1,
      credential_imported: 2,
      credential_shared: 1,
      share_accessed: 1,
      share_revoked: 1,
      credential_withdrawn: 1,
      evidence_uploaded: 1,
      credential_deleted: 1,
      credential_revoked: 1,
    })
    assert.ok(s.activities.last_activity_at)

    const empty = (await callAs(t.app, 'GET', `/api/wallet/${other.did}/statistics`, otherToken)).json().statistics
    assert.equal(empty.credentials.total, 0)
    assert.equal(empty.activities.total, 0)
    assert.equal(empty.activities.last_activity_at, null)
  })

  it("401 without a token, 403 for another DID; another holder's log is empty", async () => {
    for (const path of ['activities', 'statistics']) {
      assert.equal((await t.app.inject({ method: 'GET', url: `/api/wallet/${holder.did}/${path}` })).statusCode, 401)
      assert.equal((await callAs(t.app, 'GET', `/api/wallet/${holder.did}/${path}`, otherToken)).statusCode, 403)
    }
    assert.equal((await activities('', otherToken, other.did)).count, 0)
    assert.equal((await activities(`?credential_id=${encodeURIComponent(ids.a!)}`, otherToken, other.did)).count, 0)
  })
})
