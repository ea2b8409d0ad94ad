import { canonicalize } from '../jcs.js'
import {
  ABSENT,
  attributeMessage,
  BBS_MESSAGE_LAYOUT,
  DATE_OFFSET_DAYS,
  ENCODED_RANGE,
  encodeIntegerValue,
  encodeTimestamp,
  META_MESSAGES,
  type AttributeDataType,
  type BbsMessage,
} from './bbs-messages.js'

/**
 * The derived-proof object of POST /api/wallet/:did/credentials/:id/anonymous-proof, as it goes
 * into a VP-JWT's `vp.verifiableCredential` (docs/anonymous-proofs.md), and the pure rules both
 * sides share: predicate → bound on the encoded integer, nonce binding, which meta slots are
 * disclosed. No WebAssembly: request handlers import it.
 */
export const ANONYMOUS_PROOF_TYPE = 'AnonymousCredentialProof'
export const ANONYMOUS_PROOF_FORMAT = 'credential-service/anonymous-proof/v1'
/**
 * How predicates are proven: each bound is a Bulletproofs++ bound check (Eagen–Kanjalkar–Ruffing–
 * Nick 2022, the library's `BoundCheckBppParams`) inside the composite proof. Published in each
 * issuer's BBS verification method (`bbsRangeProof`); a proof names it and must match.
 */
export const RANGE_PROOF_PROTOCOL = 'Bulletproofs++'
/** The label the Bulletproofs++ generators hash from (`new BoundCheckBppParams(utf8(label))`): a transparent setup, deployment-wide. */
export const RANGE_PARAMS_LABEL = 'credential-service/bpp-params/v1'
/** The hand-written bit-decomposition range proof this service once used: refused by name, so its proofs get a clear answer. */
export const RETIRED_RANGE_PROOF_PROTOCOL = 'Pedersen-BitDecomposition-CDS'

/** Whether a `vp.verifiableCredential` item is a derived proof made with the retired range proof. */
export function usesRetiredRangeProof(item: unknown): boolean {
  const range = typeof item === 'object' && item !== null ? (item as { range_proof?: unknown }).range_proof : undefined
  return (
    typeof range === 'object' &&
    range !== null &&
    (range as { protocol?: unknown }).protocol === RETIRED_RANGE_PROOF_PROTOCOL
  )
}

export const OPERATORS = ['>=', '>', '<=', '<'] as const
export type Operator = (typeof OPERATORS)[number]

export interface PredicateInput {
  attribute: string
  operator: Operator
  /** Numbers: the number. Dates: `YYYY-MM-DD`, or an integer of days since 1970-01-01 (DESIGN.md). */
  value: number | string
}

/** What one bound-check statement proves: `min <= encoded(attribute) < max_exclusive`. */
export interface EncodedBound {
  attribute: string
  min: number
  max_exclusive: number
}

/**
 * Meta slots every proof discloses besides what the holder chose: who issued it and what it is
 * (`@issuer`, `@type`, `@schema`, `@layout` for the attribute names), to whom (`@subject`: the VP's
 * holder, already known to the verifier), and what a verifier needs to accept it (`@expires_at`,
 * `@status`). `@id` too: with `@status` disclosed the credential is identifiable anyway, and the
 * id lets the verifier tie the proof to the presentation's credential_ids. `@issued_at` stays hidden.
 */
export const DISCLOSED_META = [
  '@id',
  '@type',
  '@issuer',
  '@subject',
  '@schema',
  '@expires_at',
  '@status',
  '@layout',
] as const

export interface AnonymousProof {
  type: typeof ANONYMOUS_PROOF_TYPE
  format: typeof ANONYMOUS_PROOF_FORMAT
  layout_version: typeof BBS_MESSAGE_LAYOUT
  issuer: string
  /** `<issuer DID>#<key id>`: the BBS Multikey in the issuer's DID document. */
  verification_method: string
  /** Label of the BBS signature params (the verification method's `bbsSignatureParamsLabel`). */
  params_label: string
  /** Null without predicates; the bound checks themselves are inside `proof_value`, one statement per bound. */
  range_proof: { protocol: typeof RANGE_PROOF_PROTOCOL; params_label: string } | null
  credential_id: string
  credential_type: string
  schema_id: string
  subject: string
  expires_at: string | null
  credential_status: {
    id: string
    type: 'BitstringStatusListEntry'
    statusPurpose: 'revocation'
    statusListIndex: string
    statusListCredential: string
  }
  /** The schema attributes in message order with their data types (bound by `@layout`). */
  attributes: Array<[string, AttributeDataType]>
  message_count: number
  /** Disclosed attributes by name; null for an attribute the credential does not hold. */
  revealed: Record<string, unknown>
  predicates: PredicateInput[]
  /** One bound check per predicated attribute: the intersection of its predicates, encoded. */
  bounds: EncodedBound[]
  nonce: string
  /** The verifier the proof was made for: bound into the proof with the nonce. */
  audience: string
  proof_value: string
}

/** Bytes the proof's Fiat–Shamir challenge includes: this verifier's nonce, for this verifier only. */
export function proofNonce(nonce: string, audience: string): Uint8Array {
  return new TextEncoder().encode(canonicalize([ANONYMOUS_PROOF_FORMAT, audience, nonce]))
}

export class PredicateError extends RangeError {
  constructor(
    message: string,
    readonly attribute: string,
  ) {
    super(message)
    this.name = 'RangeError'
  }
}

