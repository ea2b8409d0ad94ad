import { randomBytes } from 'node:crypto'
import type { Jwk } from '@openid4vc/oauth2'
import { IssuerSigned, cborDecode } from '@owf/mdoc'
import * as jose from 'jose'
import type { ClaimPath, CoseDraft, Disclosure, HolderFace, Oid4vpRequestContext } from '../holder-face.js'
import { claimTag24 } from './mdoc-cbor-tag.js'
import { MSO_MDOC } from './mdoc-ids.js'
import { createDeviceResponse, type DisclosedElement } from './mdoc-device-response.js'
import { issuerSignedItemOf, rawNamespacesOf } from './mdoc-raw.js'
import { fromElementValue } from './mdoc-values.js'
import { sessionTranscriptBytes } from './session-transcript.js'

/**
 * The hosted wallet's mdoc (OpenID4VP 1.0 Appendix B.2): matched by doctype and `[namespace,
 * element]` claims, presented as a DeviceResponse with only the asked elements, whose device
 * signature (ISO/IEC 18013-5 §9.1.3.6) over the OpenID4VP SessionTranscript the holder makes.
 */
export const mdocHolder: HolderFace = {
  dcqlCredential(item) {
    const { doctype, namespaces } = readIssuerSigned(item)
    return Promise.resolve({ credential_format: MSO_MDOC, doctype, namespaces, cryptographic_holder_binding: true })
  },
  disclosure: (item, paths) => Promise.resolve(mdocDisclosure(item, paths)),
  draft: (item, paths, ctx) => mdocDraft(item, paths, ctx.oid4vp),
}

/** Doctype, element values as JSON (fromElementValue) and the MSO's device key of a stored IssuerSigned (base64url). */
function readIssuerSigned(item: string): {
  doctype: string
  namespaces: Record<string, Record<string, unknown>>
  deviceKey: Jwk
} {
  claimTag24()
  const bytes = new Uint8Array(Buffer.from(item, 'base64url'))
  const mso = IssuerSigned.decode(bytes).issuerAuth.mobileSecurityObject
  const namespaces: Record<string, Record<string, unknown>> = {}
  for (const [namespace, items] of rawNamespacesOf(cborDecode(bytes))) {
    namespaces[namespace] = Object.fromEntries(
      items.map((i) => issuerSignedItemOf(i)).map(({ element, value }) => [element, fromElementValue(value)]),
    )
  }
  const jwk = mso.deviceKeyInfo.deviceKey.jwk as Record<string, unknown>
  const deviceKey = Object.fromEntries(['kty', 'crv', 'x', 'y'].filter((k) => k in jwk).map((k) => [k, jwk[k]]))
  return { doctype: mso.docType, namespaces, deviceKey: deviceKey as Jwk }
}

/** The `[namespace, element]` paths (OpenID4VP 1.0 §7.2) the credential holds. */
function elementsAt(namespaces: Record<string, Record<string, unknown>>, paths: ClaimPath[]): DisclosedElement[] {
  const out: DisclosedElement[] = []
  for (const path of paths) {
    const [namespace, element] = path
    if (path.length !== 2 || typeof namespace !== 'string' || typeof element !== 'string') continue
    if (!(element in (namespaces[namespace] ?? {}))) continue
    if (!out.some(([n, e]) => n === namespace && e === element)) out.push([namespace, element])
  }
  return out
}

/** What a DeviceResponse with the elements at `paths` lets the verifier read: those elements, each a subject claim. */
function mdocDisclosure(item: string, paths: ClaimPath[]): Disclosure {
  const { namespaces } = readIssuerSigned(item)
  const elements = elementsAt(namespaces, paths)
  const disclosed: Record<string, Record<string, unknown>> = {}
  for (const [namespace, element] of elements) (disclosed[namespace] ??= {})[element] = namespaces[namespace]![element]
  return { claims: elements.map(([n, e]) => [n, e]), disclosed, subject_claims: elements.length }
}

/**
 * The DeviceResponse (ISO/IEC 18013-5 §8.3.2.1.2.2) for the OpenID4VP SessionTranscript of the
 * request (OpenID4VP 1.0 Appendix B.2.6.1: client_id, nonce, the JWK thumbprint of the verifier's
 * encryption key for direct_post.jwt, response_uri), built with a placeholder device signature:
 * the holder signs the captured Sig_structure, and its 64 bytes take the placeholder's place.
 */
async function mdocDraft(item: string, paths: ClaimPath[], request: Oid4vpRequestContext): Promise<CoseDraft> {
  const { namespaces, deviceKey } = readIssuerSigned(item)
  const jwkThumbprint = request.encryptionJwk
    ? new Uint8Array(Buffer.from(await jose.calculateJwkThumbprint(request.encryptionJwk as jose.JWK), 'base64url'))
    : null
  const sessionTranscript = await sessionTranscriptBytes({
    kind: 'oid4vp',
    clientId: request.clientId,
    nonce: request.nonce,
    responseUri: request.responseUri,
    jwkThumbprint,
  })
  const placeholder = randomBytes(64)
  let toBeSigned: Uint8Array | undefined
  const { deviceResponse } = await createDeviceResponse({
    issuerSigned: item,
    disclose: elementsAt(namespaces, paths),
    sessionTranscript,
    sign: (bytes) => {
      toBeSigned = bytes
      return Promise.resolve(placeholder)
    },
  })
  const built = Buffer.from(deviceResponse)
  const at = built.indexOf(placeholder)
  if (!toBeSigned || at < 0 || built.lastIndexOf(placeholder) !== at)
    throw new Error('the DeviceResponse does not hold its device signature once')
  return {
    cose: { alg: 'ES256', to_be_signed: Buffer.from(toBeSigned).toString('base64url'), key: deviceKey },
    assembly: {
      kind: 'signature-in-bytes',
      prefix: built.subarray(0, at).toString('base64url'),
      suffix: built.subarray(at + placeholder.length).toString('base64url'),
      key: deviceKey,
    },
  }
}
