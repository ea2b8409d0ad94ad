import type { RequiredPredicate } from '../../../../db/database.js'
import type { CheckResult, CredentialFormat, CredentialProblem, ProvenBound } from '../credential-format.js'
import { statusProblems } from '../jwt-checks.js'

/** What checking one derived proof found (presentation/derived-proof-verifier.ts). */
export interface DerivedProofCheck {
  valid: boolean
  errors: string[]
  issuer: string
  credentialType: string
  /** The schema id the proof discloses (signed as `@schema`). */
  schemaId?: string
  revealed: Record<string, unknown>
  /** The predicates the proof states; each is backed by a verified bound below. */
  predicates: RequiredPredicate[]
  /** The intervals the verified bound checks prove, on the encoded attribute (bbs-messages.ts). */
  bounds: ProvenBound[]
  credentialId?: string
  /** The disclosed W3C status entry; a derived proof without one fails. */
  statusEntry?: unknown
}

/** Verifies a derived (BBS) proof object of `vp.verifiableCredential`. */
export type DerivedProofVerifier = (
  proof: unknown,
  ctx: { nonce: string; verifierDid: string; holderDid: string },
) => Promise<DerivedProofCheck>

/**
 * Dock BBS derived proofs (docs/anonymous-proofs.md): selective disclosure and zero-knowledge
 * predicates over the companion BBS signature issued beside a JWT credential. Presented as a JSON
 * object, bound to the presentation's nonce and audience; non-revocation must be shown by a
 * disclosed status entry.
 */
export function dockBbsProofFormat(derived: DerivedProofVerifier | undefined): CredentialFormat {
  return {
    id: 'dock-bbs-proof',
    recognizes: (item) =>
      typeof item === 'object' &&
      item !== null &&
      !Array.isArray(item) &&
      (item as { type?: unknown }).type === 'AnonymousCredentialProof',
    idOf: (item) => {
      const id = (item as { credential_id?: unknown }).credential_id
      return typeof id === 'string' ? id : undefined
    },
    // A derived proof lives inside one presentation: no wallet keeps one to read its status again.
    status: async () => ({ state: 'unknown', reason: 'a derived proof is checked only inside its presentation' }),
    async verify(item, ctx): Promise<CheckResult> {
      if (!derived)
        return {
          problems: [{ reason: 'malformed', message: 'derived (anonymous) proofs are not supported by this service' }],
        }
      if (!ctx.presentation || !ctx.holderDid)
        return {
          problems: [
            {
              reason: 'binding',
              message: 'a derived proof is only accepted inside a presentation, bound to its nonce',
            },
          ],
        }
      const checked = await derived(item, {
        nonce: ctx.presentation.nonce,
        verifierDid: ctx.presentation.audience,
        holderDid: ctx.holderDid,
      })
      const problems: CredentialProblem[] = checked.errors.map((message) => ({ reason: 'signature', message }))
      if (!checked.valid)
        return {
          problems: problems.length
            ? problems
            : [{ reason: 'signature', message: 'the derived proof does not verify' }],
        }
      const status =
        checked.statusEntry === undefined
          ? {
              problems: [
                {
                  reason: 'status_unknown' as const,
                  message: 'its status could not be checked: the proof discloses no status entry',
                },
              ],
              revoked: false,
            }
          : statusProblems(await ctx.status.check(checked.statusEntry, checked.issuer, ctx.statusMemo))
      return {
        problems: [...problems, ...status.problems],
        credential: {
          id: checked.credentialId,
          issuer: checked.issuer,
          types: ['VerifiableCredential', checked.credentialType],
          schemaIds: checked.schemaId ? [checked.schemaId] : [],
          attributes: checked.revealed,
          extensions: [],
          document: item as Record<string, unknown>,
          revoked: status.revoked,
          proven: { predicates: checked.predicates, bounds: checked.bounds },
        },
      }
    },
  }
}
