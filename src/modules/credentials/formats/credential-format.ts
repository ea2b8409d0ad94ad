import type { DcqlCredentialPresentation, DcqlQuery } from 'dcql'
import type { DecodedJws } from '../../../crypto/jws.js'
import type { EvidenceAttachment, RequiredPredicate } from '../../../db/database.js'
import type { DidResolver } from '../../did/did-resolver.js'
import type { FormatKeyType, SignerByKeyType } from '../../identity/signing-identities.js'
import type { SigningAlgorithm } from '../../keys/key-store.js'
import type { StatusChecker, StatusListMemo, StatusState } from '../../status-list/status-check.js'
import type { StatusListEntry, StatusListForm } from '../../status-list/status-list.service.js'
import type { HolderFace } from './holder-face.js'
import type { Oid4vciFace } from './oid4vci-face.js'

export type { StatusListForm }

/**
 * One credential format (STYLE.md habit 9): how a credential is issued, recognized, verified and
 * read back, behind one interface. Formats register in format-registry.ts; the rest of the
 * service asks the registry, never `typeof` or the format's name.
 */
export interface CredentialFormat {
  /** The format identifier (OpenID4VCI's where it has one: `jwt_vc_json`, `vc+jwt`, `dc+sd-jwt`). */
  readonly id: string
  /** Whether a serialized item (from a VP, an import) is of this format: a cheap look, no cryptography. */
  recognizes(item: unknown): boolean
  /** The id the item names for itself, read without verifying (to declare what a submission holds); `parsed`: its `parse`. */
  idOf(item: unknown, parsed?: ParsedItem): string | undefined
  /** Every check the format defines, each failure one problem; `credential` is what the item says once read; `parsed`: its `parse`. */
  verify(item: unknown, ctx: VerifyContext, parsed?: ParsedItem): Promise<CheckResult>
  /** The item read once (a JWT's header and payload), handed back to `idOf` and `verify` so neither reads it again. */
  parse?(item: unknown): ParsedItem
  /** Its issuer's status list read again for it, nothing else checked: a wallet's later reading of an import. */
  status(item: unknown, issuer: string, ctx: StatusContext): Promise<StatusState>
  /** OpenID4VCI: its credential configuration and wire form. */
  readonly oid4vci?: Oid4vciFace
  /** The hosted wallet: DCQL matching of a stored credential and its presentation draft. */
  readonly holder?: HolderFace
  /** A status-list credential published in this format, as a verifier of the credentials naming it reads one. */
  readonly statusList?: StatusListFace
  /** The verifier: its DCQL credential query for a requirement and its reading of a presented credential. */
  readonly dcql?: DcqlFace
  /** Ready-made schemas of the credentials this format is made for (the ISO mDL, the EU PID). */
  readonly schemaPresets?: readonly SchemaPreset[]
}

/** A ready-made schema: a body for `POST /api/issuer/:did/schemas`, created as it is. */
export interface SchemaPreset {
  /** Its id, the document type it stands for where it has one (`org.iso.18013.5.1.mDL`). */
  id: string
  description: string
  /** The schema body (its `name`, `version`, `attributes`, and the format's own placement such as `mdoc`). */
  schema: Record<string, unknown>
}

/** How a status-list credential secured in a format is read once its signature is verified (Bitstring Status List §3.2). */
export interface StatusListFace {
  /** The list credential a verified JWS of this format carries: its payload, or the claim holding it; undefined when it holds none. */
  credentialOf(payload: Record<string, unknown>): Record<string, unknown> | undefined
}

/** What a format's `parse` read of an item, once. */
export interface ParsedItem {
  /** A compact JWS's (an SD-JWT's issuer-signed JWT's) header and payload; undefined when it does not decode. */
  jws?: DecodedJws
}

/** A DCQL credential query without its id (the mapping names the queries). */
export type DcqlCredentialQuery = Omit<DcqlQuery.Input['credentials'][number], 'id'>

