import { unixfs } from '@helia/unixfs'
import { CarWriter } from '@ipld/car'
import * as dagPb from '@ipld/dag-pb'
import type { Blockstore } from 'interface-blockstore'
import { exporter } from 'ipfs-unixfs-exporter'
import { fixedSize } from 'ipfs-unixfs-importer/chunker'
import { balanced } from 'ipfs-unixfs-importer/layout'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import * as raw from 'multiformats/codecs/raw'
import {
  AppError,
  DependencyUnavailableError,
  NotFoundError,
  PayloadTooLargeError,
  UnprocessableError,
} from '../../errors.js'
import { concatBytes } from '../../crypto/encoding.js'
import { blockKey, type Block, type BlockRepository } from './block-repository.js'
import {
  DEFAULT_PROFILE,
  KUBO_MAX_CHILDREN_PER_NODE,
  checkProfile,
  parseCid,
  readLimit,
  type ContentStore,
  type ImportProfile,
  type StoredContent,
} from './content-store.js'

export interface EmbeddedContentStoreOptions {
  /** Largest file accepted by put() and returned by get(). */
  maxBytes: number
}

/**
 * UnixFS in-process: @helia/unixfs imports (it runs on Node 20; only full Helia needs Node 22)
 * and ipfs-unixfs-exporter reads, both over a BlockRepository, so CIDs equal Kubo's for the
 * same profile.
 */
export class EmbeddedContentStore implements ContentStore {
  readonly kind = 'embedded' as const

  constructor(
    private readonly blocks: BlockRepository,
    private readonly options: EmbeddedContentStoreOptions,
  ) {}

  async put(bytes: Uint8Array, options: { profile?: ImportProfile } = {}): Promise<StoredContent> {
    if (bytes.byteLength > this.options.maxBytes) throw tooLarge(this.options.maxBytes)
    const profile = checkProfile(options.profile ?? DEFAULT_PROFILE)
    if (
      profile.cidVersion === 1 &&
      profile.rawLeaves &&
      bytes.byteLength > 0 &&
      bytes.byteLength <= profile.chunkSize
    ) {
      // One chunk with raw leaves: the importer reduces the DAG to the raw leaf itself
      // (reduceSingleLeafToSelf), so the CID is the raw block's; skipping the import machinery
      // matters on the issuance path, which stores one small envelope per credential.
      const cid = CID.createV1(raw.code, await sha256.digest(bytes))
      await this.blocks.putMany([{ cid: blockKey(cid), bytes }])
      return { cid: cid.toString(), size: bytes.byteLength }
    }
    const staging = new RepositoryBlockstore(this.blocks)
    const cid = await unixfs({ blockstore: staging }).addBytes(bytes, {
      cidVersion: profile.cidVersion,
      rawLeaves: profile.rawLeaves,
      chunker: fixedSize({ chunkSize: profile.chunkSize }),
      layout: balanced({ maxChildrenPerNode: KUBO_MAX_CHILDREN_PER_NODE }),
    })
    await staging.commit()
    return { cid: cid.toString(), size: bytes.byteLength }
  }

  async get(cid: string, options: { maxBytes?: number } = {}): Promise<Uint8Array> {
    const root = parseCid(cid)
    const limit = readLimit(this.options.maxBytes, options.maxBytes)
    if (!(await this.blocks.has(blockKey(root)))) throw new NotFoundError('Content not found')
    try {
      const entry = await exporter(root, new RepositoryBlockstore(this.blocks))
      if (entry.type !== 'file' && entry.type !== 'raw') {
        throw new UnprocessableError('CID is not a UnixFS file', { details: { type: entry.type } })
      }
      if (entry.size > BigInt(limit)) throw tooLarge(limit)
      const out = new Uint8Array(Number(entry.size))
      let offset = 0
      for await (const chunk of entry.content()) {
        // The declared size comes from the root node; never trust it to bound the copy.
        if (offset + chunk.byteLength > out.byteLength)
          throw new UnprocessableError('UnixFS file is longer than it declares')
        out.set(chunk, offset)
        offset += chunk.byteLength
      }
      if (offset !== out.byteLength) throw new UnprocessableError('UnixFS file is shorter than it declares')
      return out
    } catch (err) {
      if (err instanceof AppError) throw err
      // The exporter's own errors for something that is not UnixFS (dag-cbor, unknown codec).
      if (err instanceof Error && (err.name === 'NotUnixFSError' || err.name === 'NoResolverError')) {
        throw new UnprocessableError('CID is not a UnixFS file', { cause: err })
      }
      throw err
    }
  }

