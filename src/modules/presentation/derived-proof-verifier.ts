import { TypeCompiler } from '@sinclair/typebox/compiler'
import {
  boundsFor,
  disclosedMetaMessages,
  DISCLOSED_META,
  isIntegerType,
  metaIndex,
  proofNonce,
  RETIRED_RANGE_PROOF_PROTOCOL,
  revealedMessage,
  statusEntryFromId,
  usesRetiredRangeProof,
  type AnonymousProof,
  type PredicateInput,
} from '../../crypto/bbs/anonymous-proof-format.js'
import { layoutDigest, META_MESSAGES, type AttributeDataType } from '../../crypto/bbs/bbs-messages.js'
import type { BbsEngine, ProofCheck, RevealedMessage } from '../../crypto/bbs/bbs-pool.js'
import type { Clock } from '../../adapters/clock.js'
import type { DidResolver } from '../did/did-resolver.js'
import { AnonymousProof as AnonymousProofSchema } from './anonymous-proof.schemas.js'
import { resolveBbsKey } from './bbs-issuer-key.js'
import type { DerivedProofCheck, DerivedProofVerifier } from '../credentials/formats/registered-formats.js'

/** What a proof made with the retired hand-written range proof gets (docs/anonymous-proofs.md). */
export const RETIRED_PROOF_ERROR = `its range proof uses ${RETIRED_RANGE_PROOF_PROTOCOL}, a protocol this service no longer verifies: the holder must derive a new proof (Bulletproofs++)`

const DATA_TYPES = new Set<string>(['string', 'number', 'boolean', 'date', 'email', 'url', 'file', 'object', 'array'])
const shape = TypeCompiler.Compile(AnonymousProofSchema)

/**
 * Checks a derived-proof object of `vp.verifiableCredential` with public data only: the issuer's
 * BBS key, params label and Bulletproofs++ label from its DID document (the resolver of GET
 * /api/did/:did), the VP's nonce and audience, and the disclosed values re-encoded here. What the
 * proof claims in clear (attribute layout, disclosed meta values, predicate bounds) counts only
 * because the BBS proof verifies with exactly those messages and bounds; the bounds are recomputed
 * from the predicates, never taken from the proof. The proof itself verifies in the worker pool.
 * Status (revocation) is the caller's: it gets the disclosed status entry.
 */