/**
 * The schemas whose credentials a query may name, looked up by the caller: for each credential
 * type, the schemas it was issued (templated, offered) under; for predicates of no type, the
 * schemas that have every compared attribute.
 */
export interface KnownSchemas {
  ofType: Record<string, string[]>
  withAttributes: string[]
  /** What a format places of each schema named above (or by a requirement's schema_id): its mdoc doctype and namespace. */
  placements?: Record<string, SchemaPlacement>
}

/** The format-specific placement a schema carries (ISO/IEC 18013-5: the doctype and namespace of its mdocs). */
export interface SchemaPlacement {
  mdoc?: { doctype: string; namespace: string } | null
}

/** One requirement of a presentation request, as a format's DCQL query asks for it. */
export interface DcqlRequirement {
  /** The credential type required; undefined for predicates of no type. */
  type: string | undefined
  schemaId: string | undefined
  /** The claims to disclose: the required attributes and the attributes its predicates compare. */
  claims: string[]
  known: KnownSchemas
}

/**
 * A format's face towards an OpenID4VP verifier (OID4VP 1.0 §6, Appendix B): the credential
 * query it answers for a requirement, and a presented credential as DCQL reads it.
 */
export interface DcqlFace {
  /** The end of its credential query ids (`c0_sd_jwt`): the queries a request makes stay the same. */
  readonly querySuffix: string
  /** Its credentials are signed under X.509 chains (an mdoc's x5chain): a query can name the authorities it accepts (`trusted_authorities` aki, OID4VP 1.0 §6.1.1). */
  readonly x509Issuers?: boolean
  /** Its entry of `client_metadata.vp_formats_supported` (OID4VP 1.0 §11.1) for these JWS algorithms. */
  vpFormatSupported(algs: readonly string[]): Record<string, unknown>
  /** Its credential query for the requirement; undefined when it has none to ask. */
  query(requirement: DcqlRequirement): DcqlCredentialQuery | undefined
  /** The claim name a claims path of its queries asks for (what the verdict keeps). */
  claimOf(path: readonly unknown[]): string | undefined
  /** A presented credential, as its format read it, in the shape the dcql library matches against the query. */
  presented(credential: ReadCredential): DcqlCredentialPresentation
  /** The names its query identifies credentials by that its credentials carry as a type (an mdoc's doctype): they stand for the requirement's type. */
  namesOf?(query: DcqlQuery['credentials'][number]): string[]
}

export type StatusContext = Pick<VerifyContext, 'status' | 'statusMemo'>

/**
 * A format an issuance can choose (`format`): it signs the credential with one key type of the
 * issuer, a JWS key (Ed25519, P-256: the default) or the IETF BBS key of bbs-2023, and is given
 * that key's signer (SigningIdentities.signerFor).
 */
export interface IssuableFormat<K extends FormatKeyType = SigningAlgorithm> extends CredentialFormat {
  readonly keyType: K
  /** The form of status list its credentials name: the vc+jwt (default) or the JSON-LD one Data Integrity verifiers read. */
  readonly statusListForm?: StatusListForm
  issue(content: CredentialContent, signer: SignerByKeyType[K]): Promise<IssuedForm>
}

/** Any issuable format, whatever key type it signs with: what the registry holds. */
export type AnyIssuableFormat = IssuableFormat<FormatKeyType>

/**
 * A format that secures a VCDM 2.0 document the caller built, as it is (the W3C VC API's
 * `/credentials/issue`): the issuer and every claim come from the document, not from a schema.
 */
export interface DocumentSecuringFormat<K extends FormatKeyType = SigningAlgorithm> extends IssuableFormat<K> {
  secure(document: Record<string, unknown>, signer: SignerByKeyType[K], options: SecureOptions): Promise<IssuedForm>
}

/** An issuable format served through OpenID4VCI. */
export type Oid4vciFormat = AnyIssuableFormat & { readonly oid4vci: Oid4vciFace }

