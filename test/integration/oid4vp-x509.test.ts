/**
 * X.509 client ids (OpenID4VP 1.0 §5.9.3): a request made with `client_id_prefix` x509_hash or
 * x509_san_dns is signed by the verifier's access certificate (x5c). A wallet written with jose,
 * fetch and node:crypto (test/helpers/oid4vc-wallet/x509-wallet.ts) verifies the request object
 * with x5c[0], chains it to the root listed at GET /api/verifier/:did/certificates, checks that
 * the client id names the certificate, and refuses one that names another; the service accepts
 * a KB-JWT bound to the client id and refuses one bound to another client id, consuming nothing.
 */
import assert from 'node:assert/strict'
import { createHash, webcrypto, X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { generateWalletKey, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import {
  fetchRequestObject,
  postResponse,
  presentSdJwt,
  readAuthorizationUri,
  RequestRefused,
  verifyX509Request,
} from '../helpers/oid4vc-wallet/x509-wallet.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Identity',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'email', data_type: 'email' },
  ],
  anonymous_credentials: false,
}
const ASKED = ['given_name', 'email']

describe('OpenID4VP with X.509 client ids (x509_hash, x509_san_dns)', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  const otherVerifier = new DidClient()
  let verifierToken: string
  let otherToken: string
  let schemaId: string
  let key: WalletKey
  let sdJwt: string
  let host: string

  const createRequest = async (body: Json, token = verifierToken, did = verifier.did) => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', token, {
      verifier_did: did,
      presentation_type: 'IdentityCheck',
      required_credentials: [{ credential_type: 'Identity', required_attributes: ASKED, format: 'dc+sd-jwt' }],
      purpose: 'Identity check',
      ...body,
    })
    return res
  }
  const created = async (body: Json) => {
    const res = await createRequest(body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  const certificates = async (did: string): Promise<Json[]> => {
    const res = await fetch(`${front.origin}/api/verifier/${did}/certificates`)
    assert.equal(res.status, 200)
    return ((await res.json()) as Json).certificates
  }
  const activeOf = (certs: Json[], use: string) => certs.find((c) => c.use === use && c.status === 'active')!.pem
  const view = async (id: string) =>
    (await callAs(t.app, 'GET', `/api/verifier/requests/${id}`, verifierToken)).json() as Json
  /** The wallet's whole walk: fetch, verify against the verifier's listed root, present with `aud`. */
  const answer = async (request: Json, aud?: string) => {
    const { clientId, requestUri } = readAuthorizationUri(request.authorization_request_uri)
    const fetched = await fetchRequestObject(requestUri)
    assert.equal(fetched.status, 200)
    const root = activeOf(await certificates(verifier.did), 'root')
    const payload = (await verifyX509Request(fetched.text, clientId, [root])) as Json
    const query = payload.dcql_query.credentials[0]
    const vp = await presentSdJwt(key, sdJwt, ASKED, { aud: aud ?? clientId, nonce: payload.nonce })
    return postResponse(payload.response_uri, { [query.id]: [vp] }, payload.state)
  }

  before(async () => {
    front = await HttpsFront.open()
    host = new URL(front.origin).hostname
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Registry')
    schemaId = await issuer.schema(t.app, SCHEMA)
    verifierToken = await verifier.login(t.app)
    otherToken = await otherVerifier.login(t.app)
    key = await generateWalletKey('ES256')
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: key.did,
      attributes: { given_name: 'Erika', email: 'erika@example.com' },
      format: 'dc+sd-jwt',
    })
    assert.equal(res.statusCode, 201, res.body)
    sdJwt = res.json().credential.jwt
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('x509_hash: the client id is the SHA-256 of the access certificate; the request object verifies with x5c; accepted', async () => {
    const request = await created({ client_id_prefix: 'x509_hash' })
    const access = new X509Certificate(activeOf(await certificates(verifier.did), 'access'))
    const hash = createHash('sha256').update(access.raw).digest('base64url')
    assert.equal(request.openid4vp.client_id, `x509_hash:${hash}`)
    assert.equal(readAuthorizationUri(request.authorization_request_uri).clientId, `x509_hash:${hash}`)
    const jwt = (await fetchRequestObject(request.request_uri)).text
    const header = jose.decodeProtectedHeader(jwt)
    assert.equal(header.alg, 'ES256')
    assert.equal(header.kid, undefined)
    assert.deepEqual(header.x5c, [access.raw.toString('base64')], 'the access certificate alone, not the root')
    const result = await answer(request)
    assert.equal(result.status, 200, JSON.stringify(result.body))
    const seen = await view(request.request.id)
    assert.equal(seen.request.status, 'verified')
    assert.equal(seen.openid4vp.client_id, `x509_hash:${hash}`)
  })

  it("x509_san_dns: the client id is the service's host, a dNSName of the access certificate; accepted", async () => {
    const request = await created({ client_id_prefix: 'x509_san_dns' })
    assert.equal(request.openid4vp.client_id, `x509_san_dns:${host}`)
    const result = await answer(request)
    assert.equal(result.status, 200, JSON.stringify(result.body))
    assert.equal((await view(request.request.id)).request.status, 'verified')
  })

  it('the wallet refuses a request object whose certificate is not the one the client id names', async () => {
    const request = await created({ client_id_prefix: 'x509_hash' })
    const jwt = (await fetchRequestObject(request.request_uri)).text
    const otherAccess = await createRequest({ client_id_prefix: 'x509_hash' }, otherToken, otherVerifier.did)
    assert.equal(otherAccess.statusCode, 201, otherAccess.body)
    const otherClientId = otherAccess.json().openid4vp.client_id as string
    // The same signed object offered under another verifier's x509_hash client id: the hash is not x5c[0]'s.
    await assert.rejects(verifyX509Request(jwt, otherClientId), RequestRefused)
    // The client id as the object states it, but x5c swapped for the other verifier's certificate: the signature fails.
    const otherX5c = jose.decodeProtectedHeader((await fetchRequestObject(otherAccess.json().request_uri)).text).x5c
    const [, body, signature] = jwt.split('.')
    const header = { ...jose.decodeProtectedHeader(jwt), x5c: otherX5c }
    const swapped = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${body}.${signature}`
    await assert.rejects(verifyX509Request(swapped, otherClientId))
    // And not to the other verifier's root: the chain is checked too.
    const otherRoot = activeOf(await certificates(otherVerifier.did), 'root')
    await assert.rejects(verifyX509Request(jwt, request.openid4vp.client_id, [otherRoot]), RequestRefused)
    // The x509_san_dns client id of the same certificate names no other host.
    await assert.rejects(verifyX509Request(jwt, 'x509_san_dns:rp.example'), RequestRefused)
  })

  it('the service refuses a KB-JWT bound to another client id, consuming nothing; the right one is then accepted', async () => {
    const request = await created({ client_id_prefix: 'x509_hash' })
    const others = [`x509_san_dns:${host}`, `x509_hash:${createHash('sha256').update('another').digest('base64url')}`]
    for (const aud of others) {
      const refused = await answer(request, aud)
      assert.equal(refused.status, 400, JSON.stringify(refused.body))
      assert.match(String(refused.body.error_description), /aud/)
    }
    const seen = await view(request.request.id)
    assert.equal(seen.request.status, 'pending')
    assert.equal(seen.openid4vp.refused_attempts.count, 2)
    assert.equal(seen.openid4vp.refused_attempts.recent[0].holder_proof_verified, false)
    const accepted = await answer(request)
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body))
  })

  it('x509_san_dns with an access certificate that does not name the host is 422; x509_hash still signs with it', async () => {
    const v = new DidClient()
    const token = await v.login(t.app)
    // An outside CA's certificate for rp.example, imported with its key and root.
    const x509 = await import('@peculiar/x509')
    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair
    const leafKeys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
    const now = new Date()
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=Registrar',
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000 * 365),
      signingAlgorithm: alg,
      keys,
      extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
    })
    const leaf = await x509.X509CertificateGenerator.create({
      subject: 'CN=RP',
      issuer: root.subject,
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000 * 30),
      signingAlgorithm: alg,
      publicKey: leafKeys.publicKey,
      signingKey: keys.privateKey,
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'rp.example' }])],
    })
    const pkcs8 = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey), 'PRIVATE KEY')
    const imported = await callAs(t.app, 'POST', `/api/verifier/${v.did}/certificates/access`, token, {
      certificate_pem: leaf.toString('pem'),
      private_key_pem: pkcs8,
      chain_pems: [root.toString('pem')],
    })
    assert.equal(imported.statusCode, 201, imported.body)
    const san = await createRequest({ client_id_prefix: 'x509_san_dns' }, token, v.did)
    assert.equal(san.statusCode, 422, san.body)
    assert.match(san.json().message, new RegExp(`names no dNSName ${host}`))
    const byHash = await createRequest({ client_id_prefix: 'x509_hash' }, token, v.did)
    assert.equal(byHash.statusCode, 201, byHash.body)
    const clientId = byHash.json().openid4vp.client_id
    const jwt = (await fetchRequestObject(byHash.json().request_uri)).text
    const payload = await verifyX509Request(jwt, clientId, [root.toString('pem')])
    assert.equal(
      payload.client_id,
      `x509_hash:${createHash('sha256').update(Buffer.from(leaf.rawData)).digest('base64url')}`,
    )
  })
})
