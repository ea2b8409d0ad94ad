import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'

/** Adds each bucket's hits to its window and returns the new shared totals. */
export async function addHits(
  db: Executor,
  windowStart: Date,
  hits: ReadonlyArray<{ bucket: string; hits: number }>,
): Promise<Map<string, number>> {
  if (hits.length === 0) return new Map()
  const rows = await db
    .insertInto('rate_limit_counters')
    .values(hits.map((h) => ({ bucket: h.bucket, window_start: windowStart, hits: h.hits })))
    .onConflict((oc) =>
      oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql`rate_limit_counters.hits + excluded.hits` }),
    )
    .returning(['bucket', 'hits'])
    .execute()
  return new Map(rows.map((r) => [r.bucket, Number(r.hits)]))
}

export async function deleteWindowsBefore(db: Executor, before: Date): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('window_start', '<', before).execute()
}
