import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js'
import { PgliteMaintenance, type MaintenanceStep } from '../../src/db/pglite-maintenance.js'

// Runs once, with the unit tests: it is about PGlite alone (PostgreSQL has its autovacuum).
describe('PGlite maintenance (autovacuum for the embedded database)', () => {
  let database: DatabaseHandle

  before(async () => {
    const templatePath = process.env.TEST_PGLITE_TEMPLATE
    database = await openDatabase({
      pgliteTemplate: templatePath ? new Blob([await readFile(templatePath)]) : undefined,
    })
    await sql`create table things (id text primary key, owner text not null, note text)`.execute(database.db)
    await sql`create index things_owner on things (owner, id)`.execute(database.db)
    await sql`create table quiet (id int primary key)`.execute(database.db)
    // Whatever creating the tables left due (the catalogs), done before the cases below.
    const settle = new PgliteMaintenance(database.db, { intervalMs: 60_000, roundBudgetMs: 60_000 })
    while ((await settle.runOnce()).length > 0);
  })
  after(() => database?.close())

  const statsOf = async (table: string) =>
    (
      await sql<{ analyzed: Date | null; vacuumed: Date | null; dead: number }>`
      select last_analyze as analyzed, last_vacuum as vacuumed, n_dead_tup as dead
      from pg_stat_user_tables where relname = ${table}`.execute(database.db)
    ).rows[0]!
  /** The planner's row estimate for one owner's rows. */
  const estimate = async () => {
    const plan = (
      await sql<{ 'QUERY PLAN': string }>`explain select * from things where owner = ${'owner-7'}`.execute(database.db)
    ).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n')
    return Number(/rows=(\d+)/.exec(plan)![1])
  }
  const actions = (steps: MaintenanceStep[]) => steps.map((s) => `${s.table} ${s.action}`)

  it('vacuums and analyzes a table past the thresholds, analyzes one past the analyze threshold only, and does nothing when none is due', async (ctx) => {
    const maintenance = new PgliteMaintenance(database.db, { intervalMs: 60_000, roundBudgetMs: 60_000 })
    assert.deepEqual(await maintenance.runOnce(), [], 'nothing changed: nothing to do')
    const before = await estimate()

    // 50,000 rows, 40 per owner; then 15,000 of them updated (dead versions).
    await sql`insert into things select 'id-' || g, 'owner-' || (g % 1250), repeat('x', 100) from generate_series(1, 50000) g`.execute(
      database.db,
    )
    await sql`update things set note = 'changed' where id like 'id-%1' or id like 'id-%3' or id like 'id-%5'`.execute(
      database.db,
    )
    await sql`insert into quiet values (1)`.execute(database.db)
    const steps = await maintenance.runOnce()
    assert.ok(actions(steps).includes('public.things vacuum analyze'), actions(steps).join(', '))
    assert.ok(!actions(steps).some((a) => a.startsWith('public.quiet')), 'one row in `quiet` is below every threshold')
    ctx.diagnostic(
      `VACUUM (ANALYZE) of 50,000 rows (15,000 updated): ${steps.find((s) => s.table === 'public.things')!.ms.toFixed(0)} ms`,
    )
    const after = await statsOf('things')
    assert.ok(after.analyzed && after.vacuumed, 'pg_stat_user_tables records the analyze and the vacuum')
    assert.equal(Number(after.dead), 0)
    const estimated = await estimate()
    assert.ok(
      estimated >= 20 && estimated <= 80,
      `the planner now expects about 40 rows per owner (${estimated}; ${before} before)`,
    )
    while ((await maintenance.runOnce()).length > 0);

    // Past the analyze threshold (50 + 10 % of 50,000) but not the vacuum one (50 + 20 %): ANALYZE alone.
    await sql`update things set note = 'again' where id in (select id from things order by id limit 7000)`.execute(
      database.db,
    )
    assert.ok(actions(await maintenance.runOnce()).includes('public.things analyze'))
    // Past the vacuum threshold: VACUUM (ANALYZE).
    await sql`delete from things where id in (select id from things order by id limit 12000)`.execute(database.db)
    assert.ok(actions(await maintenance.runOnce()).includes('public.things vacuum analyze'))
    assert.equal(Number((await statsOf('things')).dead), 0)
  })

  it('freezes every table, the catalogs included, whose oldest unfrozen transaction passed the age, within the round budget', async () => {
    const databaseAge = async () =>
      Number(
        (
          await sql<{
            age: number
          }>`select age(datfrozenxid) as age from pg_database where datname = current_database()`.execute(database.db)
        ).rows[0]!.age,
      )
    // 600 transactions, each one transaction id.
    for (let i = 0; i < 600; i++) await sql`insert into quiet values (${1000 + i})`.execute(database.db)
    assert.ok((await databaseAge()) >= 500)

    const oneStep = new PgliteMaintenance(database.db, { intervalMs: 60_000, freezeAgeXids: 500, roundBudgetMs: 0 })
    const first = await oneStep.runOnce()
    assert.equal(first.length, 1, 'a spent budget stops the round after its first step')
    assert.equal(first[0]!.action, 'freeze')

    const maintenance = new PgliteMaintenance(database.db, {
      intervalMs: 60_000,
      freezeAgeXids: 500,
      roundBudgetMs: 60_000,
    })
    const steps = await maintenance.runOnce()
    assert.ok(steps.every((s) => s.action === 'freeze') && steps.length > 10, actions(steps).join(', '))
    assert.ok(actions(steps).includes('pg_catalog.pg_class freeze') && actions(steps).includes('public.quiet freeze'))
    assert.ok((await databaseAge()) < 500, 'the database’s oldest unfrozen transaction is recent again')
  })

  it('runs on its own when started, and stops', async () => {
    const seen: string[] = []
    await sql`insert into quiet select g from generate_series(5000, 8000) g`.execute(database.db)
    const maintenance = new PgliteMaintenance(database.db, {
      intervalMs: 50,
      onStep: (step) => seen.push(`${step.table} ${step.action}`),
    })
    maintenance.start()
    for (let i = 0; i < 100 && !seen.includes('public.quiet vacuum analyze'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    await maintenance.stop()
    assert.ok(seen.includes('public.quiet vacuum analyze'), seen.join(', '))
    assert.ok((await statsOf('quiet')).analyzed)
  })
})
