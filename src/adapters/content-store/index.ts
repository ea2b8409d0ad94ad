import type { Kysely } from 'kysely'
import type { DB } from '../../db/database.js'
import type { ContentStore } from './content-store.js'
import { DbBlockRepository } from './db-block-repository.js'
import { EmbeddedContentStore } from './embedded-content-store.js'
import { KuboContentStore } from './kubo-content-store.js'

export * from './content-store.js'
export { MemoryBlockRepository, blockKey, type Block, type BlockRepository } from './block-repository.js'
export { DbBlockRepository } from './db-block-repository.js'
export { EmbeddedContentStore, type EmbeddedContentStoreOptions } from './embedded-content-store.js'
export { KuboContentStore, type KuboContentStoreOptions } from './kubo-content-store.js'

export interface ContentStoreOptions {
  /** Set (IPFS_API_URL): a Kubo node holds and pins the content; unset: blocks in the database. */
  ipfsApiUrl?: string
  db: Kysely<DB>
  maxBytes: number
  /** Kubo requests only. */
  timeoutMs?: number
}

export function createContentStore(options: ContentStoreOptions): ContentStore {
  if (options.ipfsApiUrl) {
    return new KuboContentStore({ url: options.ipfsApiUrl, maxBytes: options.maxBytes, timeoutMs: options.timeoutMs })
  }
  return new EmbeddedContentStore(new DbBlockRepository(options.db), { maxBytes: options.maxBytes })
}