export function createDerivedProofVerifier(deps: {
  resolver: DidResolver
  bbs: BbsEngine
  clock: Clock
}): DerivedProofVerifier {
  return async (item, ctx) => {
    const fail = (errors: string[], partial: Partial<DerivedProofCheck> = {}): DerivedProofCheck => ({
      valid: false,
      errors,
      issuer: '',
      credentialType: '',
      revealed: {},
      predicates: [],
      bounds: [],
      ...partial,
    })
    if (usesRetiredRangeProof(item)) return fail([RETIRED_PROOF_ERROR])
    if (!shape.Check(item)) {
      const first = shape.Errors(item).First()
      return fail([`not an anonymous proof object${first ? ` (${first.path || '/'}: ${first.message})` : ''}`])
    }
    const proof = item as AnonymousProof
    const known = {
      issuer: proof.issuer,
      credentialType: proof.credential_type,
      schemaId: proof.schema_id,
      credentialId: proof.credential_id,
    }
    const errors: string[] = []
    if (proof.nonce !== ctx.nonce) errors.push('the anonymous proof was made for another nonce than the presentation')
    if (proof.audience !== ctx.verifierDid)
      errors.push(`the anonymous proof was made for another verifier (${proof.audience})`)
    if (proof.subject !== ctx.holderDid) errors.push('it was issued to another subject than the holder')
    if (!proof.verification_method.startsWith(`${proof.issuer}#`))
      errors.push('its verification method is not a key of its issuer')
    const status = statusEntryFromId(proof.credential_status.id)
    if (
      !status ||
      status.statusListCredential !== proof.credential_status.statusListCredential ||
      status.statusListIndex !== proof.credential_status.statusListIndex
    )
      errors.push('its credential_status is inconsistent')
    if (proof.expires_at !== null && !(Date.parse(proof.expires_at) > deps.clock.now().getTime()))
      errors.push('the credential has expired')
    const layout = checkLayout(proof)
    if (typeof layout === 'string') errors.push(layout)
    if (errors.length || typeof layout === 'string') return fail(errors, known)

    // Everything the crypto binds: disclosed meta and attributes by index, bounds from predicates.
    let revealed: RevealedMessage[]
    let bounds
    try {
      const meta = disclosedMetaMessages(proof, layoutDigest(proof.attributes))
      revealed = DISCLOSED_META.map((name) => ({ index: metaIndex(name), message: meta[name] }))
      for (const [name, value] of Object.entries(proof.revealed)) {
        const position = layout.get(name)
        if (!position) return fail([`revealed attribute "${name}" is not in its layout`], known)
        revealed.push({ index: position.index, message: revealedMessage(name, position.type, value) })
      }
      for (const predicate of proof.predicates) {
        const position = layout.get(predicate.attribute)
        if (!position || !isIntegerType(position.type))
          return fail(
            [`predicate on "${predicate.attribute}", which is not a number or date attribute of its layout`],
            known,
          )
        if (Object.hasOwn(proof.revealed, predicate.attribute))
          return fail([`"${predicate.attribute}" is both revealed and predicated`], known)
      }
      bounds = boundsFor(proof.predicates as PredicateInput[], (name) => layout.get(name)!.type as 'number' | 'date')
    } catch (error) {
      return fail([`its disclosed values or predicates cannot be encoded: ${(error as Error).message}`], known)
    }
    if (JSON.stringify(bounds) !== JSON.stringify(proof.bounds))
      return fail(['its bounds do not match its predicates'], known)
    if (bounds.some((b) => b.min >= b.max_exclusive)) return fail(['its predicates contradict each other'], known)

    let key
    try {
      key = await resolveBbsKey(deps.resolver, proof.verification_method)
    } catch (error) {
      return fail([`the issuer ${proof.issuer} could not be resolved: ${(error as Error).message}`], known)
    }
    if (!key) return fail([`${proof.verification_method} is not a BBS assertion key of ${proof.issuer}`], known)
    if (key.paramsLabel !== proof.params_label)
      return fail(['its BBS params label is not the one the issuer publishes'], known)
    const range = rangeParamsOf(proof, bounds.length, key.rangeParamsLabel)
    if (typeof range === 'string') return fail([range], known)

    const valid = await deps.bbs.verifyProof({
      publicKey: key.publicKey,
      paramsLabel: key.paramsLabel,
      proof: Buffer.from(proof.proof_value, 'base64url'),
      messageCount: proof.message_count,
      revealed,
      bounds: bounds.map((b) => ({ index: layout.get(b.attribute)!.index, min: b.min, maxExclusive: b.max_exclusive })),
      nonce: proofNonce(ctx.nonce, ctx.verifierDid),
      ...range,
    })
    if (!valid)
      return fail(
        [
          "the anonymous proof does not verify against the issuer's key, its disclosed values, predicates and the presentation nonce",
        ],
        known,
      )
    return {
      valid: true,
      errors: [],
      ...known,
      revealed: proof.revealed,
      predicates: proof.predicates.map((p) => ({ attribute: p.attribute, operator: p.operator, value: p.value })),
      bounds: bounds.map((b) => ({
        attribute: b.attribute,
        dataType: layout.get(b.attribute)!.type as 'number' | 'date',
        min: b.min,
        maxExclusive: b.max_exclusive,
      })),
      statusEntry: {
        type: status!.type,
        statusPurpose: status!.statusPurpose,
        statusListIndex: status!.statusListIndex,
        statusListCredential: status!.statusListCredential,
      },
    }
  }
}

/**
 * The label of the Bulletproofs++ setup: the one the issuer's DID document publishes, which the
 * proof must name. A string says why the proof's range part is unusable.
 */
function rangeParamsOf(
  proof: AnonymousProof,
  boundCount: number,
  publishedLabel: string | undefined,
): Pick<ProofCheck, 'rangeParamsLabel'> | string {
  if (!boundCount) return {}
  if (proof.range_proof === null) return 'its predicates carry no range proof'
  if (!publishedLabel || proof.range_proof.params_label !== publishedLabel)
    return 'its range-proof params are not the ones the issuer publishes'
  return { rangeParamsLabel: publishedLabel }
}

/** name → message index and data type; a string says why the layout is unusable. */
function checkLayout(proof: AnonymousProof): Map<string, { index: number; type: AttributeDataType }> | string {
  const layout = new Map<string, { index: number; type: AttributeDataType }>()
  for (const [i, [name, type]] of proof.attributes.entries()) {
    if (name.startsWith('@') || !DATA_TYPES.has(type) || layout.has(name))
      return `its attribute layout is malformed at "${name}"`
    if (i > 0 && !(proof.attributes[i - 1]![0] < name)) return 'its attribute layout is not in message order'
    layout.set(name, { index: META_MESSAGES.length + i, type: type as AttributeDataType })
  }
  if (proof.message_count !== META_MESSAGES.length + layout.size) return 'its message count does not match its layout'
  return layout
}
