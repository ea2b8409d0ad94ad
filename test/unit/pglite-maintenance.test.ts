import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js'
import { PgliteMaintenance } from '../../src/db/pglite-maintenance.js'

// Runs once, with the unit tests: it is about PGlite alone (PostgreSQL has its autovacuum).
describe('PGlite maintenance (autovacuum for the embedded database)', () => {
  let database: DatabaseHandle

  before(async () => {
    const templatePath = process.env.TEST_PGLITE_TEMPLATE
    database = await openDatabase({ pgliteTemplate: templatePath ? new Blob([await readFile(templatePath)]) : undefined })
    await sql`create table things (id text primary key, owner text not null, note text)`.execute(database.db)
    await sql`create index things_owner on things (owner, id)`.execute(database.db)
    await sql`create table quiet (id int primary key)`.execute(database.db)
  })
  after(() => database?.close())

  const statsOf = async (table: string) =>
    (await sql<{ analyzed: Date | null; vacuumed: Date | null; modified: number; dead: number }>`
      select last_analyze as analyzed, last_vacuum as vacuumed, n_mod_since_analyze as modified, n_dead_tup as dead
      from pg_stat_user_tables where relname = ${table}`.execute(database.db)).rows[0]!
  /** The planner's row estimate for one owner's rows, as a prepared statement of the service sees it. */
  const estimate = async () => {
    const plan = (await sql<{ 'QUERY PLAN': string }>`explain select * from things where owner = ${'owner-7'}`.execute(database.db)).rows.map((r) => r['QUERY PLAN']).join('\n')
    return Number(/rows=(\d+)/.exec(plan)![1])
  }

  it('analyzes and vacuums a table past the thresholds, leaves the others alone, and does nothing when none is due', async (ctx) => {
    const maintenance = new PgliteMaintenance(database.db, 60_000)
    await maintenance.runOnce()
    assert.deepEqual(await maintenance.runOnce(), [], 'nothing changed since: nothing to do')
    const before = await estimate()

    // 50,000 rows, 40 per owner; then a quarter of them updated (dead versions).
    await sql`insert into things select 'id-' || g, 'owner-' || (g % 1250), repeat('x', 100) from generate_series(1, 50000) g`.execute(database.db)
    await sql`update things set note = 'changed' where id like 'id-%1' or id like 'id-%3' or id like 'id-%5'`.execute(database.db)
    await sql`insert into quiet values (1)`.execute(database.db)
    const steps = await maintenance.runOnce()
    assert.deepEqual(steps.map((s) => [s.table, s.action]), [['things', 'vacuum analyze']], 'one row in `quiet` is below every threshold')
    ctx.diagnostic(`VACUUM (ANALYZE) of 50,000 rows (15,000 updated) held the session ${steps[0]!.ms.toFixed(0)} ms`)
    const after = await statsOf('things')
    assert.ok(after.analyzed && after.vacuumed, 'pg_stat_user_tables records the analyze and the vacuum')
    assert.equal(Number(after.dead), 0)
    const estimated = await estimate()
    assert.ok(estimated >= 20 && estimated <= 80, `the planner now expects about 40 rows per owner (${estimated}; ${before} before)`)
    assert.deepEqual(await maintenance.runOnce(), [])

    // Changes past the analyze threshold (50 + 10 % of 50,000) but not the vacuum one (50 + 20 %): ANALYZE alone.
    await sql`update things set note = 'again' where id in (select id from things order by id limit 7000)`.execute(database.db)
    assert.deepEqual((await maintenance.runOnce()).map((s) => [s.table, s.action]), [['things', 'analyze']])
    // Past the vacuum threshold: VACUUM (ANALYZE).
    await sql`delete from things where id in (select id from things order by id limit 12000)`.execute(database.db)
    assert.deepEqual((await maintenance.runOnce()).map((s) => [s.table, s.action]), [['things', 'vacuum analyze']])
    assert.equal(Number((await statsOf('things')).dead), 0)
  })

  it('runs on its own when started, and stops', async () => {
    const seen: string[] = []
    await sql`insert into quiet select g from generate_series(2, 3000) g`.execute(database.db)
    const maintenance = new PgliteMaintenance(database.db, 50, (step) => seen.push(`${step.table} ${step.action}`))
    maintenance.start()
    for (let i = 0; i < 100 && !seen.includes('quiet vacuum analyze'); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    await maintenance.stop()
    assert.ok(seen.includes('quiet vacuum analyze'), seen.join(', '))
    assert.ok((await statsOf('quiet')).analyzed)
  })
})
