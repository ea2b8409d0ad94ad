import type { Executor } from '../../db/database.js'
import { readCounters } from './statistics-counters.repository.js'
import type { Counters } from './statistics.types.js'

/**
 * What other modules read of the statistics counters (docs/decisions.md "Statistics from counters
 * (issue 26)"): the DID's metrics, summed in one statement.
 */
export function readStatistics(db: Executor, did: string, metrics: readonly string[]): Promise<Counters> {
  return readCounters(db, did, metrics)
}
