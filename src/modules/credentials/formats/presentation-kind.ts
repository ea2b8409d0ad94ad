import type { StatusChecker, StatusListMemo } from '../../status-list/status-check.js'
import type { CheckResult, CredentialFormat, ParsedItem, VerifyContext } from './credential-format.js'

/** How old a presentation that answers no request may be on receipt (its `iat`, its proof's `created`), plus the clock skew. */
export const FRESH_PRESENTATION_S = 300

/**
 * One kind of presentation (DESIGN.md "Architecture"): VP-JWT, a VP with a Data Integrity proof,
 * an SD-JWT VC with its KB-JWT, a Dock BBS derived proof. It recognizes its input, names who
 * presents it, yields the credentials it holds (each read once) and checks its own holder proof.
 * Kinds register beside the formats (registered-formats.ts); the verifier picks one, never a name.
 */
export interface PresentationKind {
  /** Its name, in logs and errors. */
  readonly id: string
  /**
   * Whether it holds credentials and proves that the holder presents them (a VP-JWT, a VP with a
   * Data Integrity proof): what the spec's `presentation_jwt` is.
   */
  readonly envelope: boolean
  /** The OpenID4VP format identifier a vp_token presentation of this kind is in (OID4VP 1.0 Appendix B), when it has one. */
  readonly oid4vpFormat?: string
  /** A cheap look, no cryptography: whether the input is of this kind. */
  recognizes(input: unknown): boolean
  /** The input read once, each item it holds recognized and parsed; unreadable input says why when it can. */
  open(input: unknown, formats: ItemFormats): OpenedPresentation | Unreadable
}

/** What a kind asks of the format registry: the format of an item. */
export interface ItemFormats {
  recognize(item: unknown): CredentialFormat | undefined
}

export interface Unreadable {
  unreadable: true
  /** Why its holder proof cannot be read. */
  reason: string
  /** Why it could not be read when it nests past the limit (JSON_LIMITS). */
  nesting?: string
}

/** A presentation read once; its checks need no second reading of it or of its items. */
export interface OpenedPresentation {
  readonly kind: PresentationKind
  /** Who it says presents it, unverified: a VP-JWT's `iss`, a VP's `holder` (or its proof's signer), the did:jwk of an SD-JWT VC's bound key. */
  readonly holder: string | undefined
  /** The verifier it names, unverified: a VP-JWT's first `aud`, a proof's first `domain`. */
  readonly audience: string | undefined
  /** Why it cannot be filed as a presentation of someone to someone (the spec's submit), in its kind's words; undefined when it can. */
  readonly unnamed: string | undefined
  /** The credentials it holds, in order. */
  readonly items: readonly PresentedItem[]
  /**
   * The claims of its holder proof when that is a JWT of its own (an SD-JWT VC's KB-JWT), unverified:
   * read only once the holder proof verified (OID4VP 1.0 §8.4 `transaction_data_hashes`).
   */
  readonly holderClaims?: Record<string, unknown>
  /** Why, on its face, it does not answer this holder's request (what the holder can fix at once); undefined when it does. */
  mismatch(expected: { holder: string; audience: string; nonce: string }): string | undefined
  /** The DID whose key made its holder proof, checked for its own nonce and audience; throws JwsRejected saying why when none does. */
  signer(ctx: Pick<PresentationContext, 'status' | 'now' | 'skewSeconds'>): Promise<string>
  /** Its holder proof for the context's holder, nonce and audience, then each item by its format. */
  verify(ctx: PresentationContext): Promise<PresentationCheck>
}

/** One credential of a presentation, read once by its format. */
export interface PresentedItem {
  readonly item: unknown
  /** The format that recognizes it; undefined when none does. */
  readonly format: CredentialFormat | undefined
  /** What its format read of it (`parse`), handed back to `idOf` and `verify`. */
  readonly parsed: ParsedItem | undefined
  /** The id it names for itself, unverified. */
  readonly id: string | undefined
}

export interface PresentationContext {
  status: StatusChecker
  statusMemo?: StatusListMemo
  now: Date
  skewSeconds: number
  /** Who must present it, when known beforehand (the spec's prover; OpenID4VP's holder when bound to a DID). */
  holderDid?: string
  /** The audience its holder proof must name: the verifier's DID, or OpenID4VP's client id. */
  audience: string
  /** The request's nonce; undefined when it answers none (then it must be recent). */
  nonce?: string
  /** The audience the holder proofs of its credentials name, when not `audience` (a derived proof names the verifier's DID behind a client id). */
  itemAudience?: string
  /** When it was received: what `iat` and `created` are measured against. */
  receivedAt?: Date
  /**
   * The OpenID4VP request it answers (OID4VP 1.0 §5, §8), when it answers one: what a holder proof
   * bound to the whole request covers (an mdoc's SessionTranscript, Appendix B.2.6.1).
   */
  oid4vp?: Oid4vpFacts
  /** X.509 certificates (DER) the verifier and the request trust beside the hosted issuers' roots (an mdoc's IACA roots, ISO/IEC 18013-5 §9.3.3). */
  trustAnchors?: Uint8Array[]
}

/** The facts of an OpenID4VP request a presentation answers. */
export interface Oid4vpFacts {
  clientId: string
  nonce: string
  responseUri: string
  /** The SHA-256 JWK Thumbprint (RFC 7638) of the verifier's response encryption key (direct_post.jwt); absent otherwise. */
  encryptionJwkThumbprint?: Uint8Array
}

export interface PresentationCheck {
  /** Its own problems, each one readable line. */
  errors: string[]
  /** One result per item, in order. */
  checked: CheckResult[]
  /** Nothing could be read to check credentials of. */
  unreadable: boolean
  /** Whether its holder proof holds for this nonce and audience (OpenID4VP: what may consume a request). */
  holderProof: boolean
}

/** An item of a presentation, recognized and read once by its format. */
export function presentedItem(item: unknown, formats: ItemFormats): PresentedItem {
  const format = formats.recognize(item)
  const parsed = format?.parse?.(item)
  return { item, format, parsed, id: format?.idOf(item, parsed) }
}

/** An item checked by its format, with what its format read of it. */
export function verifyItem(presented: PresentedItem, ctx: VerifyContext): Promise<CheckResult> {
  if (!presented.format)
    return Promise.resolve({
      problems: [{ reason: 'malformed', message: 'it is in no credential format this service reads' }],
    })
  return presented.format.verify(presented.item, ctx, presented.parsed)
}

export const isUnreadable = (opened: OpenedPresentation | Unreadable): opened is Unreadable => 'unreadable' in opened
