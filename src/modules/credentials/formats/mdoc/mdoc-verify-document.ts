import { DeviceAuthentication, Header, type Document, type IssuerSigned, type MobileSecurityObject } from '@owf/mdoc'
import { createMdocContext } from './mdoc-context.js'
import { issuerSignedItemOf, taggedItemBytes, type RawNamespaces } from './mdoc-raw.js'
import { fromElementValue } from './mdoc-values.js'
import { verifyDocumentSignerChain } from './mdoc-x509.js'

export type MdocProblemReason =
  | 'unreadable'
  | 'malformed'
  | 'signature'
  | 'issuer'
  | 'expired'
  | 'not_yet_valid'
  | 'binding'

export interface MdocProblem {
  reason: MdocProblemReason
  message: string
  /** The document the problem is in, when known. */
  doctype?: string
}

export interface VerifiedMdocDocument {
  doctype: string
  /** namespace → element identifier → JSON value (see fromElementValue) */
  namespaces: Record<string, Record<string, unknown>>
  validity: { signed: string; validFrom: string; validUntil: string; expectedUpdate?: string }
  deviceKeyJwk: Record<string, unknown>
  status?: { uri: string; idx: number }
  issuerCertificateDer: Uint8Array
}

export interface MdocTrustOptions {
  /** DER certificates trusted as the end of a Document Signer chain: IACA roots, or a pinned DS. */
  trustAnchors: Uint8Array[]
  /** Defaults to the current time. */
  now?: Date
  /** Tolerated clock difference for the MSO validity, in seconds (default 0). */
  skewSeconds?: number
}

const ctx = createMdocContext()
const SUPPORTED_ALGORITHMS = new Set([-7, -35, -36, -8])

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** draft-ietf-oauth-status-list §6.3 in the MSO: status → status_list → {idx, uri}. */
function statusOf(mso: MobileSecurityObject): { uri: string; idx: number } | undefined | 'malformed' {
  const status = (mso.decodedStructure as unknown as { get(key: string): unknown }).get('status')
  if (status === undefined) return undefined
  const list = status instanceof Map ? status.get('status_list') : undefined
  if (list === undefined && status instanceof Map) return undefined
  if (!(list instanceof Map)) return 'malformed'
  const idx = list.get('idx')
  const uri = list.get('uri')
  if (typeof uri !== 'string' || typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0) return 'malformed'
  return { uri, idx }
}

/**
 * The issuer side of one document (ISO/IEC 18013-5 §9.3.1): DS chain to a trust anchor, the
 * COSE_Sign1 issuer signature, the MSO validity at `now`, every disclosed element's value digest
 * over its bytes as received (`rawNamespaces`), and the MSO doctype against `doctype` when given.
 * Returns the problems and, when there are none, the document read as JSON.
 */
