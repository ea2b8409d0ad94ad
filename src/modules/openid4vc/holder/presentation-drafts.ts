import type { PresentationDraft } from '../../credentials/formats/holder-face.js'

export type { PresentationDraft }

/** The signed draft as the presentation the vp_token carries. */
export function assemble(draft: PresentationDraft, signedJws: string): string {
  return draft.assembly.kind === 'sd-jwt' ? `${draft.assembly.prefix}${signedJws}` : signedJws
}
