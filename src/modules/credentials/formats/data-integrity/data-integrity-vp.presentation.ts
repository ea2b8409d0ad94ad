import { JwsRejected } from '../../../did/did-jws.js'
import type { DidResolver } from '../../../did/did-resolver.js'
import {
  FRESH_PRESENTATION_S,
  presentedItem,
  type OpenedPresentation,
  type PresentationKind,
  type PresentedItem,
} from '../presentation-kind.js'
import { documentOf } from '../shared/data-integrity-checks.js'
import {
  checkPresentationProof,
  dataIntegrityEnvelope,
  isDataIntegrityPresentation,
  verifyDataIntegrityPresentation,
} from './data-integrity-presentation.js'
import type { LocalDocuments } from '../shared/document-loader.js'

/**
 * A VC Data Model 2.0 presentation secured with Data Integrity (eddsa-rdfc-2022, eddsa-jcs-2022;
 * OID4VP 1.0 §B.1.3.2 `ldp_vc`): its proof, for `authentication`, carries the request's nonce as
 * `challenge` and the verifier as `domain` (VC Data Integrity §2.1); the holder is its `holder`.
 */
export function dataIntegrityVpKind(deps: { resolver: DidResolver; local?: LocalDocuments }): PresentationKind {
  const kind: PresentationKind = {
    id: 'data-integrity-vp',
    envelope: true,
    oid4vpFormat: 'ldp_vc',
    recognizes: isDataIntegrityPresentation,
    open(input, formats) {
      const vp = documentOf(input)
      const envelope = dataIntegrityEnvelope(vp)
      if (!vp || !envelope) return { unreadable: true, reason: 'the presentation has no Data Integrity proof' }
      // Each credential is read when first asked for, once: the holder's cheap checks need none of them.
      let items: PresentedItem[] | undefined
      const presented = () => (items ??= envelope.items.map((item) => presentedItem(item, formats)))
      const holder = envelope.holder ?? envelope.signer
      const audience = typeof envelope.domains[0] === 'string' ? envelope.domains[0] : undefined
      const opened: OpenedPresentation = {
        kind,
        holder,
        audience,
        get items() {
          return presented()
        },
        unnamed:
          holder === undefined || audience === undefined || typeof envelope.challenge !== 'string'
            ? 'needs a holder, and a proof with a challenge and a domain (the verifier)'
            : undefined,
        mismatch(expected) {
          if (holder !== expected.holder) return 'must be presented (holder) by the holder'
          if (!envelope.domains.includes(expected.audience))
            return "must name the request's verifier as its proof's domain"
          if (envelope.challenge !== expected.nonce) return "must carry the request's nonce as its proof's challenge"
          return undefined
        },
        // Its own challenge and domain: whether they are the request's is the verification's to say.
        async signer(ctx) {
          const options = {
            challenge: String(envelope.challenge),
            domain: String(envelope.domains[0]),
            resolver: deps.resolver,
            local: deps.local,
            now: ctx.now,
            skewSeconds: ctx.skewSeconds,
          }
          const { holder: signer, problems } = await checkPresentationProof(vp, options)
          const proofProblem = problems.find((p) => p.reason !== 'binding' || signer === undefined)
          if (!signer || proofProblem)
            throw new JwsRejected(proofProblem?.message ?? 'the presentation proof does not verify')
          return signer
        },
        /**
         * Its proof's challenge must be the request's nonce and its domain the verifier, made by the
         * holder's `authentication` method; each credential by its format. Without a request, its
         * proof must be recent (`created` on receipt), as a VP-JWT's `iat`.
         */
        async verify(ctx) {
          const challenge = ctx.nonce ?? (typeof envelope.challenge === 'string' ? envelope.challenge : '')
          const result = await verifyDataIntegrityPresentation(vp, {
            challenge,
            domain: ctx.audience,
            holderDid: ctx.holderDid,
            formats,
            items: presented(),
            resolver: deps.resolver,
            status: ctx.status,
            local: deps.local,
            now: ctx.now,
            skewSeconds: ctx.skewSeconds,
          })
          const errors = result.problems.map((p) => p.message)
          if (ctx.nonce === undefined) {
            const proof = vp.proof as Array<{ created?: unknown }> | { created?: unknown } | undefined
            const created = Date.parse(String((Array.isArray(proof) ? proof[0] : proof)?.created))
            const received = (ctx.receivedAt ?? ctx.now).getTime()
            if (Number.isNaN(created) || created < received - (FRESH_PRESENTATION_S + ctx.skewSeconds) * 1000)
              errors.push(
                `the presentation answers no request, and its proof was not created within ${FRESH_PRESENTATION_S / 60} minutes before it was received`,
              )
          }
          return { errors, checked: result.credentials, unreadable: false, holderProof: result.problems.length === 0 }
        },
      }
      return opened
    },
  }
  return kind
}
