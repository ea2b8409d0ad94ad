import type { Generated } from 'kysely'

export interface ContentBlocksTable {
  cid: string
  data: Uint8Array
  size: number
  created_at: Generated<Date>
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    content_blocks: ContentBlocksTable
  }
}