/**
 * `value op bound` as an interval of the encoded integer (bbs-messages.ts): encodings are
 * integers in the order of the values, so `> v` is `>= enc(v) + 1` and `<= v` is `< enc(v) + 1`.
 * The other side is the end of the encodable domain: a one-sided predicate is a bound check over
 * [x, domain end), which proves nothing about the value beyond the predicate.
 */
export function predicateBound(
  dataType: 'number' | 'date',
  predicate: PredicateInput,
): { min: number; maxExclusive: number } {
  const domain = ENCODED_RANGE[dataType]
  let encoded: number
  try {
    encoded =
      dataType === 'date' && typeof predicate.value === 'number'
        ? encodeDays(predicate.value)
        : encodeIntegerValue(dataType, predicate.value)
  } catch (error) {
    throw new PredicateError(
      `predicate ${predicate.attribute} ${predicate.operator} ${String(predicate.value)}: ${(error as Error).message}`,
      predicate.attribute,
    )
  }
  switch (predicate.operator) {
    case '>=':
      return { min: encoded, maxExclusive: domain.maxExclusive }
    case '>':
      return { min: encoded + 1, maxExclusive: domain.maxExclusive }
    case '<=':
      return { min: domain.min, maxExclusive: encoded + 1 }
    case '<':
      return { min: domain.min, maxExclusive: encoded }
    default:
      throw new PredicateError(`unknown operator ${String(predicate.operator)}`, predicate.attribute)
  }
}

/**
 * One bound per attribute, the intersection of its predicates (each bound costs one bound-check
 * statement, so `age >= 18` and `age < 65` share one). An empty
 * intersection is returned as min >= maxExclusive: no value satisfies it.
 */
export function boundsFor(
  predicates: PredicateInput[],
  typeOf: (attribute: string) => 'number' | 'date',
): EncodedBound[] {
  const byAttribute = new Map<string, EncodedBound>()
  for (const predicate of predicates) {
    const { min, maxExclusive } = predicateBound(typeOf(predicate.attribute), predicate)
    const current = byAttribute.get(predicate.attribute)
    byAttribute.set(
      predicate.attribute,
      current
        ? {
            attribute: predicate.attribute,
            min: Math.max(current.min, min),
            max_exclusive: Math.min(current.max_exclusive, maxExclusive),
          }
        : { attribute: predicate.attribute, min, max_exclusive: maxExclusive },
    )
  }
  return [...byAttribute.values()].sort((a, b) => (a.attribute < b.attribute ? -1 : a.attribute > b.attribute ? 1 : 0))
}

/** A date given as days since 1970-01-01 (DESIGN.md), within years 1..9999. */
function encodeDays(days: number): number {
  if (!Number.isSafeInteger(days)) throw new RangeError(`days since 1970-01-01 must be an integer: ${days}`)
  const encoded = days + DATE_OFFSET_DAYS
  if (encoded < ENCODED_RANGE.date.min || encoded >= ENCODED_RANGE.date.maxExclusive)
    throw new RangeError(`date out of range (years 1 to 9999): ${days} days`)
  return encoded
}

/** Days since 1970-01-01 of a YYYY-MM-DD date (for display beside an encoded bound). */
export function daysSinceEpoch(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000)
}

/** The `@status` message of a status entry, and back (the entry a verifier checks). */
export function statusEntryFromId(id: string): AnonymousProof['credential_status'] | undefined {
  const hash = id.lastIndexOf('#')
  if (hash <= 0) return undefined
  const index = id.slice(hash + 1)
  if (!/^(0|[1-9]\d{0,9})$/.test(index)) return undefined
  return {
    id,
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: index,
    statusListCredential: id.slice(0, hash),
  }
}

/** The message a disclosed meta value signs as, from the proof's fields (the verifier's view). */
export function disclosedMetaMessages(
  proof: Pick<
    AnonymousProof,
    'credential_id' | 'credential_type' | 'issuer' | 'subject' | 'schema_id' | 'expires_at' | 'credential_status'
  >,
  layout: string,
): Record<(typeof DISCLOSED_META)[number], BbsMessage> {
  const text = (name: string, value: string): BbsMessage => ({ name, encoding: 'text', value })
  const expires: BbsMessage =
    proof.expires_at === null
      ? text('@expires_at', ABSENT)
      : { name: '@expires_at', encoding: 'integer', value: encodeTimestamp(proof.expires_at) }
  return {
    '@id': text('@id', proof.credential_id),
    '@type': text('@type', proof.credential_type),
    '@issuer': text('@issuer', proof.issuer),
    '@subject': text('@subject', proof.subject),
    '@schema': text('@schema', proof.schema_id),
    '@expires_at': expires,
    '@status': text('@status', proof.credential_status.id),
    '@layout': text('@layout', layout),
  }
}

/** Message index of a disclosed meta slot (fixed by the layout). */
export const metaIndex = (name: (typeof DISCLOSED_META)[number]): number =>
  (META_MESSAGES as readonly string[]).indexOf(name)

/** How a revealed attribute value signs: null stands for an attribute the credential does not hold. */
export function revealedMessage(name: string, type: AttributeDataType, value: unknown): BbsMessage {
  return attributeMessage(name, type, value === null ? undefined : value)
}

export const isIntegerType = (type: AttributeDataType): type is 'number' | 'date' =>
  type === 'number' || type === 'date'
