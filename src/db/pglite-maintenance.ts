import { sql, type Kysely } from 'kysely'
import type { DB } from './database.js'
import { PollLoop } from './poll-loop.js'

/** What one table needed, and how long it held the session. */
export interface MaintenanceStep {
  table: string
  action: 'vacuum analyze' | 'analyze'
  ms: number
}

interface TableStats {
  schemaname: string
  relname: string
  live: number
  dead: number
  modified: number
  inserted: number
}

/**
 * PostgreSQL's autovacuum for the embedded database, which has none: PGlite runs one session
 * without background workers, so its tables are never analyzed nor vacuumed by themselves.
 * Unanalyzed, a prepared statement keeps the plan it got while its tables were nearly empty
 * (nothing invalidates it), and dead row versions pile up under updates. Measured on PGlite with
 * 200,000 rows: a prepared lookup planned on the empty table took 0.84 ms, 0.36 ms after ANALYZE.
 *
 * Every `intervalMs` (autovacuum's naptime) it reads pg_stat_user_tables and treats each table
 * past autovacuum's default thresholds, furthest past first: VACUUM (ANALYZE) when dead rows
 * exceed 50 + 20 % of live rows or inserts since the last vacuum exceed 1,000 + 20 % (this also
 * sets the visibility map and freezes), ANALYZE alone when changes since the last analyze exceed
 * 50 + 10 %. Each is one statement in the database thread's queue, so other statements run
 * between them; while one runs it holds PGlite's only session (`onStep` reports how long).
 */
export class PgliteMaintenance {
  private readonly loop: PollLoop

  constructor(
    private readonly db: Kysely<DB>,
    intervalMs: number,
    private readonly onStep?: (step: MaintenanceStep) => void,
    onError?: (err: unknown) => void,
  ) {
    this.loop = new PollLoop(async () => void (await this.runOnce()), intervalMs, onError ?? (() => undefined))
  }

  start(): void {
    this.loop.start()
  }

  stop(): Promise<void> {
    return this.loop.stop()
  }

  /** One round: every table past a threshold, the furthest past first. */
  async runOnce(): Promise<MaintenanceStep[]> {
    // The session's own counts reach pg_stat_* at most once a second, at the end of a
    // transaction: flushed at the end of this one, the read below sees every change so far.
    await sql`select pg_stat_force_next_flush()`.execute(this.db)
    const stats = await sql<TableStats>`
      select schemaname, relname, n_live_tup as live, n_dead_tup as dead, n_mod_since_analyze as modified, n_ins_since_vacuum as inserted
      from pg_stat_user_tables`.execute(this.db)
    const due: Array<{ table: TableStats; action: MaintenanceStep['action']; over: number }> = []
    for (const table of stats.rows) {
      const live = Number(table.live)
      const vacuumOver = Math.max(Number(table.dead) / (50 + 0.2 * live), Number(table.inserted) / (1000 + 0.2 * live))
      const analyzeOver = Number(table.modified) / (50 + 0.1 * live)
      if (vacuumOver > 1) due.push({ table, action: 'vacuum analyze', over: vacuumOver })
      else if (analyzeOver > 1) due.push({ table, action: 'analyze', over: analyzeOver })
    }
    const steps: MaintenanceStep[] = []
    for (const { table, action } of due.sort((a, b) => b.over - a.over)) {
      const name = sql.id(table.schemaname, table.relname)
      const began = performance.now()
      await (action === 'vacuum analyze' ? sql`vacuum (analyze) ${name}` : sql`analyze ${name}`).execute(this.db)
      const step = { table: table.relname, action, ms: performance.now() - began }
      this.onStep?.(step)
      steps.push(step)
    }
    return steps
  }
}
