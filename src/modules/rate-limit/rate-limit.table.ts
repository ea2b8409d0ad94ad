import type {} from 'kysely'

export interface RateLimitCountersTable {
  bucket: string
  window_start: Date
  hits: number
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    rate_limit_counters: RateLimitCountersTable
  }
}
