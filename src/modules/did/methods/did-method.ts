import type { HttpGet } from '../../../adapters/http-out/guarded-fetch.js'
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
 * One resolver (W3C DID Resolution §4), asked in turn by did-resolver.ts. `resolve` answers
 * undefined for a DID it does not hold (one neither hosted nor registered here), so the next
 * resolver is asked.
 */
export interface DidMethodResolver {
  resolve(did: string, options: ResolutionOptions): Promise<DidDocument | undefined>
}

/** What the service lends a method's resolver: outgoing HTTP and the cache settings. */
export interface DidMethodDeps {
  httpGet: HttpGet
  /** Local development and tests only: fetch over http:// and allow IP-literal hosts. */
  allowHttp: boolean
  now: () => number
  /** How long a fetched document is cached. */
  cacheTtlMs: number
  cacheMaxEntries: number
}

/** How a DID of a method signs in with a signed challenge (src/modules/auth). */
export interface DidMethodSignIn {
  /** The `origin` of the user row its first sign-in creates. */
  readonly origin: string
  /**
   * The Ed25519 keys allowed to sign in as `did`; `document` resolves it, failing as sign-in
   * needs (401, or 503 when its host is down). Throws ValidationError for a DID that cannot sign in.
   */
  keys(did: string, document: () => Promise<DidDocument>): Uint8Array[] | Promise<Uint8Array[]>
  /**
   * For a method whose DID is its key: a registration names that key or is refused
   * (ValidationError), and the DID registers with `origin`. Absent: only REGISTRABLE_DID_METHODS register.
   */
  registersOwnKey?(did: string, publicKey: Uint8Array): void
}

/**
 * A DID method, registered in registered-methods.ts: its syntax beyond DID Core, its resolver,
 * and how its DIDs sign in. The rest of the service asks the registry (did-method-registry.ts).
 */
export interface DidMethod {
  /** The method name of `did:<name>:…` (DID Core §3.1 method-name). */
  readonly name: string
  /**
   * Its document is a function of the DID alone: no DID hosted or registered here stands in for
   * one, and its sign-in keys are memoised per DID.
   */
  readonly selfCertifying: boolean
  /**
   * Checks the method adds to DID Core's syntax (throws ValidationError), on the normalised DID.
   * Absent: its ids allow no percent-encoding (a `%` would be an encoding left on from a URL).
   */
  checkSyntax?(did: string): void
  resolver(deps: DidMethodDeps): DidMethodResolver
  /** Absent: its DIDs sign in only once registered here. */
  readonly signIn?: DidMethodSignIn
  /** Why its DIDs cannot be registered with a key of the caller's choosing, said in the refusal. */
  readonly registrationRefusal?: string
}
