import { ValidationError } from '../../../../errors.js'
import type { DocumentSigners } from '../../../certificates/document-signer.js'
import type { DidResolver } from '../../../did/did-resolver.js'
import { relationshipJwks } from '../../../did/jwt-vc-issuer.js'
import { DOCUMENT_SIGNER } from '../../../identity/signing-identities.js'
import type { StatusState } from '../../../status-list/status-check.js'
import type {
  CheckResult,
  CredentialContent,
  CredentialProblem,
  IssuableFormat,
  IssuedForm,
  ReadCredential,
  StatusContext,
  VerifyContext,
} from '../credential-format.js'
import { MSO_MDOC } from './mdoc-ids.js'
import { issuerOfDocument, statusOf } from './mdoc-issuer.js'
import { issueMdoc } from './mdoc-issue.js'
import { mdocPresets } from './mdoc-presets.js'
import type { MdocDataType } from './mdoc-values.js'
import { verifyIssuerSigned, type VerifiedMdocDocument } from './mdoc-verify.js'
import { subjectCountry } from './mdoc-x509.js'
import { mdocDcql } from './mdoc.dcql.js'
import { mdocHolder } from './mdoc.holder.js'
import { mdocOid4vci } from './mdoc.oid4vci.js'

export interface MdocFormatDeps {
  resolver: DidResolver
  /** The issuers' Document Signers, their IACA roots (what is trusted by default) and whose a certificate is. */
  documentSigners: DocumentSigners
}

/** How long an mdoc is valid when the issuance sets no expiry: ISO/IEC 18013-5 §9.1.2.4 requires `validUntil`. */
const DEFAULT_VALIDITY_MS = 365 * 24 * 3600 * 1000

/** base64url of a CBOR map (major type 5, first byte 0xa0-0xbf: `o`-`v` in base64url): what an IssuerSigned's wire form starts with. */
const ISSUER_SIGNED_WIRE = /^[o-v][A-Za-z0-9_-]{15,}$/

/**
 * ISO/IEC 18013-5 mdoc (`mso_mdoc`, OpenID4VCI 1.0 Appendix A.2): an IssuerSigned (its items and
 * the MSO signed COSE_Sign1 ES256 by the issuer's Document Signer, x5chain), bound to the holder's
 * P-256 device key, stored and carried as base64url of its CBOR. Doctype and namespace come from
 * the schema (`mdoc`); its status is a Token Status List reference read in CWT or JWT form.
 */
