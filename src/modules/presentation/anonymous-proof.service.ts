import type { Clock } from '../../adapters/clock.js'
import {
  ANONYMOUS_PROOF_FORMAT,
  ANONYMOUS_PROOF_TYPE,
  boundsFor,
  DISCLOSED_META,
  isIntegerType,
  PredicateError,
  predicateBound,
  proofNonce,
  RANGE_PROOF_PROTOCOL,
  statusEntryFromId,
  type AnonymousProof,
  type PredicateInput,
} from '../../crypto/bbs/anonymous-proof-format.js'
import {
  ABSENT,
  attributeLayout,
  BBS_MESSAGE_LAYOUT,
  credentialMessages,
  messageIndex,
  type AnonCredentialContent,
  type AttributeDataType,
} from '../../crypto/bbs/bbs-messages.js'
import type { BbsEngine } from '../../crypto/bbs/bbs-pool.js'
import type { Database } from '../../db/database.js'
import {
  ConflictError,
  DependencyUnavailableError,
  NotFoundError,
  UnprocessableError,
  ValidationError,
} from '../../errors.js'
import type { DidResolver } from '../did/did-resolver.js'
import { findHeldCredential } from './anonymous-proof.repository.js'
import type { AnonymousProofBody } from './anonymous-proof.schemas.js'
import { resolveBbsKey, type PublishedBbsKey } from './bbs-issuer-key.js'

/** The record's `anonymous_credential` as issuance stores it (issuance.service.ts signAnonymous). */
export interface StoredAnonymousCredential {
  layout?: string
  verification_method: string
  params_label: string
  content: AnonCredentialContent
  signature: string
}

/**
 * POST /api/wallet/:did/credentials/:credential_id/anonymous-proof (DESIGN.md "Anonymous proof"):
 * from the BBS signature on a credential in the holder's wallet, a proof that discloses only the
 * chosen attributes (and the meta slots every proof discloses, DISCLOSED_META), proves the
 * predicates with the library's Bulletproofs++ bound checks, and is bound to the verifier's nonce and DID.
 * The WebAssembly work runs in the BBS worker pool.
 */
export class AnonymousProofService {
  constructor(private readonly deps: { db: Database; bbs: BbsEngine; resolver: DidResolver; clock: Clock }) {}

  async derive(holderDid: string, credentialId: string, input: AnonymousProofBody): Promise<AnonymousProof> {
    const row = await findHeldCredential(this.deps.db, holderDid, credentialId)
    if (!row) throw new NotFoundError('Credential not found in this wallet')
    if (row.withdrawn) throw new ConflictError('You withdrew this credential from use: it cannot be presented')
    const stored = row.anonymous_credential as StoredAnonymousCredential | null
    if (!stored)
      throw new ConflictError(
        'This credential has no anonymous (BBS) signature: its schema opts out of BBS, so no proof can be derived',
      )
    if (stored.layout !== BBS_MESSAGE_LAYOUT)
      throw new ConflictError(
        'This credential was signed under an older BBS layout that cannot show its status: ask the issuer to issue it again',
      )
    if (row.status === 'revoked')
      throw new ConflictError('This credential has been revoked: no verifier would accept a proof of it')
    if (row.expiration_date !== null && new Date(row.expiration_date).getTime() <= this.deps.clock.now().getTime())
      throw new ConflictError('This credential has expired')

    const key = await this.issuerKey(stored.verification_method)
    if (!key || key.paramsLabel !== stored.params_label)
      throw new ConflictError("The issuer's DID document no longer publishes the BBS key of this credential")
    return deriveAnonymousProof(this.deps.bbs, stored, key, input)
  }

  private async issuerKey(verificationMethod: string) {
    try {
      return await resolveBbsKey(this.deps.resolver, verificationMethod)
    } catch (error) {
      throw new DependencyUnavailableError("The issuer's DID document could not be resolved", { cause: error })
    }
  }
}

/**
 * The proof itself, from a stored BBS credential and its issuer's published key: checks the
 * request against the credential (400 / 422 as ValidationError / UnprocessableError), derives in
 * the pool, and builds the object. Separate from the service so it can be exercised without a database.
 */
