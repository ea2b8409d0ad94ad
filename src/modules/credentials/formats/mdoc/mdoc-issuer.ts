import { X509Certificate } from '@peculiar/x509'
import type { DocumentSigners } from '../../../certificates/document-signer.js'
import type { StatusState } from '../../../status-list/status-check.js'
import type { StatusContext } from '../credential-format.js'
import type { VerifiedMdocDocument } from './mdoc-verify.js'
import { MdocChainError, verifyDocumentSignerChain } from './mdoc-x509.js'

/** Prefix of the issuer of an mdoc no issuer of this service signed: its Document Signer's subject follows. */
const X509_ISSUER = 'x509:'

/** Who issued a verified mdoc: the hosted issuer whose Document Signer signed it, else `x509:` and that certificate's subject. */
export async function issuerOfDocument(document: VerifiedMdocDocument, signers: DocumentSigners): Promise<string> {
  const hosted = await signers.issuerOfCertificate(document.issuerCertificateDer)
  return hosted ?? `${X509_ISSUER}${new X509Certificate(new Uint8Array(document.issuerCertificateDer)).subject}`
}

/**
 * The Token Status List entry of its MSO (draft-ietf-oauth-status-list §6.3); one without `status`
 * is not revocable. A hosted issuer's list is read as its other credentials' are; another issuer's
 * in CWT form, signed by a certificate that chains to the same trust anchors the mdoc was checked against.
 */
export function statusOf(
  document: VerifiedMdocDocument,
  issuer: string,
  ctx: StatusContext,
  trust: { anchors: Uint8Array[]; now: Date },
): Promise<StatusState> {
  if (!document.status) return Promise.resolve({ state: 'active' })
  if (!issuer.startsWith(X509_ISSUER)) return ctx.status.checkToken(document.status, issuer, ctx.statusMemo)
  const trustsChain = async (x5chain: Uint8Array[]) => {
    try {
      await verifyDocumentSignerChain({ x5chain, trustAnchors: trust.anchors, now: trust.now })
      return true
    } catch (error) {
      if (error instanceof MdocChainError) return false
      throw error
    }
  }
  return ctx.status.checkCwtToken(document.status, trustsChain, ctx.statusMemo)
}
