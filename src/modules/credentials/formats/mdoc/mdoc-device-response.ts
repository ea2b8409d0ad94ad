import {
  DataItem,
  DeviceAuthentication,
  DeviceNamespaces,
  Header,
  IssuerSigned,
  ProtectedHeaders,
  SignatureAlgorithm,
  Sign1,
  cborDecode,
  cborEncode,
} from '@owf/mdoc'
import { ValidationError } from '../../../../errors.js'
import type { Sign1Signer } from './mdoc-context.js'
import { issuerSignedItemOf, rawNamespacesOf } from './mdoc-raw.js'
import { claimTag24 } from './mdoc-cbor-tag.js'

/** One element to disclose: [namespace, element identifier]. */
export type DisclosedElement = readonly [namespace: string, element: string]

/** The protected header of the device signature: alg ES256 (ISO/IEC 18013-5 §9.1.3.6, RFC 9053 §2.1). */
const deviceProtectedHeaders = () =>
  ProtectedHeaders.create({ protectedHeaders: new Map([[Header.Algorithm, SignatureAlgorithm.ES256]]) })

/**
 * DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, DocType,
 * DeviceNameSpacesBytes]) with no device-signed elements (ISO/IEC 18013-5 §9.1.3.4).
 * `sessionTranscript` is the untagged SessionTranscript CBOR (session-transcript.ts).
 */
export function deviceAuthenticationBytes(doctype: string, sessionTranscript: Uint8Array): Uint8Array {
  return DeviceAuthentication.create({
    sessionTranscript,
    docType: doctype,
    deviceNamespaces: DeviceNamespaces.create({ deviceNamespaces: new Map() }),
  }).encode({ asDataItem: true })
}

/** What the device key signs: the COSE Sig_structure "Signature1" over the detached DeviceAuthenticationBytes (RFC 9052 §4.4). */
export function deviceSignatureToBeSigned(doctype: string, sessionTranscript: Uint8Array): Uint8Array {
  return Sign1.toBeSigned({
    payload: deviceAuthenticationBytes(doctype, sessionTranscript),
    protectedHeaders: deviceProtectedHeaders(),
  })
}

export interface CreateDeviceResponseInput {
  /** The IssuerSigned as issued (CBOR bytes or its OpenID4VCI base64url form). */
  issuerSigned: Uint8Array | string
  disclose: readonly DisclosedElement[]
  sessionTranscript: Uint8Array
  /** Signs with the device key the MSO binds; returns the ES256 signature as raw r||s (64 bytes). */
  sign: Sign1Signer
}

/**
 * The holder's DeviceResponse (ISO/IEC 18013-5 §8.3.2.1.2.2) with one document: the issuer's
 * IssuerSignedItemBytes for the asked elements only, kept byte for byte (their digests are over
 * these bytes), the issuerAuth as issued, and a deviceSignature (§9.1.3.6) whose signing happens
 * in `sign`, so the private key can stay wherever the wallet keeps it. Throws ValidationError when
 * an asked element is not in the credential.
 */
export async function createDeviceResponse(
  input: CreateDeviceResponseInput,
): Promise<{ deviceResponse: Uint8Array; base64url: string }> {
  claimTag24()
  const bytes =
    typeof input.issuerSigned === 'string'
      ? new Uint8Array(Buffer.from(input.issuerSigned, 'base64url'))
      : input.issuerSigned
  const doctype = IssuerSigned.decode(bytes).issuerAuth.mobileSecurityObject.docType
  const raw = cborDecode<Map<string, unknown>>(bytes)
  const available = rawNamespacesOf(raw)

  const nameSpaces = new Map<string, DataItem[]>()
  for (const [namespace, element] of input.disclose) {
    const item = available.get(namespace)?.find((i) => issuerSignedItemOf(i).element === element)
    if (!item) throw new ValidationError(`the credential has no ${namespace}/${element}`)
    const kept = nameSpaces.get(namespace) ?? []
    if (!kept.includes(item)) kept.push(item)
    nameSpaces.set(namespace, kept)
  }

  const protectedHeaders = deviceProtectedHeaders()
  const signature = await input.sign(
    Sign1.toBeSigned({ payload: deviceAuthenticationBytes(doctype, input.sessionTranscript), protectedHeaders }),
  )
  if (signature.length !== 64) throw new ValidationError('an ES256 signature is 64 bytes (r||s)')

  const document = new Map<string, unknown>([
    ['docType', doctype],
    [
      'issuerSigned',
      new Map<string, unknown>([
        ['nameSpaces', nameSpaces],
        ['issuerAuth', raw.get('issuerAuth')],
      ]),
    ],
    [
      'deviceSigned',
      new Map<string, unknown>([
        ['nameSpaces', DataItem.fromData(new Map())],
        // COSE_Sign1 untagged, payload null (detached), §9.1.3.6.
        ['deviceAuth', new Map([['deviceSignature', [protectedHeaders.encodedStructure, new Map(), null, signature]]])],
      ]),
    ],
  ])
  const deviceResponse = cborEncode(
    new Map<string, unknown>([
      ['version', '1.0'],
      ['documents', [document]],
      ['status', 0],
    ]),
  )
  return { deviceResponse, base64url: Buffer.from(deviceResponse).toString('base64url') }
}
