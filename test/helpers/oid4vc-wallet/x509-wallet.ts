/**
 * The wallet's side of an X.509 client id (OpenID4VP 1.0 §5.9.3, §5.10), written with jose,
 * fetch, node:crypto and @sd-jwt/sd-jwt-vc only (nothing from the service, not @openid4vc):
 * fetch the request object (GET, or POST with wallet_metadata and wallet_nonce), verify its JWS
 * with the key of `x5c[0]`, the chain up `x5c` and, when given, to a trusted root; check that the
 * client id names that certificate (x509_hash: the base64url SHA-256 of its DER; x509_san_dns: a
 * dNSName of it); then present an SD-JWT VC with a KB-JWT and post the response.
 */
import { createHash, createPrivateKey, sign, X509Certificate } from 'node:crypto'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import type { WalletKey } from './wallet-keys.js'

type Json = Record<string, unknown>

const hasher = (data: string | ArrayBuffer, alg: string) =>
  new Uint8Array(
    createHash(alg.replace('-', '').toLowerCase())
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )

/** The request_uri and client_id of an `openid4vp://` URI. */
export function readAuthorizationUri(uri: string): { clientId: string; requestUri: string; method: string | null } {
  const params = new URL(uri).searchParams
  return {
    clientId: params.get('client_id')!,
    requestUri: params.get('request_uri')!,
    method: params.get('request_uri_method'),
  }
}

/** The request object at request_uri: GET, or POST form with wallet_metadata and wallet_nonce (§5.10.1). */
export async function fetchRequestObject(
  requestUri: string,
  post?: { walletNonce?: string; walletMetadata?: Json },
): Promise<{ status: number; contentType: string | null; text: string }> {
  const res = post
    ? await fetch(requestUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/oauth-authz-req+jwt' },
        body: new URLSearchParams({
          ...(post.walletNonce ? { wallet_nonce: post.walletNonce } : {}),
          ...(post.walletMetadata ? { wallet_metadata: JSON.stringify(post.walletMetadata) } : {}),
        }).toString(),
      })
    : await fetch(requestUri)
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() }
}

export class RequestRefused extends Error {}

/**
 * The wallet's check of a request object signed under an X.509 client id: the signature by
 * x5c[0], each certificate of x5c signed by the next, the last one signed by a trusted root
 * (when roots are given), and the client id naming x5c[0]. Throws RequestRefused otherwise.
 */
export async function verifyX509Request(jwt: string, clientId: string, trustedRoots: string[] = []): Promise<Json> {
  const header = jose.decodeProtectedHeader(jwt)
  if (header.typ !== 'oauth-authz-req+jwt') throw new RequestRefused(`typ ${String(header.typ)}`)
  if (!Array.isArray(header.x5c) || header.x5c.length === 0) throw new RequestRefused('no x5c')
  const chain = header.x5c.map((b64) => new X509Certificate(Buffer.from(b64, 'base64')))
  const leaf = chain[0]!
  const { payload } = await jose.jwtVerify(jwt, leaf.publicKey, { algorithms: ['ES256'] })
  for (let i = 0; i + 1 < chain.length; i++)
    if (!chain[i]!.verify(chain[i + 1]!.publicKey)) throw new RequestRefused(`x5c[${i}] not signed by x5c[${i + 1}]`)
  if (trustedRoots.length) {
    const top = chain[chain.length - 1]!
    const anchored = trustedRoots.some((pem) => {
      const root = new X509Certificate(pem)
      return top.checkIssued(root) && top.verify(root.publicKey)
    })
    if (!anchored) throw new RequestRefused('x5c does not chain to a trusted root')
  }
  if (payload.client_id !== clientId) throw new RequestRefused('client_id of the request object differs')
  const [prefix, value] = [clientId.slice(0, clientId.indexOf(':')), clientId.slice(clientId.indexOf(':') + 1)]
  if (prefix === 'x509_hash') {
    const hash = createHash('sha256').update(leaf.raw).digest('base64url')
    if (hash !== value) throw new RequestRefused('x509_hash: the client id is not the hash of x5c[0]')
  } else if (prefix === 'x509_san_dns') {
    if (leaf.checkHost(value, { subject: 'never' }) !== value)
      throw new RequestRefused('x509_san_dns: the client id is no dNSName of x5c[0]')
    // §5.9.3: without other trust in the client id, the response_uri's host must be the dNSName.
    if (new URL(String(payload.response_uri)).hostname !== value)
      throw new RequestRefused('x509_san_dns: response_uri is on another host')
  } else throw new RequestRefused(`not an X.509 client id: ${prefix}`)
  return payload as Json
}

/** An SD-JWT VC disclosing `claims`, with a KB-JWT (§B.3.5) carrying `aud`, `nonce` and any extra claims. */
export async function presentSdJwt(
  key: WalletKey,
  credential: string,
  claims: string[],
  kb: { aud: string; nonce: string; extra?: Json },
): Promise<string> {
  const privateKey = createPrivateKey({ key: key.privateJwk as never, format: 'jwk' })
  const holder = new SDJwtVcInstance({
    hasher,
    kbSignAlg: key.alg,
    kbSigner: async (data: string) =>
      (key.alg === 'ES256'
        ? sign('sha256', Buffer.from(data), { key: privateKey, dsaEncoding: 'ieee-p1363' })
        : sign(null, Buffer.from(data), privateKey)
      ).toString('base64url'),
  })
  const frame = Object.fromEntries(claims.map((name) => [name, true]))
  return holder.present(credential, frame, {
    kb: { payload: { iat: Math.floor(Date.now() / 1000), aud: kb.aud, nonce: kb.nonce, ...(kb.extra ?? {}) } as never },
  })
}

/** Posts a direct_post response (§8.2): vp_token as JSON, state. */
export async function postResponse(
  responseUri: string,
  vpToken: Record<string, string[]>,
  state: string,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(responseUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ vp_token: JSON.stringify(vpToken), state }).toString(),
  })
  return { status: res.status, body: (await res.json()) as Json }
}
