import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { buildApp } from '../../src/app.js'
import { deleteExpiredKeys } from '../../src/modules/idempotency/idempotency.repository.js'
import { bearer } from '../helpers/did-client.js'
import { IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

const TTL_S = 3600

describe('Idempotency-Key on POST /api/issuer/:did/issue (draft-ietf-httpapi-idempotency-key-header)', () => {
  const clock = new ManualClock(new Date())
  const issuers = [new IssuerActor(), new IssuerActor()]
  const schemaIds: string[] = []
  let t: TestApp

  before(async () => {
    t = await createTestApp({
      clock,
      env: { IDEMPOTENCY_KEY_TTL_SECONDS: String(TTL_S), JWT_TTL_SECONDS: String(30 * 86400) },
    })
    for (const issuer of issuers) {
      await issuer.setUp(t.app)
      schemaIds.push(await issuer.schema(t.app, JWT_DEGREE_SCHEMA))
    }
  })
  after(() => t.close())

  const body = (i: number, name = 'Ada') => ({
    credential_type: 'Degree',
    schema_id: schemaIds[i],
    attributes: { given_name: name, gpa: 3.5 },
  })
  const issue = (i: number, payload: object, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/issuer/${issuers[i]!.did}/issue`,
      headers: { ...bearer(issuers[i]!.token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    })
  /** Every credential the issuer holds, by the issuer's listing (not the code under test). */
  const issuedIds = async (i: number): Promise<string[]> => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/issuer/${issuers[i]!.did}/credentials?limit=200`,
      headers: bearer(issuers[i]!.token),
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.map((c: { id: string }) => c.id)
  }

  it('a retry with the same key and body answers the first 201, and one credential exists', async () => {
    const before = await issuedIds(0)
    const key = `"${randomUUID()}"`
    const first = await issue(0, body(0), key)
    assert.equal(first.statusCode, 201, first.body)
    const again = await issue(0, body(0), key)
    assert.equal(again.statusCode, 201, again.body)
    assert.deepEqual(again.json(), first.json())
    const after = await issuedIds(0)
    assert.equal(after.length, before.length + 1)
    assert.ok(after.includes(first.json().credential.id))
  })

  it('takes a bare (unquoted) key, the same key as its quoted form', async () => {
    const uuid = randomUUID()
    const first = await issue(0, body(0), uuid)
    assert.equal(first.statusCode, 201, first.body)
    const quoted = await issue(0, body(0), `"${uuid}"`)
    assert.equal(quoted.statusCode, 201, quoted.body)
    assert.equal(quoted.json().credential.id, first.json().credential.id)
  })

  it('the same key with another body answers 422 with a message, and issues nothing', async () => {
    const key = `"${randomUUID()}"`
    assert.equal((await issue(0, body(0, 'Ada'), key)).statusCode, 201)
    const count = (await issuedIds(0)).length
    const other = await issue(0, body(0, 'Grace'), key)
    assert.equal(other.statusCode, 422, other.body)
    assert.match(other.json().message, /Idempotency-Key/)
    assert.equal((await issuedIds(0)).length, count)
  })

  it('five concurrent requests with one key issue exactly one credential; the others replay it or answer 409', async () => {
    const before = await issuedIds(0)
    const key = `"${randomUUID()}"`
    const answers = await Promise.all(Array.from({ length: 5 }, () => issue(0, body(0), key)))
    const created = answers.filter((r) => r.statusCode === 201)
    assert.ok(created.length >= 1, answers.map((r) => r.statusCode).join(','))
    for (const r of answers) assert.ok(r.statusCode === 201 || r.statusCode === 409, `${r.statusCode} ${r.body}`)
    for (const r of answers.filter((a) => a.statusCode === 409)) {
      assert.match(r.json().message, /still being processed/)
      assert.equal(r.headers['retry-after'], '1')
    }
    const ids = new Set(created.map((r) => r.json().credential.id))
    assert.equal(ids.size, 1)
    const after = await issuedIds(0)
    assert.equal(after.length, before.length + 1)
    // Once the first has answered, a retry replays it.
    const retry = await issue(0, body(0), key)
    assert.equal(retry.statusCode, 201, retry.body)
    assert.deepEqual(retry.json(), created[0]!.json())
  })

  it('duplicates sent to two instances on one database issue one credential', async () => {
    // A second instance on the same database (what a load balancer would see): its in-flight
    // set does not know the first's, so only the key's record in the database can tell.
    const second = await buildApp(t.config, {
      ...t.deps,
      database: { ...t.deps.database, close: async () => undefined },
    })
    await second.ready()
    try {
      const before = await issuedIds(0)
      const key = `"${randomUUID()}"`
      const send = (app: typeof second) =>
        app.inject({
          method: 'POST',
          url: `/api/issuer/${issuers[0]!.did}/issue`,
          headers: { ...bearer(issuers[0]!.token), 'idempotency-key': key },
          payload: body(0),
        })
      const answers = await Promise.all([send(t.app), send(second), send(t.app), send(second)])
      for (const r of answers) assert.ok(r.statusCode === 201 || r.statusCode === 409, `${r.statusCode} ${r.body}`)
      const created = answers.filter((r) => r.statusCode === 201)
      // One per instance at least gets past its own in-flight check; both answer the one credential.
      assert.ok(created.length >= 2, answers.map((r) => r.statusCode).join(','))
      for (const r of created) assert.deepEqual(r.json(), created[0]!.json())
      assert.equal((await issuedIds(0)).length, before.length + 1)
    } finally {
      await second.close()
    }
  })

  it("another caller's equal key is another key", async () => {
    const key = `"${randomUUID()}"`
    const mine = await issue(0, body(0), key)
    const theirs = await issue(1, body(1), key)
    assert.equal(mine.statusCode, 201, mine.body)
    assert.equal(theirs.statusCode, 201, theirs.body)
    assert.notEqual(theirs.json().credential.id, mine.json().credential.id)
    assert.ok((await issuedIds(1)).includes(theirs.json().credential.id))
  })

  it('a malformed key answers 400 naming the header, and issues nothing', async () => {
    const count = (await issuedIds(0)).length
    for (const bad of ['""', '"unterminated', 'two words', `"${'k'.repeat(256)}"`, '"a\\b"', '"x", "y"']) {
      const res = await issue(0, body(0), bad)
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`)
      assert.match(res.json().message, /Idempotency-Key/)
    }
    assert.equal((await issuedIds(0)).length, count)
  })

  it('takes a key of 255 characters', async () => {
    const res = await issue(0, body(0), `"${'k'.repeat(250)}${randomUUID().slice(0, 5)}"`)
    assert.equal(res.statusCode, 201, res.body)
  })

  it('a failed request leaves no record: the key can be used again', async () => {
    const key = `"${randomUUID()}"`
    const failed = await issue(0, { ...body(0), schema_id: 'no-such-schema' }, key)
    assert.equal(failed.statusCode, 400, failed.body)
    const ok = await issue(0, body(0), key)
    assert.equal(ok.statusCode, 201, ok.body)
  })

  it('past its lifetime a key is free again', async () => {
    const key = `"${randomUUID()}"`
    const first = await issue(0, body(0, 'Ada'), key)
    assert.equal(first.statusCode, 201, first.body)
    clock.advance((TTL_S + 1) * 1000)
    const later = await issue(0, body(0, 'Grace'), key)
    assert.equal(later.statusCode, 201, later.body)
    assert.notEqual(later.json().credential.id, first.json().credential.id)
  })

  it('the sweep deletes expired keys, a bounded batch at a time, and keeps live ones', async () => {
    // Every key above is past its lifetime now (the clock moved on); one more is live.
    const live = `"${randomUUID()}"`
    const first = await issue(0, body(0), live)
    const db = t.deps.database.db
    const expired = async () =>
      Number(
        (
          await db
            .selectFrom('idempotency_keys')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('expires_at', '<=', clock.now())
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await expired()
    assert.ok(before > 2, `expired keys: ${before}`)
    assert.equal(await deleteExpiredKeys(db, clock.now(), 2), 2)
    assert.equal(await expired(), before - 2)
    await deleteExpiredKeys(db, clock.now(), 10_000)
    assert.equal(await expired(), 0)
    const again = await issue(0, body(0), live)
    assert.deepEqual(again.json(), first.json())
  })

  it('without a key every request issues', async () => {
    const before = (await issuedIds(0)).length
    assert.equal((await issue(0, body(0))).statusCode, 201)
    assert.equal((await issue(0, body(0))).statusCode, 201)
    assert.equal((await issuedIds(0)).length, before + 2)
  })
})
