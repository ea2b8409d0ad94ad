import { JwsRejected } from '../../../did/did-jws.js'
import type { DidResolver } from '../../../did/did-resolver.js'
import type { CredentialFormat } from '../credential-format.js'
import { verifyItem, type OpenedPresentation, type PresentationKind, type PresentedItem } from '../presentation-kind.js'

/**
 * A Dock BBS derived proof (docs/anonymous-proofs.md) as a presentation of one credential: its
 * BBS proof is bound to the nonce and the verifier's DID and names the subject it was issued to,
 * but no key of the holder signs it, so it proves no possession alone: it is accepted inside a
 * presentation the holder signs (a VP-JWT), whose nonce and audience it must carry.
 */
export function dockBbsProofKind(deps: { resolver: DidResolver; format: CredentialFormat }): PresentationKind {
  const { format } = deps
  const kind: PresentationKind = {
    id: 'dock-bbs-derived-proof',
    envelope: false,
    recognizes: (input) => format.recognizes(input),
    open(input) {
      const item: PresentedItem = { item: input, format, parsed: undefined, id: format.idOf(input) }
      const proof = input as { subject?: unknown; audience?: unknown }
      const holder = typeof proof.subject === 'string' ? proof.subject : undefined
      const audience = typeof proof.audience === 'string' ? proof.audience : undefined
      const opened: OpenedPresentation = {
        kind,
        holder,
        audience,
        items: [item],
        unnamed: 'is a derived proof, which is presented inside a VP-JWT',
        mismatch: () => 'must be a VP, not a derived proof',
        signer: () =>
          Promise.reject(
            new JwsRejected(
              "a derived proof is signed by its issuer's BBS key, not by its holder: it is presented inside a VP-JWT",
            ),
          ),
        async verify(ctx) {
          if (ctx.nonce === undefined)
            return {
              errors: ['a derived proof is only accepted inside a presentation, bound to its nonce'],
              checked: [],
              unreadable: true,
              holderProof: false,
            }
          const result = await verifyItem(item, {
            resolver: deps.resolver,
            status: ctx.status,
            now: ctx.now,
            skewSeconds: ctx.skewSeconds,
            holderDid: ctx.holderDid,
            presentation: { nonce: ctx.nonce, audience: ctx.itemAudience ?? ctx.audience },
          })
          return { errors: [], checked: [result], unreadable: false, holderProof: false }
        },
      }
      return opened
    },
  }
  return kind
}
