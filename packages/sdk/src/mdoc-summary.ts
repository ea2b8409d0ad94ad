/**
 * What a wallet shows of an ISO/IEC 18013-5 mdoc (`mso_mdoc`): its doctype and its data elements.
 * The wallet keeps an mdoc as its IssuerSigned, base64url-encoded CBOR (§8.3.2.1.2.2): a CBOR map,
 * whose first byte (major type 5, RFC 8949 §3.1) makes the text begin with one of o–v, never a
 * JWT's `ey` nor a JSON document.
 */
const ISSUER_SIGNED = /^[o-v][A-Za-z0-9_-]{15,}$/

/** The fields of a wallet credential (GET /api/wallet/:did/credentials) this reads. */
export interface WalletCredentialFields {
  credential_type: string
  credential_data: Record<string, unknown>
  jwt: string
}

export interface MdocSummary {
  format: 'mso_mdoc'
  /** The document type, e.g. `org.iso.18013.5.1.mDL`: what the wallet lists as the credential type of an mdoc it received. */
  doctype: string
  /** The data element identifiers the issuer signed, in the order the wallet keeps them. */
  elements: string[]
}

/** The doctype and data elements of a wallet credential that is an mdoc; undefined for any other format. */
export function mdocSummary(credential: WalletCredentialFields): MdocSummary | undefined {
  if (typeof credential.jwt !== 'string' || !ISSUER_SIGNED.test(credential.jwt)) return undefined
  return {
    format: 'mso_mdoc',
    doctype: credential.credential_type,
    elements: Object.keys(credential.credential_data ?? {}),
  }
}