  async has(cid: string): Promise<boolean> {
    return this.blocks.has(blockKey(parseCid(cid)))
  }

  async *exportCar(cid: string): AsyncIterable<Uint8Array> {
    const root = parseCid(cid)
    if (!(await this.blocks.has(blockKey(root)))) throw new NotFoundError('Content not found')
    const { writer, out } = CarWriter.create([root])
    let failure: unknown
    // CarWriter is push-based with back-pressure: feed it beside the consumer, rethrow after.
    const feeding = (async () => {
      try {
        for await (const block of this.walk(root)) await writer.put(block)
      } catch (err) {
        failure = err
      } finally {
        await writer.close()
      }
    })()
    yield* out
    await feeding
    if (failure !== undefined) throw failure
  }

  async check(): Promise<void> {
    try {
      // Any key will do: the probe is that the repository (the database) answers at all.
      await this.blocks.has(PROBE_KEY)
    } catch (err) {
      throw new DependencyUnavailableError('Block storage unavailable', { cause: err })
    }
  }

  /** Every block reachable from root, depth-first in link order (as `ipfs dag export`), once each. */
  private async *walk(root: CID): AsyncGenerator<{ cid: CID; bytes: Uint8Array }> {
    const seen = new Set<string>()
    const stack: CID[] = [root]
    for (let cid = stack.pop(); cid !== undefined; cid = stack.pop()) {
      const key = blockKey(cid)
      if (seen.has(key)) continue
      seen.add(key)
      const bytes = await this.blocks.get(key)
      if (bytes === undefined) throw new NotFoundError('A block of the content is missing', { details: { cid: key } })
      yield { cid, bytes }
      if (cid.code === dagPb.code) {
        const links = dagPb.decode(bytes).Links
        for (let i = links.length - 1; i >= 0; i--) stack.push(links[i]!.Hash)
      } else if (cid.code !== raw.code) {
        throw new UnprocessableError('Only dag-pb and raw blocks can be exported', { details: { codec: cid.code } })
      }
    }
  }
}

// The identity CID of empty bytes: a valid key that is never stored.
const PROBE_KEY = 'bafkqaaa'

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Content exceeds ${limit} bytes`, { details: { limit } })
}

type BlockInput = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>

/**
 * The Blockstore the UnixFS libraries need, over a BlockRepository. Writes are staged in memory
 * and committed with one putMany, so an import either lands whole or not at all.
 */
class RepositoryBlockstore implements Pick<Blockstore, 'get' | 'put' | 'has'> {
  private readonly staged = new Map<string, Block>()

  constructor(private readonly blocks: BlockRepository) {}

  async put(cid: CID, input: BlockInput): Promise<CID> {
    const key = blockKey(cid)
    this.staged.set(key, { cid: key, bytes: await collect(input) })
    return cid
  }

  async *get(cid: CID): AsyncGenerator<Uint8Array> {
    const key = blockKey(cid)
    const bytes = this.staged.get(key)?.bytes ?? (await this.blocks.get(key))
    if (bytes === undefined) throw new NotFoundError('A block of the content is missing', { details: { cid: key } })
    yield bytes
  }

  async has(cid: CID): Promise<boolean> {
    const key = blockKey(cid)
    return this.staged.has(key) || this.blocks.has(key)
  }

  async commit(): Promise<void> {
    await this.blocks.putMany([...this.staged.values()])
    this.staged.clear()
  }
}

async function collect(input: BlockInput): Promise<Uint8Array> {
  if (input instanceof Uint8Array) return input
  const parts: Uint8Array[] = []
  for await (const part of input) parts.push(part)
  return parts.length === 1 ? parts[0]! : concatBytes(parts)
}