export async function verifyIssuerSignedDocument(
  issuerSigned: IssuerSigned,
  options: MdocTrustOptions & { doctype?: string; rawNamespaces: RawNamespaces },
): Promise<{ problems: MdocProblem[]; document?: VerifiedMdocDocument }> {
  const problems: MdocProblem[] = []
  const issuerAuth = issuerSigned.issuerAuth
  let mso: MobileSecurityObject
  let certificate: Uint8Array
  try {
    mso = issuerAuth.mobileSecurityObject
    certificate = issuerAuth.certificate
  } catch (err) {
    return { problems: [{ reason: 'malformed', message: `the MSO or its certificate is unreadable: ${message(err)}` }] }
  }
  const doctype = mso.docType
  const problem = (reason: MdocProblemReason, text: string) => problems.push({ reason, message: text, doctype })
  const now = options.now ?? new Date()
  const skewMs = (options.skewSeconds ?? 0) * 1000

  if (options.doctype !== undefined && options.doctype !== doctype)
    problem('malformed', `the document says ${options.doctype} but its MSO is for ${doctype}`)

  try {
    await verifyDocumentSignerChain({ x5chain: issuerAuth.certificateChain, trustAnchors: options.trustAnchors, now })
  } catch (err) {
    problem('issuer', `the Document Signer is not trusted: ${message(err)}`)
  }

  const alg = issuerAuth.protectedHeaders.headers?.get(Header.Algorithm)
  if (typeof alg !== 'number' || !SUPPORTED_ALGORITHMS.has(alg))
    problem('signature', 'the issuer signature names no supported algorithm in its protected header')
  else {
    const valid = await issuerAuth.verifySignature({}, ctx).catch(() => false)
    if (!valid) problem('signature', 'the issuer signature does not verify with the Document Signer key')
  }

  const { validityInfo } = mso
  if (validityInfo.validFrom.getTime() - skewMs > now.getTime())
    problem('not_yet_valid', `the MSO is valid from ${validityInfo.validFrom.toISOString()}`)
  if (validityInfo.validUntil.getTime() + skewMs < now.getTime())
    problem('expired', `the MSO was valid until ${validityInfo.validUntil.toISOString()}`)

  const namespaces: Record<string, Record<string, unknown>> = {}
  const digests = mso.valueDigests.valueDigests
  const hash = mso.digestAlgorithm
  for (const [namespace, items] of options.rawNamespaces) {
    const values: Record<string, unknown> = {}
    for (const raw of items) {
      const item = issuerSignedItemOf(raw)
      const expected = digests.get(namespace)?.get(item.digestId)
      const actual = await ctx.crypto.digest({ digestAlgorithm: hash, bytes: taggedItemBytes(raw) })
      if (!expected || !Buffer.from(expected).equals(actual))
        problem('signature', `the value of ${namespace}/${item.element} does not match its digest`)
      values[item.element] = fromElementValue(item.value)
    }
    namespaces[namespace] = values
  }

  const status = statusOf(mso)
  if (status === 'malformed') problem('malformed', 'the MSO status is not {status_list: {idx, uri}}')

  if (problems.length > 0) return { problems }
  const jwk = mso.deviceKeyInfo.deviceKey.jwk as Record<string, unknown>
  return {
    problems,
    document: {
      doctype,
      namespaces,
      validity: {
        signed: validityInfo.signed.toISOString(),
        validFrom: validityInfo.validFrom.toISOString(),
        validUntil: validityInfo.validUntil.toISOString(),
        ...(validityInfo.expectedUpdate ? { expectedUpdate: validityInfo.expectedUpdate.toISOString() } : {}),
      },
      deviceKeyJwk: Object.fromEntries(['kty', 'crv', 'x', 'y'].filter((k) => k in jwk).map((k) => [k, jwk[k]])),
      ...(status && status !== 'malformed' ? { status } : {}),
      issuerCertificateDer: certificate,
    },
  }
}

/**
 * mdoc authentication by signature (ISO/IEC 18013-5 §9.1.3.6): the DeviceSignature is a COSE_Sign1
 * with detached payload over DeviceAuthenticationBytes for `sessionTranscript` (untagged CBOR), with
 * the MSO's device key. A device MAC is refused: OpenID4VP gives the reader no ephemeral key.
 */
export async function verifyDeviceBinding(document: Document, sessionTranscript: Uint8Array): Promise<MdocProblem[]> {
  const doctype = document.docType
  const fail = (text: string): MdocProblem[] => [{ reason: 'binding', message: text, doctype }]
  const deviceAuth = document.deviceSigned?.deviceAuth
  const signature = deviceAuth?.deviceSignature
  if (!signature)
    return fail(deviceAuth?.deviceMac ? 'device MAC authentication is not accepted here' : 'no device signature')
  if (signature.payload !== null) return fail('the device signature must have a detached (null) payload')
  const alg = signature.protectedHeaders.headers?.get(Header.Algorithm)
  if (typeof alg !== 'number' || !SUPPORTED_ALGORITHMS.has(alg))
    return fail('the device signature names no supported algorithm in its protected header')
  try {
    signature.detachedPayload = DeviceAuthentication.create({
      sessionTranscript,
      docType: doctype,
      deviceNamespaces: document.deviceSigned.deviceNamespaces,
    }).encode({ asDataItem: true })
    const deviceKey = document.issuerSigned.issuerAuth.mobileSecurityObject.deviceKeyInfo.deviceKey
    const ok = await ctx.cose.sign1.verify({ key: deviceKey, sign1: signature })
    return ok ? [] : fail('the device signature does not verify over this session transcript')
  } catch (err) {
    return fail(`the device signature cannot be checked: ${message(err)}`)
  }
}
