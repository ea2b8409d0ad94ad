import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import type { DatabaseHandle } from '../../src/db/connect.js'
import { MAX_PREPARED_STATEMENTS, preparedName } from '../../src/db/prepared-statements.js'
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js'

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
        const { rows } = await sql<{ n: number; tag: string }>`select ${i}::int as n, ${`t${i}`}::text as tag`.execute(conn)
        assert.deepEqual(rows, [{ n: i, tag: `t${i}` }])
      }
      await sql`select 'no parameters'`.execute(conn)
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(conn)
      const mine = rows.filter((r) => r.statement.includes('as tag'))
      assert.equal(mine.length, 1, JSON.stringify(rows))
      assert.equal(mine[0]!.statement, 'select $1::int as n, $2::text as tag')
      // Statements without parameters keep the simple protocol (BEGIN, COMMIT, migrations).
      assert.ok(!rows.some((r) => r.statement.includes('no parameters')))
      // Every connection and every instance derives the same name from the same text.
      assert.equal(mine[0]!.name, preparedName(mine[0]!.statement))
    })
  })

  it('names at most MAX_PREPARED_STATEMENTS distinct texts; the rest run unnamed and still answer', async () => {
    for (let i = 0; i < MAX_PREPARED_STATEMENTS; i++) preparedName(`select ${i} where $1::int is not null -- filler`)
    assert.equal(preparedName('select $1::int as never_seen_before'), undefined)
    await database.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ n: number }>`select ${41}::int + 1 as n, 'past the cap' as note`.execute(conn)
      assert.deepEqual(rows.map((r) => r.n), [42])
      const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(conn)
      assert.ok(!prepared.rows.some((r) => r.statement.includes('past the cap')))
    })
  })
})
