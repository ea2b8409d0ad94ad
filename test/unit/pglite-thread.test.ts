import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Kysely, sql } from 'kysely'
import { PGliteDialect } from '../../src/db/pglite-dialect.js'
import { LOCK_TIMEOUT_MESSAGE } from '../../src/db/pglite-thread-messages.js'
import { PGliteThread } from '../../src/db/pglite-thread.js'

// The embedded engine only (PostgreSQL has real sessions), so it runs once, with the unit tests.
// From the runner's initdb tarball when there is one (initdb takes seconds).
const templatePath = process.env.TEST_PGLITE_TEMPLATE
const template = async () => (templatePath ? new Uint8Array(await readFile(templatePath)).buffer : undefined)
const open = async (options: ConstructorParameters<typeof PGliteThread>[0] = {}) =>
  new Kysely<Record<string, never>>({
    dialect: new PGliteDialect(new PGliteThread({ template: await template(), ...options })),
  })
const settled = async (promise: Promise<unknown>) => {
  let done = false
  void promise.then(
    () => (done = true),
    () => (done = true),
  )
  await new Promise((resolve) => setTimeout(resolve, 50))
  return done
}

describe('PGlite on its own thread', () => {
  let db: Kysely<Record<string, never>>

  before(async () => {
    db = await open({ lockTimeoutMs: 400 })
    await sql`create table t (id int primary key, note text)`.execute(db)
  })
  after(() => db.destroy())

  it('holds statements from outside an open transaction until it ends, so they never see its writes', async () => {
    let outside: Promise<unknown> | undefined
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`insert into t values (1, 'uncommitted')`.execute(trx)
        outside = sql<{ n: number }>`select count(*)::int as n from t where id = 1`.execute(db)
        assert.equal(await settled(outside), false, 'the outside statement ran inside the transaction')
        throw new Error('roll back')
      }),
      /roll back/,
    )
    const { rows } = (await outside!) as { rows: Array<{ n: number }> }
    assert.equal(rows[0]!.n, 0)
  })

  it('answers each of many concurrent statements with its own result', async () => {
    const values = Array.from({ length: 300 }, (_, i) => i * 7)
    const results = await Promise.all(values.map((v) => sql<{ v: number }>`select ${v}::int as v`.execute(db)))
    assert.deepEqual(
      results.map((r) => r.rows[0]!.v),
      values,
    )
  })

  it('keeps the SQLSTATE and constraint of a driver error, but not the statement parameters', async () => {
    await sql`insert into t values (2, 'first')`.execute(db)
    const error = await sql`insert into t values (${2}, ${'secret value'})`.execute(db).then(
      () => assert.fail('duplicate key accepted'),
      (e: unknown) => e as Record<string, unknown>,
    )
    assert.ok(error instanceof Error)
    assert.equal(error.code, '23505')
    assert.equal(error.constraint, 't_pkey')
    assert.match(String(error.message), /duplicate key/)
    assert.equal(JSON.stringify(error).includes('secret value'), false)
  })

  it("fails a statement that waits behind its own flow's transaction instead of hanging", async () => {
    await assert.rejects(
      db.transaction().execute(async () => {
        await sql`select 1`.execute(db) // outside the transaction: waits on it
      }),
      (error: Error) => error.message === LOCK_TIMEOUT_MESSAGE,
    )
    // The transaction was rolled back and the session is free again.
    assert.equal((await sql<{ v: number }>`select 1 as v`.execute(db)).rows[0]!.v, 1)
  })

  it('leaves the event loop free while a long statement runs', async () => {
    // Timers fire while the statement runs only if it runs elsewhere: on this thread it would
    // hold the event loop until it ended (its promise settles before any timer). A slower
    // machine makes the statement longer and the count higher, never lower.
    let ticks = 0
    const ticker = setInterval(() => ticks++, 5)
    let ticksWhenDone: number
    try {
      await sql`select count(*) from generate_series(1, 1000000) g, lateral (select md5(g::text)) m`.execute(db)
      ticksWhenDone = ticks
    } finally {
      clearInterval(ticker)
    }
    assert.ok(ticksWhenDone >= 3, `only ${ticksWhenDone} timer ticks while the statement ran: the event loop was held`)
  })
})

describe('PGlite thread lifecycle', () => {
  it('keeps a data directory across close and reopen, and refuses statements once closed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pglite-thread-'))
    try {
      const first = await open({ dataDir: dir })
      await sql`create table kept (v text)`.execute(first)
      await sql`insert into kept values ('still here')`.execute(first)
      await first.destroy()
      await assert.rejects(sql`select 1`.execute(first), /closed|destroyed/)
      const second = await open({ dataDir: dir, template: undefined })
      assert.deepEqual((await sql<{ v: string }>`select v from kept`.execute(second)).rows, [{ v: 'still here' }])
      await second.destroy()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('reports a database that cannot start as an error on the first statement', async () => {
    const db = await open({ dataDir: '/proc/self/not-a-place-for-a-database' })
    const first = await sql`select 1`.execute(db).then(
      () => assert.fail('a database in /proc started'),
      (e: Error) => e,
    )
    // Every later statement gets the same reason, not a bare "closed".
    await assert.rejects(sql`select 2`.execute(db), (e: Error) => e.message === first.message)
    await db.destroy().catch(() => undefined)
  })
})
