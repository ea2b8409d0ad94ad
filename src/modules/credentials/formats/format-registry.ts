import { ValidationError } from '../../../errors.js'
import type { FormatKeyType } from '../../identity/signing-identities.js'
import type {
  AnyIssuableFormat,
  CredentialFormat,
  DcqlFace,
  DerivingFormat,
  DocumentSecuringFormat,
  Oid4vciFormat,
  SchemaPreset,
  StatusListForm,
} from './credential-format.js'
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
  /** The id of the format an issuance or offer that names none is issued in. */
  readonly defaultId: string
  /** The format of a presented or imported item; undefined when none recognizes it. */
  recognize(item: unknown): CredentialFormat | undefined
  /** The id an item names for itself, by its format (unverified). */
  idOf(item: unknown): string | undefined
  /** A registered format by its id (a stored credential's `format`); undefined for an unknown one. */
  byId(id: string): CredentialFormat | undefined
  /** Every registered format's id, and every presentation kind's. */
  readonly ids: readonly string[]
  /** The ids an issuance may name, for schemas and errors. */
  readonly issuableIds: readonly string[]
  /** A format that secures caller-built documents (the W3C VC API's issue); undefined for others. */
  securing(id: string): DocumentSecuringFormat<FormatKeyType> | undefined
  readonly securingIds: readonly string[]
  /** The format a holder derives presentations from (bbs-2023); undefined for others. */
  deriving(id: string): DerivingFormat | undefined
  /** The ids of the formats a holder derives from, for errors. */
  readonly derivingIds: readonly string[]
  /** The formats served through OpenID4VCI, in the order of their OpenID4VCI format identifiers (the metadata's order). */
  oid4vci(): readonly Oid4vciFormat[]
  /** The format served under an OpenID4VCI format identifier (`ldp_vc`); undefined for one not served. */
  byOid4vci(oid4vciFormat: string): Oid4vciFormat | undefined
  /** The status-list credential a verified JWS `jws` (with its `payload`) carries, read by its format; undefined for a format that publishes none. */
  statusListCredential(jws: string, payload: Record<string, unknown>): Record<string, unknown> | undefined
  /** The format that secures the service's status lists of a form with the issuer's Ed25519 key. */
  statusListFormat(form: StatusListForm): DocumentSecuringFormat<FormatKeyType>
  /** The formats an OpenID4VP verifier asks for (their DCQL face), in registration order. */
  readonly dcql: readonly DcqlFormat[]
  /** The kind of a presentation; undefined when none recognizes it. */
  presentationKind(input: unknown): PresentationKind | undefined
  /**
   * The kind of the spec's `presentation_jwt`: an envelope kind that recognizes it, else the first
   * envelope kind registered (the spec's VP-JWT, DESIGN.md "Presentation"), whose reading says what it lacks.
   */
  envelopeKind(input: unknown): PresentationKind
  /** The ready-made schemas the formats offer, each with the format it is made for. */
  readonly schemaPresets: readonly (SchemaPreset & { format: string })[]
}

/** What the registration decides beside the list of formats. */
export interface RegistryOptions {
  /** The format of an issuance that names none; default: the first issuable. */
  default?: AnyIssuableFormat
  /** The format each status-list form is secured with. */
  statusLists?: Partial<Record<StatusListForm, DocumentSecuringFormat<FormatKeyType>>>
  /** The presentation kinds, the most specific first. */
  kinds?: PresentationKind[]
}

export function createFormatRegistry(formats: CredentialFormat[], options: RegistryOptions = {}): FormatRegistry {
  const kinds = options.kinds ?? []
  const envelopes = kinds.filter((k) => k.envelope)
  const issuable = new Map(formats.filter((f): f is AnyIssuableFormat => 'issue' in f).map((f) => [f.id, f]))
  const securing = new Map(
    [...issuable].filter((e): e is [string, DocumentSecuringFormat<FormatKeyType>] => 'secure' in e[1]),
  )
  const deriving = new Map(formats.filter((f): f is DerivingFormat => 'derive' in f).map((f) => [f.id, f]))
  const byId = new Map(formats.map((f) => [f.id, f]))
  // Sorted by identifier, so the metadata's order does not follow the order formats are recognized in.
  const served = [...issuable.values()]
    .filter((f): f is Oid4vciFormat => f.oid4vci !== undefined)
    .sort((a, b) => (a.oid4vci.format < b.oid4vci.format ? -1 : 1))
  const defaultId = (options.default ?? [...issuable.values()][0])?.id ?? ''
  return {
    defaultId,
    byId: (id) => byId.get(id),
    ids: [...formats.map((f) => f.id), ...kinds.map((k) => k.id)],
    derivingIds: [...deriving.keys()],
    deriving: (id) => deriving.get(id),
    issuableIds: [...issuable.keys()],
    securingIds: [...securing.keys()],
    securing: (id) => securing.get(id),
    issuable(id) {
      const format = issuable.get(id)
      if (!format)
        throw new ValidationError(
          `format "${id}" is not one this service issues (${[...issuable.keys()].join(', ')})`,
          { details: { field: 'format' } },
        )
      return format
    },
    // The most specific first: formats are listed that way (typed JOSE formats before plain JWT-VC).
    recognize: (item) => formats.find((f) => f.recognizes(item)),
    idOf: (item) => formats.find((f) => f.recognizes(item))?.idOf(item),
    oid4vci: () => served,
    byOid4vci: (oid4vciFormat) => served.find((f) => f.oid4vci.format === oid4vciFormat),
    statusListCredential: (jws, payload) => formats.find((f) => f.recognizes(jws))?.statusList?.credentialOf(payload),
    statusListFormat(form) {
      const format = options.statusLists?.[form]
      if (!format) throw new Error(`no format is registered to secure ${form} status lists`)
      return format
    },
    dcql: formats.filter((f): f is DcqlFormat => f.dcql !== undefined),
    schemaPresets: formats.flatMap((f) => (f.schemaPresets ?? []).map((preset) => ({ ...preset, format: f.id }))),
    presentationKind: (input) => kinds.find((k) => k.recognizes(input)),
    envelopeKind(input) {
      // The first is what the others do not recognize: it need not be asked.
      const kind = envelopes.slice(1).find((k) => k.recognizes(input)) ?? envelopes[0]
      if (!kind) throw new Error('no presentation kind is registered')
      return kind
    },
  }
}