export function mdocFormat(deps: MdocFormatDeps): IssuableFormat<typeof DOCUMENT_SIGNER> {
  async function read(item: unknown, ctx: Pick<VerifyContext, 'now' | 'skewSeconds'>, trustAnchors: Uint8Array[]) {
    if (typeof item !== 'string') return { problems: [{ reason: 'unreadable' as const, message: 'not an mdoc' }] }
    return verifyIssuerSigned(item, { trustAnchors, now: ctx.now, skewSeconds: ctx.skewSeconds })
  }

  const format: IssuableFormat<typeof DOCUMENT_SIGNER> = {
    id: MSO_MDOC,
    keyType: DOCUMENT_SIGNER,
    oid4vci: mdocOid4vci,
    dcql: mdocDcql,
    holder: mdocHolder,
    schemaPresets: mdocPresets,

    recognizes: (item) => typeof item === 'string' && ISSUER_SIGNED_WIRE.test(item),
    // An mdoc names no identifier of its own.
    idOf: () => undefined,

    async issue(content: CredentialContent, signer): Promise<IssuedForm> {
      const placement = content.schema.mdoc
      if (!placement)
        throw new ValidationError('This schema names no mdoc doctype: set `mdoc: {doctype, namespace}` on the schema', {
          details: { field: 'format' },
        })
      // ISO/IEC 18013-5 §9.3.3: a reader refuses an issuing_country other than the certificates' country.
      const country = content.attributes.issuing_country
      const certified = subjectCountry(signer.chain[0]!)
      if (typeof country === 'string' && country !== certified)
        throw new ValidationError(
          `issuing_country "${country}" is not the country the issuer's certificates name (${certified}): set the issuer profile's country (PUT /api/issuer/:did/update)`,
          { details: { field: 'attributes.issuing_country' } },
        )
      const deviceKeyJwk = content.holderJwk ?? (content.subjectDid ? await deviceKey(content.subjectDid) : undefined)
      if (!deviceKeyJwk)
        throw new ValidationError(
          'An mdoc is bound to its holder’s device key (ISO/IEC 18013-5 §9.1.2.4): give a subject_did with a P-256 key',
          { details: { field: 'subject_did' } },
        )
      const types = Object.fromEntries(
        (content.schema.attributes ?? []).map((a) => [a.name, a.data_type as MdocDataType | undefined]),
      )
      const validUntil = content.expiresAt ?? new Date(content.issuedAt.getTime() + DEFAULT_VALIDITY_MS)
      const issued = await issueMdoc({
        doctype: placement.doctype,
        namespaces: { [placement.namespace]: content.attributes },
        types: { [placement.namespace]: types as Record<string, MdocDataType> },
        signer,
        deviceKeyJwk,
        validity: { signed: content.issuedAt, validFrom: content.issuedAt, validUntil },
        // The list's Token Status List URI (draft-ietf-oauth-status-list §6.3), as SD-JWT VCs name it.
        status: {
          uri: `${content.status.statusListCredential}/token`,
          idx: Number(content.status.statusListIndex),
        },
      })
      return {
        credential: issued.base64url,
        document: {
          docType: placement.doctype,
          nameSpaces: { [placement.namespace]: content.attributes },
          validityInfo: { signed: content.issuedAt.toISOString(), validUntil: validUntil.toISOString() },
        },
      }
    },

    async verify(item, ctx): Promise<CheckResult> {
      const anchors = await deps.documentSigners.hostedRoots()
      const verified = await read(item, ctx, anchors)
      const document = 'documents' in verified ? verified.documents[0] : undefined
      const problems: CredentialProblem[] = verified.problems.map((p) => ({ reason: p.reason, message: p.message }))
      if (!document) return { problems }
      const issuer = await issuerOfDocument(document, deps.documentSigners)
      const state = await statusOf(document, issuer, ctx, { anchors, now: ctx.now })
      if (state.state === 'revoked') problems.push({ reason: 'revoked', message: 'revoked by its issuer' })
      if (state.state === 'unknown') problems.push({ reason: 'status_unknown', message: state.reason })
      return { problems, credential: readCredential(document, issuer, state.state === 'revoked') }
    },

    async status(item, _issuer, ctx: StatusContext): Promise<StatusState> {
      const anchors = await deps.documentSigners.hostedRoots()
      const now = new Date()
      const verified = await read(item, { now, skewSeconds: 0 }, anchors)
      const document = 'documents' in verified ? verified.documents[0] : undefined
      if (!document) return { state: 'unknown', reason: verified.problems[0]?.message ?? 'not an mdoc' }
      return statusOf(document, await issuerOfDocument(document, deps.documentSigners), ctx, { anchors, now })
    },
  }

  /** Its holder's P-256 key as a JWK: the subject DID's first P-256 authentication key. */
  async function deviceKey(did: string): Promise<Record<string, unknown> | undefined> {
    const jwk = relationshipJwks((await deps.resolver.resolve(did)).didDocument, 'authentication').find(
      (k) => k.kty === 'EC' && k.crv === 'P-256',
    )
    if (!jwk) return undefined
    return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }
  }

  return format
}

export function readCredential(document: VerifiedMdocDocument, issuer: string, revoked: boolean): ReadCredential {
  // Elements are named without their namespace: a schema places all of its attributes in one.
  const attributes = Object.assign({}, ...Object.values(document.namespaces)) as Record<string, unknown>
  return {
    issuer,
    types: [document.doctype],
    schemaIds: [],
    attributes,
    issuedAt: new Date(document.validity.signed),
    expiresAt: new Date(document.validity.validUntil),
    extensions: [],
    document: { docType: document.doctype, nameSpaces: document.namespaces, validityInfo: document.validity },
    revoked,
  }
}
