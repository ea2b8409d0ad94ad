import { SessionTranscript } from '@owf/mdoc'
import { createMdocContext } from './mdoc-context.js'

/** The presentation a device signature was made in, one form per handover the service meets. */
export type SessionTranscriptParams =
  /** OpenID4VP 1.0 Appendix B.2.6.1, redirect / direct_post: `OpenID4VPHandover`. */
  | { kind: 'oid4vp'; clientId: string; nonce: string; responseUri: string; jwkThumbprint?: Uint8Array | null }
  /** OpenID4VP 1.0 Appendix B.2.6.2, over the Digital Credentials API: `OpenID4VPDCAPIHandover`. */
  | { kind: 'oid4vp-dc-api'; origin: string; nonce: string; jwkThumbprint?: Uint8Array | null }
  /** OpenID4VP draft 24 over the DC API: `OpenID4VPDCAPIHandover` over [origin, client_id, nonce]. */
  | { kind: 'oid4vp-dc-api-draft24'; origin: string; clientId: string; nonce: string }
  /** ISO/IEC 18013-7:2024 Annex B (OpenID4VP draft 18): `OID4VPHandover` with the mdoc generated nonce. */
  | {
      kind: 'oid4vp-draft18'
      clientId: string
      responseUri: string
      verifierGeneratedNonce: string
      mdocGeneratedNonce: string
    }

const ctx = createMdocContext()

/**
 * The SessionTranscript `[null, null, Handover]` (ISO/IEC 18013-5 §9.1.5.1 with the handover of
 * the protocol), built by @owf/mdoc's handover classes. Returns its CBOR (untagged); a
 * DeviceAuthentication embeds it as is, SessionTranscriptBytes is this wrapped in tag 24.
 */
export async function sessionTranscriptBytes(params: SessionTranscriptParams): Promise<Uint8Array> {
  switch (params.kind) {
    case 'oid4vp':
      return (
        await SessionTranscript.forOid4Vp(
          {
            clientId: params.clientId,
            nonce: params.nonce,
            responseUri: params.responseUri,
            ...(params.jwkThumbprint ? { jwkThumbprint: params.jwkThumbprint } : {}),
          },
          ctx,
        )
      ).encode()
    case 'oid4vp-dc-api':
      return (
        await SessionTranscript.forOid4VpDcApi(
          {
            origin: params.origin,
            nonce: params.nonce,
            ...(params.jwkThumbprint ? { jwkThumbprint: params.jwkThumbprint } : {}),
          },
          ctx,
        )
      ).encode()
    case 'oid4vp-dc-api-draft24':
      return (await SessionTranscript.forOid4VpDcApiDraft24(params, ctx)).encode()
    case 'oid4vp-draft18':
      return (await SessionTranscript.forOid4VpDraft18(params, ctx)).encode()
  }
}

/** SessionTranscriptBytes = #6.24(bstr .cbor SessionTranscript) (ISO/IEC 18013-5 §9.1.5.1). */
export function taggedSessionTranscript(transcript: Uint8Array): Uint8Array {
  return SessionTranscript.decode(transcript).encode({ asDataItem: true })
}
