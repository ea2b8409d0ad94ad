import { DeviceResponse, IssuerSigned, cborDecode } from '@owf/mdoc'
import {
  verifyDeviceBinding,
  verifyIssuerSignedDocument,
  type MdocProblem,
  type MdocTrustOptions,
  type VerifiedMdocDocument,
} from './mdoc-verify-document.js'
import { claimTag24 } from './mdoc-cbor-tag.js'
import { rawNamespacesOf } from './mdoc-raw.js'

export type { MdocProblem, MdocProblemReason, MdocTrustOptions, VerifiedMdocDocument } from './mdoc-verify-document.js'

/** `documents` holds only documents without problems; a caller accepts the whole only if `problems` is empty. */
export interface MdocVerification {
  problems: MdocProblem[]
  documents: VerifiedMdocDocument[]
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** Bytes, or the OpenID4VCI / OpenID4VP wire form: base64url text of the CBOR. */
function bytesOf(input: Uint8Array | string): Uint8Array | undefined {
  if (input instanceof Uint8Array) return input
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(input)) return undefined
  return new Uint8Array(Buffer.from(input, 'base64url'))
}

/** Reads CBOR into a structure: not CBOR is `unreadable`, CBOR of the wrong shape `malformed`. */
function decode<T>(input: Uint8Array | string, what: string, read: (bytes: Uint8Array) => T): T | MdocProblem {
  claimTag24()
  const bytes = bytesOf(input)
  if (!bytes || bytes.length === 0) return { reason: 'unreadable', message: `the ${what} is not base64url CBOR` }
  try {
    cborDecode(bytes)
  } catch (err) {
    return { reason: 'unreadable', message: `the ${what} is not CBOR: ${message(err)}` }
  }
  try {
    return read(bytes)
  } catch (err) {
    return { reason: 'malformed', message: `the ${what} is not a valid ${what}: ${message(err)}` }
  }
}

/** The raw IssuerSigned namespaces of each document of a raw DeviceResponse map. */
function rawDocumentsOf(response: unknown) {
  const documents = response instanceof Map ? response.get('documents') : undefined
  if (documents === undefined) return []
  if (!Array.isArray(documents)) throw new Error('documents is not an array')
  return documents.map((d: unknown) => rawNamespacesOf(d instanceof Map ? d.get('issuerSigned') : undefined))
}

/** Doctypes of documents without deviceSigned.deviceAuth content, which the library refuses to decode. */
function documentsWithoutDeviceAuth(response: unknown): string[] {
  const documents = response instanceof Map ? response.get('documents') : undefined
  if (!Array.isArray(documents)) return []
  return documents
    .filter((d: unknown) => {
      const deviceSigned = d instanceof Map ? d.get('deviceSigned') : undefined
      const deviceAuth = deviceSigned instanceof Map ? deviceSigned.get('deviceAuth') : undefined
      return !(deviceAuth instanceof Map) || (!deviceAuth.has('deviceSignature') && !deviceAuth.has('deviceMac'))
    })
    .map((d: unknown) => String((d instanceof Map && d.get('docType')) ?? 'unknown'))
}

const isProblem = (x: unknown): x is MdocProblem => typeof x === 'object' && x !== null && 'reason' in x

/**
 * Verifies an IssuerSigned alone (what a wallet receives over OpenID4VCI): ISO/IEC 18013-5 §9.3.1
 * issuer data authentication, no device binding. Never throws for a bad credential.
 */
export async function verifyIssuerSigned(
  input: Uint8Array | string,
  options: MdocTrustOptions & { doctype?: string },
): Promise<MdocVerification> {
  claimTag24()
  const decoded = decode(input, 'IssuerSigned', (bytes) => ({
    issuerSigned: IssuerSigned.decode(bytes),
    rawNamespaces: rawNamespacesOf(cborDecode(bytes)),
  }))
  if (isProblem(decoded)) return { problems: [decoded], documents: [] }
  try {
    const { problems, document } = await verifyIssuerSignedDocument(decoded.issuerSigned, {
      ...options,
      rawNamespaces: decoded.rawNamespaces,
    })
    return { problems, documents: document ? [document] : [] }
  } catch (err) {
    return { problems: [{ reason: 'malformed', message: message(err) }], documents: [] }
  }
}

/**
 * Verifies a DeviceResponse (ISO/IEC 18013-5 §8.3.2.1.2.2, §9.3): every document's issuer data
 * authentication, its doctype against its MSO, and its device signature over `sessionTranscript`
 * (the untagged SessionTranscript CBOR, see session-transcript.ts). Never throws for a bad response.
 */
export async function verifyDeviceResponse(
  input: Uint8Array | string,
  options: MdocTrustOptions & { sessionTranscript: Uint8Array },
): Promise<MdocVerification> {
  claimTag24()
  const unsigned = decode(input, 'DeviceResponse', (bytes) => documentsWithoutDeviceAuth(cborDecode(bytes)))
  if (isProblem(unsigned)) return { problems: [unsigned], documents: [] }
  if (unsigned.length > 0)
    return {
      problems: unsigned.map((doctype) => ({
        reason: 'binding',
        message: 'the document has no device authentication',
        doctype,
      })),
      documents: [],
    }
  const decoded = decode(input, 'DeviceResponse', (bytes) => ({
    response: DeviceResponse.decode(bytes),
    raw: rawDocumentsOf(cborDecode(bytes)),
  }))
  if (isProblem(decoded)) return { problems: [decoded], documents: [] }
  const documents = decoded.response.documents ?? []
  if (documents.length === 0)
    return { problems: [{ reason: 'malformed', message: 'the DeviceResponse holds no document' }], documents: [] }
  const result: MdocVerification = { problems: [], documents: [] }
  for (const [i, document] of documents.entries()) {
    try {
      const issuer = await verifyIssuerSignedDocument(document.issuerSigned, {
        ...options,
        doctype: document.docType,
        rawNamespaces: decoded.raw[i] ?? new Map(),
      })
      const binding = await verifyDeviceBinding(document, options.sessionTranscript)
      result.problems.push(...issuer.problems, ...binding)
      if (issuer.document && binding.length === 0) result.documents.push(issuer.document)
    } catch (err) {
      result.problems.push({ reason: 'malformed', message: message(err), doctype: document.docType })
    }
  }
  return result
}
