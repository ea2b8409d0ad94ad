import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js'
import { compiledOnce } from '../../src/db/compiled-once.js'
import { MAX_PREPARED_STATEMENTS, preparedName } from '../../src/db/prepared-statements.js'
import { createTestDatabase, TEST_DATABASE_URL, TEST_ENGINE } from '../helpers/test-database.js'

// node-postgres only: PGlite runs in-process and has no connection to prepare statements on.
describe('prepared statements on PostgreSQL', { skip: TEST_ENGINE !== 'postgres' && 'PostgreSQL engine only' }, () => {
  let database: DatabaseHandle
  before(async () => {
    database = await createTestDatabase()
  })
  after(() => database.close())

  it('prepares a parameterised statement once per connection; every call gets its own rows', async () => {
    await database.db.connection().execute(async (conn) => {
      for (let i = 1; i <= 7; i++) {
        const { rows } = await sql<{ n: number; tag: string }>`select ${i}::int as n, ${`t${i}`}::text as tag`.execute(
          conn,
        )
        assert.deepEqual(rows, [{ n: i, tag: `t${i}` }])
      }
      await sql`select 'no parameters'`.execute(conn)
      const { rows } = await sql<{
        name: string
        statement: string
      }>`select name, statement from pg_prepared_statements`.execute(conn)
      const mine = rows.filter((r) => r.statement.includes('as tag'))
      assert.equal(mine.length, 1, JSON.stringify(rows))
      assert.equal(mine[0]!.statement, 'select $1::int as n, $2::text as tag')
      // Statements without parameters keep the simple protocol (BEGIN, COMMIT, migrations).
      assert.ok(!rows.some((r) => r.statement.includes('no parameters')))
      // Every connection and every instance derives the same name from the same text.
      assert.equal(mine[0]!.name, preparedName(mine[0]!.statement))
    })
  })

  it('prepares a statement afresh when its table changes shape under it (another instance migrating)', async () => {
    const db = database.db
    await sql`create table shifting (id int primary key, note text)`.execute(db)
    await sql`insert into shifting values (1, 'one')`.execute(db)
    const read = (id: number) => sql<Record<string, unknown>>`select * from shifting where id = ${id}`.execute(db)
    // Prepared on every pooled connection (five), as a busy service would have it.
    await Promise.all(Array.from({ length: 10 }, () => read(1)))
    const before = preparedName('select * from shifting where id = $1')
    // Another instance's migration, through a connection of its own.
    const other = await openDatabase({
      databaseUrl: new URL(
        `/${(await sql<{ d: string }>`select current_database() as d`.execute(db)).rows[0]!.d}`,
        TEST_DATABASE_URL,
      ).toString(),
      poolSize: 1,
    })
    try {
      await sql`alter table shifting add column added text default 'new'`.execute(other.db)
    } finally {
      await other.close()
    }
    // Outside a transaction every call answers, with the new column, on whichever connection.
    for (const { rows } of await Promise.all(Array.from({ length: 10 }, () => read(1))))
      assert.deepEqual(rows, [{ id: 1, note: 'one', added: 'new' }])
    assert.notEqual(preparedName('select * from shifting where id = $1'), before)
    // Inside a transaction the refused statement has failed it: the error stands.
    await sql`alter table shifting add column later int`.execute(db)
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`select * from shifting where id = ${1}`.execute(trx)
      }),
      (error: Error & { code?: string }) => error.code === '0A000',
    )
    assert.deepEqual((await read(1)).rows, [{ id: 1, note: 'one', added: 'new', later: null }])
  })

  it('sends every statement unnamed when prepared statements are off (DATABASE_UNNAMED_STATEMENTS)', async () => {
    const unnamed = await openDatabase({ databaseUrl: TEST_DATABASE_URL, poolSize: 1, preparedStatements: false })
    try {
      await unnamed.db.connection().execute(async (conn) => {
        for (let i = 0; i < 3; i++)
          assert.deepEqual((await sql<{ n: number }>`select ${i}::int as n, 'unnamed' as mode`.execute(conn)).rows, [
            { n: i, mode: 'unnamed' },
          ])
        const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(conn)
        assert.deepEqual(rows, [])
      })
    } finally {
      await unnamed.close()
    }
  })

  it('names at most MAX_PREPARED_STATEMENTS distinct texts; the rest run unnamed and still answer', async () => {
    for (let i = 0; i < MAX_PREPARED_STATEMENTS; i++) preparedName(`select ${i} where $1::int is not null -- filler`)
    assert.equal(preparedName('select $1::int as never_seen_before'), undefined)
    await database.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ n: number }>`select ${41}::int + 1 as n, 'past the cap' as note`.execute(conn)
      assert.deepEqual(
        rows.map((r) => r.n),
        [42],
      )
      const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(conn)
      assert.ok(!prepared.rows.some((r) => r.statement.includes('past the cap')))
    })
  })
})

describe('queries compiled once (both engines)', () => {
  let database: DatabaseHandle
  before(async () => {
    database = await createTestDatabase()
  })
  after(() => database.close())

  it("compiles the builder once, fills in each call's parameters and keeps the constants written in it", async () => {
    let builds = 0
    const byOwner = compiledOnce((db, p: { owner: string; limit: number }) => {
      builds++
      return db
        .selectFrom('service_keys')
        .select(['kid', 'owner'])
        .where('owner', '=', p.owner)
        .where('status', '=', 'active')
        .orderBy('kid')
        .limit(p.limit)
    })
    const at = new Date('2026-11-23T12:00:00Z')
    const key = (kid: string, owner: string, status: string) => ({
      kid,
      owner,
      purpose: 'jwt',
      algorithm: 'Ed25519',
      public_key: new Uint8Array(32),
      private_key_enc: new Uint8Array(8),
      status,
      created_at: at,
    })
    await database.db
      .insertInto('service_keys')
      .values([
        key('k1', 'alice', 'active'),
        key('k2', 'bob', 'active'),
        key('k3', 'alice', 'retired'),
        key('k4', 'carol', 'active'),
      ])
      .execute()
    assert.deepEqual(await byOwner(database.db, { owner: 'alice', limit: 5 }), [{ kid: 'k1', owner: 'alice' }])
    assert.deepEqual(await byOwner(database.db, { owner: 'bob', limit: 5 }), [{ kid: 'k2', owner: 'bob' }])
    assert.deepEqual(await byOwner(database.db, { owner: 'carol', limit: 0 }), [])
    await database.db.transaction().execute(async (trx) => {
      assert.deepEqual(await byOwner(trx, { owner: 'carol', limit: 1 }), [{ kid: 'k4', owner: 'carol' }])
    })
    assert.equal(builds, 1)
  })
})
