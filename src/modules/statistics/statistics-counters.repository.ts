import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { Counters } from './statistics.types.js'

/**
 * The counters behind the statistics routes (docs/decisions.md "Statistics from counters (issue
 * 26)"): triggers of migration 20261127T2100 append signed deltas per (did, metric, key) in the
 * transaction of each change; a read sums them and a fold replaces them by their sums.
 */

/** Metrics that hold a latest time (microseconds since the epoch): folded with max, not sum. */
const LATEST_METRICS = ['activities.last']

/** Deltas a DID may carry beyond one row per (metric, key) before a read folds them. */
const FOLD_SLACK = 64

const aggregate = sql`case when metric in (${sql.join(LATEST_METRICS)}) then max(n) else sum(n) end`

/**
 * One statement, so one snapshot: a fold commits its delete and its sums together, and the sum
 * here sees either the deltas or their fold, never both or neither.
 */
export async function readCounters(db: Executor, did: string, metrics: readonly string[]): Promise<Counters> {
  const { rows } = await sql<{ metric: string; key: string; n: string; deltas: string }>`
    select metric, key, ${aggregate} as n, count(*) as deltas from statistics_deltas
    where did = ${did} and metric in (${sql.join(metrics)})
    group by metric, key`.execute(db)
  const counters: Counters = new Map(metrics.map((m) => [m, {}]))
  let deltas = 0
  for (const row of rows) {
    deltas += Number(row.deltas)
    if (Number(row.n) !== 0) counters.get(row.metric)![row.key] = Number(row.n)
  }
  // The numbers are read already: a fold that fails (a concurrent fold of the same rows, say) is
  // retried by the next read or the minute's purge rather than failing this one.
  if (deltas > rows.length + FOLD_SLACK) await foldCounters(db, did).catch(() => undefined)
  return counters
}

/**
 * Replaces a DID's deltas by one row per (metric, key). Exact under concurrency without a lock:
 * the rows inserted are the sums of exactly the rows this statement deleted (a row another fold
 * deleted first is skipped by both its DELETE and its sum), and deltas committed meanwhile stay.
 */
export async function foldCounters(db: Executor, did: string): Promise<void> {
  await sql`
    with gone as (delete from statistics_deltas where did = ${did} returning metric, key, n),
    folded as (select metric, key, ${aggregate} as n from gone group by metric, key)
    insert into statistics_deltas (did, metric, key, n) select ${did}, metric, key, n from folded where n <> 0`.execute(
    db,
  )
}

/**
 * Folds the DIDs that carry the most deltas, so that a DID nobody reads keeps a bounded number of
 * rows too. The scan is of the deltas table alone, which folding keeps small.
 */
export async function foldBusiest(db: Executor, maxDids: number): Promise<number> {
  const { rows } = await sql<{ did: string }>`
    select did from statistics_deltas group by did having count(*) > count(distinct (metric, key)) + ${FOLD_SLACK}
    order by count(*) desc limit ${maxDids}`.execute(db)
  for (const { did } of rows) await foldCounters(db, did)
  return rows.length
}