export async function deriveAnonymousProof(
  bbs: BbsEngine,
  stored: StoredAnonymousCredential,
  key: PublishedBbsKey,
  input: AnonymousProofBody,
): Promise<AnonymousProof> {
  const { content } = stored
  const reveal = [...new Set(input.reveal)]
  const predicates = input.predicates as PredicateInput[]
  const typeOf = checkRequest(content.types, reveal, predicates)
  const messages = credentialMessages(content)
  let bounds
  try {
    bounds = boundsFor(predicates, typeOf)
  } catch (error) {
    if (error instanceof PredicateError)
      throw new ValidationError(error.message, { details: { attribute: error.attribute } })
    throw error
  }
  // Say which predicate fails, in the holder's terms, before any proving.
  const failing: string[] = []
  for (const predicate of predicates) {
    const message = messages[messageIndex(content, predicate.attribute)]!
    const { min, maxExclusive } = predicateBound(typeOf(predicate.attribute), predicate)
    if (message.value === ABSENT) failing.push(`${predicate.attribute} has no value in this credential`)
    else if (!(typeof message.value === 'number' && message.value >= min && message.value < maxExclusive))
      failing.push(`${predicate.attribute} ${predicate.operator} ${String(predicate.value)} does not hold`)
  }
  if (failing.length)
    throw new UnprocessableError(`The credential does not satisfy the predicates: ${failing.join('; ')}`, {
      details: { predicates: failing },
    })

  const status = content.meta.status === undefined ? undefined : statusEntryFromId(content.meta.status)
  if (!status) throw new ConflictError('This credential has no status entry a verifier could check')
  if (bounds.length && !key.rangeParamsLabel)
    throw new ConflictError("The issuer's DID document publishes no range-proof params: predicates cannot be proven")

  const derived = await bbs.deriveProof({
    publicKey: key.publicKey,
    paramsLabel: stored.params_label,
    messages,
    signature: Buffer.from(stored.signature, 'base64url'),
    reveal: [
      ...DISCLOSED_META.map((name) => messageIndex(content, name)),
      ...reveal.map((name) => messageIndex(content, name)),
    ],
    bounds: bounds.map((b) => ({
      index: messageIndex(content, b.attribute),
      min: b.min,
      maxExclusive: b.max_exclusive,
    })),
    nonce: proofNonce(input.nonce, input.verifier_did),
    ...(key.rangeParamsLabel ? { rangeParamsLabel: key.rangeParamsLabel } : {}),
  })
  const rangeProof: AnonymousProof['range_proof'] = bounds.length
    ? { protocol: RANGE_PROOF_PROTOCOL, params_label: key.rangeParamsLabel! }
    : null
  return {
    type: ANONYMOUS_PROOF_TYPE,
    format: ANONYMOUS_PROOF_FORMAT,
    layout_version: BBS_MESSAGE_LAYOUT,
    issuer: content.meta.issuer,
    verification_method: stored.verification_method,
    params_label: stored.params_label,
    range_proof: rangeProof,
    credential_id: content.meta.id,
    credential_type: content.meta.type,
    schema_id: content.meta.schema_id,
    subject: content.meta.subject,
    expires_at: content.meta.expires_at ?? null,
    credential_status: status,
    attributes: attributeLayout(content.types),
    message_count: derived.messageCount,
    revealed: Object.fromEntries(reveal.sort().map((name) => [name, content.attributes[name] ?? null])),
    predicates: predicates.map((p) => ({ attribute: p.attribute, operator: p.operator, value: p.value })),
    bounds,
    nonce: input.nonce,
    audience: input.verifier_did,
    proof_value: Buffer.from(derived.proof).toString('base64url'),
  }
}

/**
 * 400 for a request no credential of this schema could answer: unknown attributes (named),
 * predicates on attributes that are not numbers or dates, an attribute both revealed and
 * predicated (the predicate would prove nothing the disclosure does not), values of the wrong kind.
 */
function checkRequest(
  types: Record<string, AttributeDataType>,
  reveal: string[],
  predicates: PredicateInput[],
): (attribute: string) => 'number' | 'date' {
  const known = (name: string, field: string) => {
    if (!Object.hasOwn(types, name))
      throw new ValidationError(`Unknown attribute "${name}": not in this credential's schema`, {
        details: { field, attribute: name },
      })
  }
  for (const name of reveal) known(name, 'reveal')
  for (const predicate of predicates) {
    known(predicate.attribute, 'predicates')
    const type = types[predicate.attribute]!
    if (!isIntegerType(type))
      throw new ValidationError(
        `Predicates apply to number and date attributes; "${predicate.attribute}" is a ${type}`,
        { details: { field: 'predicates', attribute: predicate.attribute } },
      )
    if (reveal.includes(predicate.attribute))
      throw new ValidationError(
        `"${predicate.attribute}" is both revealed and predicated: reveal it or prove a predicate on it, not both`,
        { details: { field: 'predicates', attribute: predicate.attribute } },
      )
    const value = predicate.value
    const fits =
      type === 'number' ? typeof value === 'number' : typeof value === 'string' || Number.isSafeInteger(value)
    if (!fits)
      throw new ValidationError(
        `The value of a predicate on "${predicate.attribute}" (${type}) must be ${type === 'number' ? 'a number' : 'YYYY-MM-DD or an integer of days since 1970-01-01'}`,
        { details: { field: 'predicates', attribute: predicate.attribute } },
      )
    try {
      predicateBound(type, predicate)
    } catch (error) {
      throw new ValidationError((error as Error).message, {
        details: { field: 'predicates', attribute: predicate.attribute },
      })
    }
  }
  return (attribute) => types[attribute] as 'number' | 'date'
}
