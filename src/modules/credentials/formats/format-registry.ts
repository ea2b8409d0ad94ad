import { ValidationError } from '../../../errors.js'
import type { FormatKeyType } from '../../identity/signing-identities.js'
import type { AnyIssuableFormat, CredentialFormat, DcqlFace, DerivingFormat, DocumentSecuringFormat } from './credential-format.js'
import type { PresentationKind } from './presentation-kind.js'

/** A format with a DCQL face: one an OpenID4VP request may ask for. */
export type DcqlFormat = CredentialFormat & { readonly dcql: DcqlFace }

/**
 * The credential formats, registered in one place (docs/formats.md): a new format is one folder
 * under formats/ and one line in registered-formats.ts.
 */
export interface FormatRegistry {
  /** The format an issuance names; 400 for one it cannot issue. */
  issuable(id: string): AnyIssuableFormat
  /** The format of a presented or imported item; undefined when none recognizes it. */
  recognize(item: unknown): CredentialFormat | undefined
  /** The id an item names for itself, by its format (unverified). */
  idOf(item: unknown): string | undefined
  /** The ids an issuance may name, for schemas and errors. */
  readonly issuableIds: readonly string[]
  /** A format that secures caller-built documents (the W3C VC API's issue); undefined for others. */
  securing(id: string): DocumentSecuringFormat<FormatKeyType> | undefined
  readonly securingIds: readonly string[]
  /** The format a holder derives presentations from (bbs-2023); undefined for others. */
  deriving(id: string): DerivingFormat | undefined
  /** The ids of the formats a holder derives from, for errors. */
  readonly derivingIds: readonly string[]
  /** The formats an OpenID4VP verifier asks for (their DCQL face), in registration order. */
  readonly dcql: readonly DcqlFormat[]
  /** The kind of a presentation; undefined when none recognizes it. */
  presentationKind(input: unknown): PresentationKind | undefined
  /**
   * The kind of the spec's `presentation_jwt`: an envelope kind that recognizes it, else the first
   * envelope kind registered (the spec's VP-JWT, DESIGN.md "Presentation"), whose reading says what it lacks.
   */
  envelopeKind(input: unknown): PresentationKind
}

export const DEFAULT_FORMAT = 'jwt_vc_json'

export function createFormatRegistry(formats: CredentialFormat[], kinds: PresentationKind[] = []): FormatRegistry {
  const envelopes = kinds.filter((k) => k.envelope)
  const issuable = new Map(formats.filter((f): f is AnyIssuableFormat => 'issue' in f).map((f) => [f.id, f]))
  const securing = new Map([...issuable].filter((e): e is [string, DocumentSecuringFormat<FormatKeyType>] => 'secure' in e[1]))
  const deriving = new Map(formats.filter((f): f is DerivingFormat => 'derive' in f).map((f) => [f.id, f]))
  return {
    derivingIds: [...deriving.keys()],
    deriving: (id) => deriving.get(id),
    issuableIds: [...issuable.keys()],
    securingIds: [...securing.keys()],
    securing: (id) => securing.get(id),
    issuable(id) {
      const format = issuable.get(id)
      if (!format) throw new ValidationError(`format "${id}" is not one this service issues (${[...issuable.keys()].join(', ')})`, { details: { field: 'format' } })
      return format
    },
    // The most specific first: formats are listed that way (typed JOSE formats before plain JWT-VC).
    recognize: (item) => formats.find((f) => f.recognizes(item)),
    idOf: (item) => formats.find((f) => f.recognizes(item))?.idOf(item),
    dcql: formats.filter((f): f is DcqlFormat => f.dcql !== undefined),
    presentationKind: (input) => kinds.find((k) => k.recognizes(input)),
    envelopeKind(input) {
      // The first is what the others do not recognize: it need not be asked.
      const kind = envelopes.slice(1).find((k) => k.recognizes(input)) ?? envelopes[0]
      if (!kind) throw new Error('no presentation kind is registered')
      return kind
    },
  }
}