/** A format whose holder derives what is presented from what was issued (bbs-2023's base proof). */
export interface DerivingFormat extends CredentialFormat {
  /** The holder's derived proof of an issued credential, disclosing its mandatory statements and `selectivePointers`. */
  derive(credential: string, selectivePointers: string[]): Promise<Record<string, unknown>>
}

export interface SecureOptions {
  /** JSON Pointers a selective-disclosure format always discloses (bbs-2023 `mandatoryPointers`). */
  mandatoryPointers?: string[]
}

/** What an issuance decided before any format signs it. */
export interface CredentialContent {
  id: string
  type: string
  subjectDid: string | null
  attributes: Record<string, unknown>
  schema: {
    id: string
    ipfs_hash: string
    attributes?: Array<{ name: string; data_type?: string; always_disclosed?: boolean }>
    /** ISO/IEC 18013-5: the doctype and namespace of its mdocs; null or absent when it has none. */
    mdoc?: { doctype: string; namespace: string } | null
  }
  status: StatusListEntry
  issuedAt: Date
  expiresAt: Date | null
  evidence: EvidenceAttachment[]
  extensions: string[]
  publicBaseUrl: string
  /** The holder key a key-bound format binds to (SD-JWT VC `cnf.jwk`): an OpenID4VCI proof's key. Default: the subject DID's key. */
  holderJwk?: Record<string, unknown>
}

export interface IssuedForm {
  /** The issued serialization, stored and answered as the record's `jwt`. */
  credential: string
  /** The JSON whose RFC 8785 SHA-256 is `credential_hash`. */
  document: Record<string, unknown>
}

/**
 * Why a credential is refused; `details.reason` of an import's 422 (docs/wallet.md "Import").
 * `unreadable`: not even decodable (an import's 400); `binding`: the holder's proof is missing or wrong.
 */
export type ProblemReason =
  | 'unreadable'
  | 'malformed'
  | 'signature'
  | 'issuer'
  | 'subject'
  | 'expired'
  | 'not_yet_valid'
  | 'revoked'
  | 'status_unknown'
  | 'binding'

export interface CredentialProblem {
  reason: ProblemReason
  message: string
}

/** A credential as its format reads it, whatever its serialization. */
export interface ReadCredential {
  /** Its identifier (`jti`, `id`), when it names one. */
  id?: string
  /** The DID (or URL) that signed it. */
  issuer: string
  issuerName?: string
  types: string[]
  /** The schema it names: the `credentialSchema` id and this service's `schemaId`. */
  schemaIds: string[]
  /** Disclosed claims about the subject, without its `id`. */
  attributes: Record<string, unknown>
  subject?: string
  issuedAt?: Date
  expiresAt?: Date
  extensions: string[]
  /** The JSON `credential_hash` is computed over. */
  document: Record<string, unknown>
  /** Revoked by its issuer's status list. */
  revoked: boolean
  /** Predicates a derived proof proved in zero knowledge, with the intervals its verified bound checks prove. */
  proven?: { predicates: RequiredPredicate[]; bounds: ProvenBound[] }
}

/** A verified bound check: `min <= encoded(attribute) < maxExclusive` (bbs-messages.ts encoding). */
export interface ProvenBound {
  attribute: string
  dataType: 'number' | 'date'
  min: number
  maxExclusive: number
}

export interface CheckResult {
  problems: CredentialProblem[]
  credential?: ReadCredential
}

export interface VerifyContext {
  resolver: DidResolver
  status: StatusChecker
  statusMemo?: StatusListMemo
  now: Date
  /** Seconds of clock difference tolerated on validity periods. */
  skewSeconds: number
  /** The holder it must be issued to, when binding to a holder is checked. */
  holderDid?: string
  /** Inside a presentation: the nonce and audience a format's own holder proof must carry. */
  presentation?: { nonce: string; audience: string }
}
