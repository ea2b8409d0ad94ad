/** SQLSTATE 23505 (unique_violation), as both node-postgres and PGlite report it. */
export const isUniqueViolation = (error: unknown): boolean => (error as { code?: string } | null)?.code === '23505'

/**
 * SQLSTATE 0A000 "cached plan must not change result type": a prepared statement whose tables
 * changed shape since it was prepared (both node-postgres and PGlite report it so).
 */
export const isStalePlan = (error: unknown): boolean =>
  (error as { code?: string } | null)?.code === '0A000' && /cached plan/i.test((error as Error).message)
