/** SQLSTATE 23505 (unique_violation), as both node-postgres and PGlite report it. */
export const isUniqueViolation = (error: unknown): boolean => (error as { code?: string } | null)?.code === '23505'
