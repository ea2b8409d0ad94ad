/**
 * The wallet side of an mdoc presentation over OpenID4VP 1.0 (Appendix B.2), written without the
 * service's code: the request object fetched and decoded with jose, the SessionTranscript computed
 * with cbor-x and node:crypto (`OpenID4VPHandover`, §B.2.6.1), the DeviceResponse built and signed
 * by @auth0/mdl (auth0-wallet.ts), the answer posted over direct_post or, encrypted with jose,
 * direct_post.jwt.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { encode } from 'cbor-x'
import * as jose from 'jose'
import { asMdoc, MDL_DOCTYPE, MDL_NAMESPACE } from '../mdl-sample.js'
import type { WalletKey } from '../oid4vc-wallet/wallet-keys.js'
import { auth0Wallet } from './auth0-wallet.js'

// Decoded JSON from the wire, read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

/** The facts of a request a transcript is made of, any of which a test may replace. */
export interface Handover {
  clientId: string
  nonce: string
  responseUri: string
  thumbprint: Buffer | null
}

/**
 * SessionTranscriptBytes of OpenID4VP 1.0 §B.2.6.1:
 * #6.24(bstr .cbor [null, null, ["OpenID4VPHandover", sha256(cbor([client_id, nonce, jwkThumbprint / null, response_uri]))]]).
 */
export function sessionTranscriptBytes(h: Handover): Buffer {
  const info = encode([h.clientId, h.nonce, h.thumbprint, h.responseUri])
  const transcript = encode([null, null, ['OpenID4VPHandover', createHash('sha256').update(info).digest()]])
  // Tag 24 (0xd818) over the bstr holding the transcript.
  return Buffer.concat([Buffer.from('d818', 'hex'), encode(transcript)])
}

/** The request object a wallet fetches from request_uri. */
export async function requestObject(created: Json): Promise<Json> {
  const res = await fetch(created.request_uri)
  assert.equal(res.status, 200)
  return jose.decodeJwt(await res.text()) as Json
}

/** The facts of a request as the wallet reads them (the thumbprint: RFC 7638 of the announced encryption key). */
export async function handoverOf(request: Json): Promise<Handover> {
  const key = request.response_mode === 'direct_post.jwt' ? request.client_metadata.jwks.keys[0] : undefined
  return {
    clientId: request.client_id,
    nonce: request.nonce,
    responseUri: request.response_uri,
    thumbprint: key ? Buffer.from(await jose.calculateJwkThumbprint(key, 'sha256'), 'base64url') : null,
  }
}

/** A DeviceResponse @auth0/mdl builds and signs with the holder's key, disclosing `elements`, base64url. */
export function deviceResponse(
  holder: WalletKey,
  mdoc: Buffer | { foreign: string },
  h: Handover,
  options: { doctype?: string; namespace?: string; elements: string[] },
): Promise<string> {
  const doctype = options.doctype ?? MDL_DOCTYPE
  return auth0Wallet({
    kind: 'present',
    mdoc: Buffer.isBuffer(mdoc) ? asMdoc(mdoc, doctype).toString('base64url') : mdoc.foreign,
    doctype,
    namespace: options.namespace ?? MDL_NAMESPACE,
    elements: options.elements,
    transcript: sessionTranscriptBytes(h).toString('base64url'),
    deviceJwk: holder.privateJwk as jose.JWK,
  })
}

/** The id of the request's mso_mdoc credential query. */
export const mdocQueryId = (request: Json) =>
  (request.dcql_query.credentials as Json[]).find((c) => c.format === 'mso_mdoc')!.id as string

/** Posts vp_token = {query id: [DeviceResponse]} to the response_uri, over direct_post or encrypted (direct_post.jwt). */
export async function postMdocAnswer(request: Json, presentation: string): Promise<{ status: number; body: Json }> {
  const vpToken = { [mdocQueryId(request)]: [presentation] }
  let form: Record<string, string>
  if (request.response_mode === 'direct_post.jwt') {
    const key = request.client_metadata.jwks.keys[0] as jose.JWK
    const enc = request.client_metadata.encrypted_response_enc_values_supported[0] as string
    const response = await new jose.CompactEncrypt(
      new TextEncoder().encode(JSON.stringify({ vp_token: vpToken, state: request.state })),
    )
      .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: key.kid! })
      .encrypt(await jose.importJWK(key, 'ECDH-ES'))
    form = { response }
  } else form = { vp_token: JSON.stringify(vpToken), state: request.state }
  const res = await fetch(request.response_uri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json }
}
