import { sql, type Kysely } from 'kysely'
import type { DB } from './database.js'
import { PollLoop } from '../shared/poll-loop.js'

/** What one table needed, and how long it held the session. */
export interface MaintenanceStep {
  table: string
  action: 'freeze' | 'vacuum analyze' | 'analyze'
  ms: number
}

export interface MaintenanceOptions {
  /** Between rounds (autovacuum's naptime). */
  intervalMs: number
  /**
   * A table whose oldest unfrozen transaction id is this old is frozen (default 150 million,
   * PostgreSQL's vacuum_freeze_table_age; its autovacuum forces the same at 200 million).
   */
  freezeAgeXids?: number
  /** A round starts no further step once its steps took this long (it always takes one); the rest waits for the next round. */
  roundBudgetMs?: number
  onStep?: (step: MaintenanceStep) => void
  onError?: (err: unknown) => void
}

interface TableStats {
  schemaname: string
  relname: string
  xid_age: number
  live: number | null
  dead: number | null
  modified: number | null
  inserted: number | null
}

/**
 * PostgreSQL's autovacuum for the embedded database, which has none: PGlite runs one session
 * without background workers, so its tables are never analyzed, vacuumed or frozen by themselves.
 * Unanalyzed, a prepared statement keeps the plan it got while its tables were nearly empty
 * (nothing invalidates it), and a lookup planned on an empty table stays slow on a large one.
 * Unvacuumed, updated rows leave dead
 * versions behind. Unfrozen, rows would become invisible once the 32-bit transaction counter
 * wraps around (PostgreSQL's stop before that does not apply to a single-user backend).
 *
 * Every `intervalMs`, tables (the catalogs too) past autovacuum's default thresholds, oldest
 * transaction ids first, then the furthest past: VACUUM (FREEZE) when the table's oldest unfrozen
 * transaction id is `freezeAgeXids` old; VACUUM (ANALYZE) when dead rows exceed 50 + 20 % of live
 * rows or inserts since the last vacuum exceed 1,000 + 20 %; ANALYZE alone when changes since the
 * last analyze exceed 50 + 10 %. Each is one statement in the database thread's queue, so other
 * statements run between them, but while one runs it holds PGlite's only session: ANALYZE samples
 * 3,000 rows (default_statistics_target 10 rather than 100; enough for the planner to know each
 * table's size and spread, at a tenth of the cost), and a round starts no step once its steps took
 * `roundBudgetMs`, so no round holds the session long under load (the figures behind the sample
 * size and the budget: docs/decisions.md, "Measurements behind code choices").
 */
export class PgliteMaintenance {
  private readonly loop: PollLoop
  private readonly freezeAgeXids: number
  private readonly roundBudgetMs: number

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: MaintenanceOptions,
  ) {
    this.freezeAgeXids = options.freezeAgeXids ?? 150_000_000
    this.roundBudgetMs = options.roundBudgetMs ?? 500
    this.loop = new PollLoop(
      async () => void (await this.runOnce()),
      options.intervalMs,
      options.onError ?? (() => undefined),
    )
  }

  start(): void {
    this.loop.start()
  }

  stop(): Promise<void> {
    return this.loop.stop()
  }

  /** One round: the tables past a threshold, the most urgent first, within the round's budget. */
  async runOnce(): Promise<MaintenanceStep[]> {
    // The session's own counts reach pg_stat_* at most once a second, at the end of a
    // transaction: flushed at the end of this one, the read below sees every change so far.
    await sql`select pg_stat_force_next_flush()`.execute(this.db)
    const stats = await sql<TableStats>`
      select n.nspname as schemaname, c.relname, age(c.relfrozenxid) as xid_age,
        s.n_live_tup as live, s.n_dead_tup as dead, s.n_mod_since_analyze as modified, s.n_ins_since_vacuum as inserted
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_stat_all_tables s on s.relid = c.oid
      where c.relkind in ('r', 'm')`.execute(this.db)
    const due: Array<{ table: TableStats; action: MaintenanceStep['action']; urgency: number }> = []
    for (const table of stats.rows) {
      const live = Number(table.live ?? 0)
      const age = Number(table.xid_age)
      const vacuumOver = Math.max(
        Number(table.dead ?? 0) / (50 + 0.2 * live),
        Number(table.inserted ?? 0) / (1000 + 0.2 * live),
      )
      const analyzeOver = Number(table.modified ?? 0) / (50 + 0.1 * live)
      // Freezing outranks everything: the ratio of its age to the threshold, plus a margin over any other ratio.
      if (age >= this.freezeAgeXids) due.push({ table, action: 'freeze', urgency: 1e9 + age / this.freezeAgeXids })
      else if (vacuumOver > 1) due.push({ table, action: 'vacuum analyze', urgency: vacuumOver })
      else if (analyzeOver > 1) due.push({ table, action: 'analyze', urgency: analyzeOver })
    }
    if (due.length === 0) return []
    await sql`set default_statistics_target = 10`.execute(this.db)
    const steps: MaintenanceStep[] = []
    let spent = 0
    for (const { table, action } of due.sort((a, b) => b.urgency - a.urgency)) {
      if (steps.length > 0 && spent >= this.roundBudgetMs) break
      const name = sql.id(table.schemaname, table.relname)
      const began = performance.now()
      await (action === 'freeze'
        ? sql`vacuum (freeze) ${name}`
        : action === 'vacuum analyze'
          ? sql`vacuum (analyze) ${name}`
          : sql`analyze ${name}`
      ).execute(this.db)
      const step = { table: `${table.schemaname}.${table.relname}`, action, ms: performance.now() - began }
      spent += step.ms
      this.options.onStep?.(step)
      steps.push(step)
    }
    return steps
  }
}
