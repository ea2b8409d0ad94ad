import { decodeCompactJws } from '../../../../crypto/jws.js'
import { JwsRejected } from '../../../did/did-jws.js'
import type { DidResolver } from '../../../did/did-resolver.js'
import { didJwkFor } from '../../../did/methods/registered-methods.js'
import type { CredentialFormat } from '../credential-format.js'
import { isObject } from '../jwt-checks.js'
import type { OpenedPresentation, PresentationKind, PresentedItem } from '../presentation-kind.js'

/**
 * An SD-JWT VC presented with its KB-JWT (RFC 9901 §4.3, OID4VP 1.0 §B.3.5): its own holder proof,
 * by the key the issuer bound (`cnf.jwk`), for the request's nonce and the verifier's audience.
 * The format's verify checks the KB-JWT with the credential, as the SD-JWT library does both.
 */
export function sdJwtKbKind(deps: { resolver: DidResolver; format: CredentialFormat }): PresentationKind {
  const { format } = deps
  const kind: PresentationKind = {
    id: 'sd-jwt-kb',
    envelope: false,
    oid4vpFormat: format.id,
    recognizes: (input) => format.recognizes(input),
    open(input) {
      const parsed = format.parse?.(input)
      const item: PresentedItem = { item: input, format, parsed, id: format.idOf(input, parsed) }
      const cnf = parsed?.jws?.payload.cnf
      // Who presents it, as far as it says: the did:jwk of the key its KB-JWT proves possession of.
      const jwk = isObject(cnf) && isObject(cnf.jwk) ? cnf.jwk : undefined
      const holder = jwk ? didJwkFor(jwk) : undefined
      // Its KB-JWT (after the last `~`), read only when asked for: its verification reads it with the credential.
      const kb = () =>
        typeof input === 'string' ? decodeCompactJws(input.slice(input.lastIndexOf('~') + 1))?.payload : undefined
      const audienceOf = (payload: Record<string, unknown> | undefined) => {
        const aud = Array.isArray(payload?.aud) ? payload.aud[0] : payload?.aud
        return typeof aud === 'string' ? aud : undefined
      }
      const opened: OpenedPresentation = {
        kind,
        holder,
        get audience() {
          return audienceOf(kb())
        },
        items: [item],
        get holderClaims() {
          return kb()
        },
        unnamed: 'is one SD-JWT VC, which is presented over OpenID4VP, not as a VP',
        mismatch: () => 'must be a VP, not one SD-JWT VC',
        async signer(ctx) {
          const binding = kb()
          const audience = audienceOf(binding)
          if (!holder || !audience || typeof binding?.nonce !== 'string')
            throw new JwsRejected(
              'key binding: it has no KB-JWT naming a nonce and an audience, by a key the credential is bound to',
            )
          const result = await format.verify(
            input,
            { resolver: deps.resolver, ...ctx, presentation: { nonce: binding.nonce, audience } },
            parsed,
          )
          const refused = result.problems.find(
            (p) =>
              p.reason === 'binding' ||
              p.reason === 'signature' ||
              p.reason === 'unreadable' ||
              p.reason === 'malformed',
          )
          if (refused) throw new JwsRejected(refused.message)
          return holder
        },
        async verify(ctx) {
          if (ctx.nonce === undefined)
            return {
              errors: ['key binding: it answers no request, whose nonce its KB-JWT would carry'],
              checked: [],
              unreadable: true,
              holderProof: false,
            }
          const result = await format.verify(
            input,
            {
              resolver: deps.resolver,
              status: ctx.status,
              now: ctx.now,
              skewSeconds: ctx.skewSeconds,
              holderDid: ctx.holderDid,
              presentation: { nonce: ctx.nonce, audience: ctx.audience },
            },
            parsed,
          )
          // Its KB-JWT, by the key the credential is bound to, that key the holder's (when the holder is known).
          const holderProof =
            result.credential !== undefined &&
            !result.problems.some((p) => p.reason === 'binding' || p.reason === 'subject')
          return { errors: [], checked: [result], unreadable: false, holderProof }
        },
      }
      return opened
    },
  }
  return kind
}
