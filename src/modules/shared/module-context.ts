import type { Clock } from '../../adapters/clock.js'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import type { HttpGet } from '../../adapters/http-out/guarded-fetch.js'
import type { Config } from '../../config.js'
import type { Database } from '../../db/database.js'

/** What every module plugin is registered with: the configuration and the I/O edges (AppDeps). */
export interface ModuleContext {
  config: Config
  db: Database
  clock: Clock
  masterKey: Uint8Array
  content: ContentStore
  httpGet: HttpGet
}
