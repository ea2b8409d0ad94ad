import { Migrator, type Kysely, type MigrationResultSet } from 'kysely'
import { migrations } from './migrations/index.js'

export function createMigrator(db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } })
}

/** Runs pending migrations; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const resultSet = await createMigrator(db).migrateToLatest()
  if (resultSet.error) {
    const failed = resultSet.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`Migration ${failed} failed`, { cause: resultSet.error })
  }
  return resultSet
}
