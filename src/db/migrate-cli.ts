import path from 'node:path'
import { loadConfig } from '../config.js'
import { openDatabase } from './connect.js'
import { migrateToLatest } from './migrator.js'

// `npm run migrate`: the same migrator that runs at start.
const config = loadConfig()
const handle = await openDatabase({
  databaseUrl: config.databaseUrl,
  pgliteDir: path.join(config.dataDir, 'pglite'),
})
try {
  const { results } = await migrateToLatest(handle.db)
  for (const r of results ?? []) console.log(`${r.status}: ${r.migrationName}`)
  if (!results?.length) console.log('Database is up to date')
} finally {
  await handle.close()
}
