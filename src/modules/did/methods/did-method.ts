import type { DidDocument } from '../did-document.js'

/** DID Resolution options; `publicKeyFormat` is the did:key method's (ignored by other methods). */
export interface ResolutionOptions {
  publicKeyFormat?: string
  /**
   * Skip short caches of documents this service builds itself: for what must show the latest
   * keys. Fetched did:web documents stay cached either way (a fetch per call would let any caller
   * make this service hammer a web server).
   */
  fresh?: boolean
  /**
   * Fetch a did:web document again even when cached: only for an owner's own DID, on an
   * authenticated act that must see what was just published (an issuer choosing to sign as it).
   */
  refetch?: boolean
}

/**
 * One DID method's resolver (W3C DID Resolution §4), registered in did-resolver.ts. `resolve`
 * answers undefined for a DID it does not hold (a hosted or registered DID of another method),
 * so the next resolver is asked.
 */
export interface DidMethodResolver {
  readonly name: string
  /** The methods it answers; `*` for any (DIDs registered here, whatever their method). */
  readonly methods: readonly string[]
  resolve(did: string, options: ResolutionOptions): Promise<DidDocument | undefined>
}
