import { DeviceResponse, cborDecode } from '@owf/mdoc'
import type { DocumentSigners } from '../../../certificates/document-signer.js'
import { JwsRejected } from '../../../did/did-jws.js'
import { didJwkFor } from '../../../did/methods/registered-methods.js'
import type { CheckResult, CredentialFormat, CredentialProblem } from '../credential-format.js'
import type { OpenedPresentation, PresentationKind, PresentedItem } from '../presentation-kind.js'
import { issuerOfDocument, statusOf } from './mdoc-issuer.js'
import { readCredential } from './mdoc.format.js'
import { claimTag24 } from './mdoc-cbor-tag.js'
import { verifyDeviceResponse } from './mdoc-verify.js'
import { sessionTranscriptBytes } from './session-transcript.js'

const BASE64URL = /^[A-Za-z0-9_-]+$/

/** The DeviceResponse CBOR map (ISO/IEC 18013-5 §8.3.2.1.2.2) a base64url text decodes to; undefined for anything else. */
function deviceResponseMap(input: unknown): Map<unknown, unknown> | undefined {
  if (typeof input !== 'string' || !BASE64URL.test(input)) return undefined
  claimTag24()
  try {
    const decoded = cborDecode(new Uint8Array(Buffer.from(input, 'base64url')))
    return decoded instanceof Map && decoded.has('version') && decoded.has('documents') ? decoded : undefined
  } catch {
    return undefined
  }
}

/** The did:jwk of the device key its first document's MSO binds, read without verifying. */
function deviceHolder(input: string): string | undefined {
  claimTag24()
  try {
    const response = DeviceResponse.decode(new Uint8Array(Buffer.from(input, 'base64url')))
    const jwk = response.documents?.[0]?.issuerSigned.issuerAuth.mobileSecurityObject.deviceKeyInfo.deviceKey.jwk as
      | Record<string, unknown>
      | undefined
    return jwk ? didJwkFor({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }) : undefined
  } catch {
    return undefined
  }
}

/**
 * An mdoc DeviceResponse presented over OpenID4VP (OID4VP 1.0 Appendix B.2, ISO/IEC 18013-7 Annex B):
 * base64url of its CBOR, each document's device signature made over the SessionTranscript of the
 * request it answers (`OpenID4VPHandover`, §B.2.6.1), its issuer signature chained to an IACA
 * root this service hosts. Its holder proof is the device signature; it answers no VP-JWT route.
 */
export function deviceResponseKind(deps: {
  format: CredentialFormat
  documentSigners: DocumentSigners
}): PresentationKind {
  const { format } = deps
  const kind: PresentationKind = {
    id: 'mdoc-device-response',
    envelope: false,
    oid4vpFormat: format.id,
    recognizes: (input) => deviceResponseMap(input) !== undefined,
    open(input) {
      const text = input as string
      const item: PresentedItem = { item: input, format, parsed: undefined, id: undefined }
      const opened: OpenedPresentation = {
        kind,
        holder: deviceHolder(text),
        audience: undefined,
        items: [item],
        unnamed: 'is an mdoc DeviceResponse, which is presented over OpenID4VP, not as a VP',
        mismatch: () => 'must be a VP, not an mdoc DeviceResponse',
        signer() {
          return Promise.reject(
            new JwsRejected('device authentication: an mdoc DeviceResponse is checked only over OpenID4VP'),
          )
        },
        async verify(ctx) {
          if (!ctx.oid4vp)
            return {
              errors: ['device authentication: it answers no OpenID4VP request, whose SessionTranscript it signs'],
              checked: [],
              unreadable: true,
              holderProof: false,
            }
          const { clientId, nonce, responseUri, encryptionJwkThumbprint } = ctx.oid4vp
          const sessionTranscript = await sessionTranscriptBytes({
            kind: 'oid4vp',
            clientId,
            nonce,
            responseUri,
            jwkThumbprint: encryptionJwkThumbprint ?? null,
          })
          // The hosted issuers' IACA roots, and the certificates the verifier and the request trust besides.
          const anchors = [...(await deps.documentSigners.hostedRoots()), ...(ctx.trustAnchors ?? [])]
          const verified = await verifyDeviceResponse(text, {
            trustAnchors: anchors,
            now: ctx.now,
            skewSeconds: ctx.skewSeconds,
            sessionTranscript,
          })
          const problems: CredentialProblem[] = verified.problems.map((p) => ({
            reason: p.reason,
            message: p.doctype ? `${p.doctype}: ${p.message}` : p.message,
          }))
          const unreadable = verified.problems.some((p) => p.reason === 'unreadable' || p.reason === 'malformed')
          // Documents with problems are not returned: their problems stand for them.
          const checked: CheckResult[] = problems.length && verified.documents.length === 0 ? [{ problems }] : []
          for (const [i, document] of verified.documents.entries()) {
            const issuer = await issuerOfDocument(document, deps.documentSigners)
            const state = await statusOf(document, issuer, ctx, { anchors, now: ctx.now })
            const own: CredentialProblem[] = i === 0 ? [...problems] : []
            if (state.state === 'revoked') own.push({ reason: 'revoked', message: 'revoked by its issuer' })
            if (state.state === 'unknown') own.push({ reason: 'status_unknown', message: state.reason })
            checked.push({ problems: own, credential: readCredential(document, issuer, state.state === 'revoked') })
          }
          // The device signature over this request's transcript, for every document: what proves the holder answers it.
          const holderProof =
            verified.documents.length > 0 && !unreadable && !verified.problems.some((p) => p.reason === 'binding')
          return { errors: [], checked, unreadable, holderProof }
        },
      }
      return opened
    },
  }
  return kind
}
