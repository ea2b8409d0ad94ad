import { CID } from 'multiformats/cid'
import { ValidationError } from '../../errors.js'

/** How bytes become a UnixFS DAG; the same bytes give different CIDs under different profiles. */
export interface ImportProfile {
  cidVersion: 0 | 1
  /** true: leaves are `raw` blocks; false: leaves are dag-pb UnixFS nodes (Kubo's CIDv0 default). */
  rawLeaves: boolean
  chunkSize: number
}

/** Kubo's `ipfs add --cid-version=1`: raw leaves, 256 KiB fixed-size chunks. */
export const DEFAULT_PROFILE: ImportProfile = Object.freeze({ cidVersion: 1, rawLeaves: true, chunkSize: 262_144 })

/** Kubo's plain `ipfs add`: CIDv0 (Qm...), dag-pb leaves, `size-262144` chunker. */
export const KUBO_DEFAULT_PROFILE: ImportProfile = Object.freeze({
  cidVersion: 0,
  rawLeaves: false,
  chunkSize: 262_144,
})

// Kubo refuses chunks above 1 MiB (boxo chunker.ChunkSizeLimit) so blocks stay under bitswap's 2 MiB cap.
const MAX_CHUNK_SIZE = 1_048_576

/**
 * Kubo keeps a 174-links-per-node balanced layout for both CID versions (boxo
 * helpers.DefaultLinksPerBlock); @helia/unixfs defaults to 1024, which changes every CID past
 * 174 chunks, so both stores pin it.
 */
export const KUBO_MAX_CHILDREN_PER_NODE = 174

export interface StoredContent {
  cid: string
  /** Bytes of the file, not of the DAG. */
  size: number
}

export interface ContentStore {
  readonly kind: 'embedded' | 'kubo'
  /** PayloadTooLargeError over the store's limit; ValidationError for a bad profile. */
  put(bytes: Uint8Array, options?: { profile?: ImportProfile }): Promise<StoredContent>
  /**
   * The file's bytes. NotFoundError if absent, PayloadTooLargeError over maxBytes (default and
   * ceiling: the store's limit), ValidationError for a malformed CID, UnprocessableError when the
   * CID names something other than a UnixFS file (a directory, dag-cbor).
   */
  get(cid: string, options?: { maxBytes?: number }): Promise<Uint8Array>
  /** Whether the root block is held locally; ValidationError for a malformed CID. */
  has(cid: string): Promise<boolean>
  /** CARv1 with `cid` as its only root and every block of the DAG; NotFoundError if absent. */
  exportCar(cid: string): AsyncIterable<Uint8Array>
  /** Health probe: DependencyUnavailableError when the backing store cannot be reached. */
  check(): Promise<void>
}

export function parseCid(value: string): CID {
  try {
    return CID.parse(value)
  } catch (err) {
    throw new ValidationError('Malformed CID', { cause: err, details: { cid: value.slice(0, 100) } })
  }
}

export function checkProfile(profile: ImportProfile): ImportProfile {
  const { cidVersion, chunkSize } = profile
  if (cidVersion !== 0 && cidVersion !== 1) {
    throw new ValidationError('cidVersion must be 0 or 1', { details: { cidVersion } })
  }
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
    throw new ValidationError(`chunkSize must be an integer in 1..${MAX_CHUNK_SIZE}`, { details: { chunkSize } })
  }
  return profile
}

/** Smaller of the caller's cap and the store's own limit. */
export function readLimit(storeMax: number, requested: number | undefined): number {
  return requested === undefined ? storeMax : Math.min(requested, storeMax)
}
