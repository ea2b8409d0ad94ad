import { create, type KuboRPCClient } from 'kubo-rpc-client'
import {
  AppError,
  DependencyUnavailableError,
  NotFoundError,
  PayloadTooLargeError,
  UnprocessableError,
} from '../../errors.js'
import {
  DEFAULT_PROFILE,
  checkProfile,
  parseCid,
  readLimit,
  type ContentStore,
  type ImportProfile,
  type StoredContent,
} from './content-store.js'

export interface KuboContentStoreOptions {
  /** Kubo's RPC address, e.g. http://127.0.0.1:5001 (the client appends /api/v0). */
  url: string
  maxBytes: number
  /** Per request, body included. kubo-rpc-client's own `timeout` is never armed (7.1.0), so we pass a signal. */
  timeoutMs?: number
}

// Kubo's words for a block it does not hold: offline exchange ("block was not found locally
// (offline): ipld: could not find <cid>") and older blockstores ("merkledag: not found").
const MISSING = /not found|could not find/i

/**
 * Reads pass `offline=true` (Kubo's global option): the store answers from what the node holds
 * instead of searching the DHT for a CID until the request times out.
 */
const OFFLINE = { offline: true } as const

/** The content store over a Kubo node's HTTP RPC; content is pinned on add. */
export class KuboContentStore implements ContentStore {
  readonly kind = 'kubo' as const
  private readonly client: KuboRPCClient
  private readonly timeoutMs: number

  constructor(private readonly options: KuboContentStoreOptions) {
    this.client = create({ url: options.url })
    this.timeoutMs = options.timeoutMs ?? 60_000
  }

  async put(bytes: Uint8Array, options: { profile?: ImportProfile } = {}): Promise<StoredContent> {
    if (bytes.byteLength > this.options.maxBytes) throw tooLarge(this.options.maxBytes)
    const profile = checkProfile(options.profile ?? DEFAULT_PROFILE)
    try {
      const added = await this.client.add(bytes, {
        cidVersion: profile.cidVersion,
        rawLeaves: profile.rawLeaves,
        chunker: `size-${profile.chunkSize}`,
        pin: true,
        signal: this.signal(),
      })
      return { cid: added.cid.toString(), size: bytes.byteLength }
    } catch (err) {
      throw translate(err)
    }
  }

  async get(cid: string, options: { maxBytes?: number } = {}): Promise<Uint8Array> {
    const root = parseCid(cid)
    const limit = readLimit(this.options.maxBytes, options.maxBytes)
    try {
      const stat = await this.client.files.stat(`/ipfs/${root.toString()}`, { ...OFFLINE, signal: this.signal() })
      if (stat.type !== 'file')
        throw new UnprocessableError('CID is not a UnixFS file', { details: { type: stat.type } })
      if (stat.size > limit) throw tooLarge(limit)
      const out = new Uint8Array(stat.size)
      let offset = 0
      // `length` one past the limit: a node serving more than it declared is caught without reading it all.
      for await (const chunk of this.client.cat(root, { ...OFFLINE, length: limit + 1, signal: this.signal() })) {
        if (offset + chunk.byteLength > out.byteLength)
          throw new DependencyUnavailableError('Kubo served more bytes than the file declares')
        out.set(chunk, offset)
        offset += chunk.byteLength
      }
      // Kubo reports a failure after the first byte only in an HTTP trailer fetch cannot see.
      if (offset !== out.byteLength) throw new DependencyUnavailableError('Kubo ended the content early')
      return out
    } catch (err) {
      throw translate(err)
    }
  }

  async has(cid: string): Promise<boolean> {
    const root = parseCid(cid)
    try {
      await this.client.block.stat(root, { ...OFFLINE, signal: this.signal() })
      return true
    } catch (err) {
      const translated = translate(err)
      if (translated instanceof NotFoundError) return false
      throw translated
    }
  }

  /**
   * `dag export` takes no options in kubo-rpc-client, so it runs online; the root is checked
   * offline first so an unknown CID is a NotFoundError rather than a DHT search. A block missing
   * further down is reported only in a trailer: a consumer that must be sure re-reads the CAR.
   */
  async *exportCar(cid: string): AsyncIterable<Uint8Array> {
    const root = parseCid(cid)
    if (!(await this.has(cid))) throw new NotFoundError('Content not found')
    try {
      yield* this.client.dag.export(root, { signal: this.signal() })
    } catch (err) {
      throw translate(err)
    }
  }

  async check(): Promise<void> {
    try {
      await this.client.version({ signal: this.signal() })
    } catch (err) {
      throw new DependencyUnavailableError('IPFS node unreachable', { cause: err })
    }
  }

  private signal(): AbortSignal {
    return AbortSignal.timeout(this.timeoutMs)
  }
}

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Content exceeds ${limit} bytes`, { details: { limit } })
}

/** Our errors pass; Kubo's "no such block" becomes NotFoundError; anything else means Kubo failed us. */
function translate(err: unknown): AppError {
  if (err instanceof AppError) return err
  if (err instanceof Error && err.name === 'HTTPError' && MISSING.test(err.message)) {
    return new NotFoundError('Content not found', { cause: err })
  }
  return new DependencyUnavailableError('IPFS node request failed', { cause: err })
}
