import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/database.js'
import { MicroBatcher } from '../../shared/micro-batcher.js'
import type { Block, BlockRepository } from './block-repository.js'

// Keeps one INSERT well under Postgres' 65535 bind parameters and PGlite's WASM heap.
const BATCH_ROWS = 500
const BATCH_BYTES = 4 * 1024 * 1024
/** Writes up to this size are group-committed with concurrent ones. */
const SMALL_BYTES = 64 * 1024

/**
 * Blocks in the `content_blocks` table, on PGlite or PostgreSQL. Bytes cross the driver as
 * base64 text: PGlite converts bytea parameters and results byte by byte in JS, while Postgres'
 * encode/decode and Node's Buffer codec are native (docs/decisions.md, "Content store"). It also gives both engines one
 * JS type back (node-postgres returns bytea as Buffer, PGlite as Uint8Array).
 */
export class DbBlockRepository implements BlockRepository {
  // Small writes from concurrent callers (one envelope per issued credential) share one INSERT:
  // PGlite runs one statement at a time, each with a fixed cost (a message each way to its
  // thread, a call into WebAssembly, a commit) that a few more rows barely change. The merged
  // statement is all-or-nothing for every caller in it, like each caller's own would be.
  private readonly small = new MicroBatcher<Block[], void>(async (groups) => {
    await this.insertRows(this.db, sortUnique(groups.flat()))
    return groups.map(() => undefined)
  }, 64)

  constructor(private readonly db: Kysely<DB>) {}

  async putMany(blocks: Block[]): Promise<void> {
    if (blocks.length > 0 && blocks.length <= 4 && blocks.reduce((n, b) => n + b.bytes.byteLength, 0) <= SMALL_BYTES)
      return this.small.submit(blocks)
    return this.putLarge(blocks)
  }

  private async insertRows(db: Kysely<DB>, batch: Block[]): Promise<void> {
    if (batch.length === 0) return
    await db
      .insertInto('content_blocks')
      .values(batch.map((b) => ({ cid: b.cid, data: fromBase64(b.bytes), size: b.bytes.byteLength })))
      .onConflict((oc) => oc.column('cid').doNothing())
      .execute()
  }

  private async putLarge(blocks: Block[]): Promise<void> {
    const batches = toBatches(sortUnique(blocks))
    if (batches.length === 0) return
    if (batches.length === 1) return this.insertRows(this.db, batches[0]!)
    // Several statements: one transaction, so an object is never half-stored.
    await this.db.transaction().execute(async (trx) => {
      for (const batch of batches) await this.insertRows(trx, batch)
    })
  }

  async get(cid: string): Promise<Uint8Array | undefined> {
    const row = await this.db
      .selectFrom('content_blocks')
      .select(sql<string>`encode(data, 'base64')`.as('data'))
      .where('cid', '=', cid)
      .executeTakeFirst()
    if (row === undefined) return undefined
    // Node's decoder skips the line breaks Postgres puts every 76 characters.
    const buf = Buffer.from(row.data, 'base64')
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
  }

  async has(cid: string): Promise<boolean> {
    const row = await this.db.selectFrom('content_blocks').select('cid').where('cid', '=', cid).executeTakeFirst()
    return row !== undefined
  }
}

/** Sorted, so concurrent puts sharing blocks take row locks in one order and cannot deadlock. */
function sortUnique(blocks: Block[]): Block[] {
  return [...new Map(blocks.map((b) => [b.cid, b])).values()].sort((a, b) =>
    a.cid < b.cid ? -1 : a.cid > b.cid ? 1 : 0,
  )
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

function fromBase64(bytes: Uint8Array) {
  return sql<Uint8Array>`decode(${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}, 'base64')`
}
