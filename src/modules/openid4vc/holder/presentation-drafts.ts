import type { JwsDraft, PresentationDraft, ToSign } from '../../credentials/formats/holder-face.js'
import type { DidResolver } from '../../did/did-resolver.js'
import { checkHolderCoseSignature } from './prepared-cose.js'
import { checkHolderJws } from './prepared-jws.js'

export type { PresentationDraft, ToSign }

/** What the holder is shown to sign of a draft. */
export function toSign(draft: PresentationDraft): ToSign {
  return 'jws' in draft ? draft.jws : { cose: draft.cose }
}

/**
 * The presentation the vp_token carries, from the holder's `signed` answer to the draft (a JWS over
 * its signing input, or a raw signature over its bytes), checked against the prepared input first.
 */
export async function finishDraft(
  resolver: DidResolver,
  holderDid: string,
  draft: PresentationDraft,
  signed: string,
  field: string,
): Promise<string> {
  if ('cose' in draft) {
    const signature = checkHolderCoseSignature(draft.cose, signed, field, draft.assembly.key)
    const { prefix, suffix } = draft.assembly
    return Buffer.concat([Buffer.from(prefix, 'base64url'), signature, Buffer.from(suffix, 'base64url')]).toString(
      'base64url',
    )
  }
  const key = draft.assembly.kind === 'sd-jwt' ? draft.assembly.key : undefined
  await checkHolderJws(resolver, holderDid, draft.jws, signed, field, key)
  return assemble(draft, signed)
}

/** The signed JWS as the presentation the vp_token carries (unchecked). */
export function assemble(draft: JwsDraft, signedJws: string): string {
  return draft.assembly.kind === 'sd-jwt' ? `${draft.assembly.prefix}${signedJws}` : signedJws
}
