import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'

/** Holder consents for verifiers (being written: see the consents work). */
export class ConsentService {
  constructor(readonly deps: { db: Database; clock: Clock }) {}
}
