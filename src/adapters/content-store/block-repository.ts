import type { CID } from 'multiformats/cid'

export interface Block {
  /** blockKey(cid) of the block. */
  cid: string
  bytes: Uint8Array
}

/**
 * The repository key of a block. A CIDv0 is only another spelling of a dag-pb CIDv1 with the
 * same multihash (Kubo keys blocks by multihash alone), so v0 is stored under its v1 string and
 * either spelling finds the block.
 */
export function blockKey(cid: CID): string {
  return cid.version === 0 ? cid.toV1().toString() : cid.toString()
}

/** Content-addressed block storage keyed by blockKey(); a block once written never changes. */
export interface BlockRepository {
  /** All or nothing; blocks already present are left as they are. */
  putMany(blocks: Block[]): Promise<void>
  get(cid: string): Promise<Uint8Array | undefined>
  has(cid: string): Promise<boolean>
}

/** For unit tests and for re-reading a CAR without a database. */
export class MemoryBlockRepository implements BlockRepository {
  private readonly blocks = new Map<string, Uint8Array>()

  async putMany(blocks: Block[]): Promise<void> {
    for (const { cid, bytes } of blocks) {
      // Copied so a caller reusing its buffer cannot change a stored block.
      if (!this.blocks.has(cid)) this.blocks.set(cid, bytes.slice())
    }
  }

  async get(cid: string): Promise<Uint8Array | undefined> {
    return this.blocks.get(cid)
  }

  async has(cid: string): Promise<boolean> {
    return this.blocks.has(cid)
  }

  get size(): number {
    return this.blocks.size
  }

  keys(): IterableIterator<string> {
    return this.blocks.keys()
  }
}
