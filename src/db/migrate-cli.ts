import path from 'node:path'
import { loadConfig } from '../config.js'
import { DataDirInUseError } from '../errors.js'
import { openDatabase } from './connect.js'
import { migrateToLatest } from './migrator.js'

// `npm run migrate`: the same migrator that runs at start, under the same data directory lock.
const config = loadConfig()
let handle
try {
  handle = await openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pglite'),
  })
} catch (error) {
  if (!(error instanceof DataDirInUseError)) throw error
  console.error(`Refusing to migrate: ${error.message}`)
  process.exit(2)
}
try {
  const { results } = await migrateToLatest(handle.db)
  for (const r of results ?? []) console.log(`${r.status}: ${r.migrationName}`)
  if (!results?.length) console.log('Database is up to date')
} finally {
  await handle.close()
}
