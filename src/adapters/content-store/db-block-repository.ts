import type { Kysely } from 'kysely'
import type { DB } from '../../db/database.js'
import type { Block, BlockRepository } from './block-repository.js'

// Keeps one INSERT well under Postgres' 65535 bind parameters and PGlite's WASM heap.
const BATCH_ROWS = 500
const BATCH_BYTES = 4 * 1024 * 1024

/** Blocks in the `content_blocks` table, on PGlite or PostgreSQL. */
export class DbBlockRepository implements BlockRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async putMany(blocks: Block[]): Promise<void> {
    // Sorted, so concurrent puts sharing blocks take row locks in one order and cannot deadlock.
    const unique = [...new Map(blocks.map((b) => [b.cid, b])).values()].sort((a, b) =>
      a.cid < b.cid ? -1 : a.cid > b.cid ? 1 : 0,
    )
    const batches = toBatches(unique)
    const insert = async (db: Kysely<DB>, batch: Block[]): Promise<void> => {
      await db
        .insertInto('content_blocks')
        .values(batch.map((b) => ({ cid: b.cid, data: b.bytes, size: b.bytes.byteLength })))
        .onConflict((oc) => oc.column('cid').doNothing())
        .execute()
    }
    if (batches.length === 0) return
    if (batches.length === 1) return insert(this.db, batches[0]!)
    // Several statements: one transaction, so an object is never half-stored.
    await this.db.transaction().execute(async (trx) => {
      for (const batch of batches) await insert(trx, batch)
    })
  }

  async get(cid: string): Promise<Uint8Array | undefined> {
    const row = await this.db.selectFrom('content_blocks').select('data').where('cid', '=', cid).executeTakeFirst()
    return row === undefined ? undefined : plainBytes(row.data)
  }

  async has(cid: string): Promise<boolean> {
    const row = await this.db.selectFrom('content_blocks').select('cid').where('cid', '=', cid).executeTakeFirst()
    return row !== undefined
  }
}

function toBatches(blocks: Block[]): Block[][] {
  const batches: Block[][] = []
  let current: Block[] = []
  let bytes = 0
  for (const block of blocks) {
    if (current.length > 0 && (current.length >= BATCH_ROWS || bytes + block.bytes.byteLength > BATCH_BYTES)) {
      batches.push(current)
      current = []
      bytes = 0
    }
    current.push(block)
    bytes += block.bytes.byteLength
  }
  if (current.length > 0) batches.push(current)
  return batches
}

/** node-postgres returns bytea as a Buffer, PGlite as a Uint8Array: hand out a plain Uint8Array view. */
function plainBytes(data: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(data) === Uint8Array.prototype
    ? data
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}
