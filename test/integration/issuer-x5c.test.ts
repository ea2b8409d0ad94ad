/**
 * The issuer's X.509 leaves beside the mdoc chain (docs/certificates.md): the `credential` leaf
 * whose key signs SD-JWT VCs (SD-JWT VC §3.5 `x5c`, its SAN naming `iss`) and the `metadata` leaf
 * whose key signs `signed_metadata` (OID4VCI 1.0 §12.2.3). Checked as a wallet would, with jose,
 * @peculiar/x509 and node:crypto's X509Certificate against the IACA root of the public listing;
 * credentials come over OpenID4VCI through the HTTPS front.
 */
import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import * as x509 from '@peculiar/x509'
import * as jose from 'jose'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import { ManualClock, type TestApp } from '../helpers/test-app.js'

// Decoded JSON read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
interface Listed {
  use: string
  pem: string
  status: string
}

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [{ name: 'member', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

const certOf = (b64: string) => new X509Certificate(Buffer.from(b64, 'base64'))
const spki = (cert: X509Certificate) => cert.publicKey.export({ type: 'spki', format: 'der' }).toString('hex')

/**
 * What a wallet checks of a JWS carrying `x5c` (RFC 7515 §4.1.6, SD-JWT VC §3.5): the leaf's key
 * verifies it, the leaf is issued and signed by the trusted root, is valid at `at`, and its SAN names
 * `iss` as a URI. Answers the payload and the leaf.
 */
async function verifyWithX5c(jws: string, root: X509Certificate, typ: string, at: Date) {
  const header = jose.decodeProtectedHeader(jws)
  assert.equal(header.typ, typ)
  assert.ok(Array.isArray(header.x5c) && header.x5c.length === 1, 'x5c holds the leaf only, not the root')
  const leaf = certOf(header.x5c[0]!)
  assert.notEqual(spki(leaf), spki(root))
  assert.ok(leaf.checkIssued(root) && leaf.verify(root.publicKey), 'the leaf chains to the IACA')
  assert.ok(new Date(leaf.validFrom) <= at && at < new Date(leaf.validTo), 'the leaf is valid then')
  const key = await jose.importX509(leaf.toString(), 'ES256')
  const { payload } = await jose.compactVerify(jws, key)
  const claims = JSON.parse(new TextDecoder().decode(payload)) as Json
  assert.ok(
    leaf.subjectAltName?.split(', ').includes(`URI:${claims.iss}`),
    `the leaf's SAN ${leaf.subjectAltName} names iss ${claims.iss}`,
  )
  return { claims, leaf, header }
}

describe('issuer certificates: credential and metadata leaves, x5c, signed_metadata', () => {
  let front: HttpsFront
  let t: TestApp
  let schemaId: string
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()

  before(async () => ({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Club', SCHEMA, { clock })))
  after(() => closeHttpsIssuer({ front, t }))

  const listing = async (): Promise<Listed[]> => {
    const res = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().certificates
  }
  const activeOf = (certs: Listed[], use: string) => {
    const found = certs.filter((c) => c.use === use && c.status === 'active')
    assert.equal(found.length, 1, `one active ${use}`)
    return new X509Certificate(found[0]!.pem)
  }
  const receive = async () => {
    const created = await makeOffer(t, issuer, {
      credential_type: 'Membership',
      schema_id: schemaId,
      attributes: { member: 'Ada' },
      format: 'dc+sd-jwt',
    })
    const wallet = await IssuanceWallet.create(['ES256'])
    const { resolved, answer } = await wallet.receive(created.credential_offer_uri)
    assert.ok(answer.ok, JSON.stringify(answer))
    const sdJwt = (answer.credentialResponse.credentials as Json[])[0]!.credential as string
    return { sdJwt, jws: sdJwt.split('~')[0]!, issuerUrl: resolved.metadata.credentialIssuer.credential_issuer }
  }

  it('lists iaca, document_signer, credential and metadata; the leaves are end entities of the IACA naming the issuer', async () => {
    const certs = await listing()
    assert.deepEqual(new Set(certs.map((c) => c.use)), new Set(['iaca', 'document_signer', 'credential', 'metadata']))
    const iaca = activeOf(certs, 'iaca')
    const issuerUrl = `${front.origin}/issuers/`
    for (const use of ['credential', 'metadata']) {
      const leaf = activeOf(certs, use)
      assert.ok(leaf.checkIssued(iaca) && leaf.verify(iaca.publicKey), `${use} is issued by the IACA`)
      assert.equal(leaf.ca, false)
      const parsed = new x509.X509Certificate(leaf.raw)
      const usage = parsed.getExtension(x509.KeyUsagesExtension)!
      assert.equal(usage.usages, x509.KeyUsageFlags.digitalSignature, `${use}: digitalSignature only`)
      assert.equal(usage.critical, true)
      assert.equal(parsed.getExtension(x509.BasicConstraintsExtension)?.ca, false)
      const names = leaf.subjectAltName!.split(', ')
      assert.ok(
        names.some((n) => n.startsWith(`URI:${issuerUrl}`)),
        leaf.subjectAltName,
      )
      // URI only: a dNSName would match every issuer on this host (SD-JWT VC §3.5 accepts either).
      assert.equal(names.length, 1, leaf.subjectAltName)
      assert.ok(new Date(leaf.validTo) <= new Date(iaca.validTo))
    }
    assert.notEqual(spki(activeOf(certs, 'credential')), spki(activeOf(certs, 'metadata')))
  })

  it('an SD-JWT VC carries x5c: its leaf verifies it, chains to the listed IACA and names iss; kid still resolves', async () => {
    const { jws, issuerUrl } = await receive()
    const certs = await listing()
    const { claims, leaf, header } = await verifyWithX5c(jws, activeOf(certs, 'iaca'), 'dc+sd-jwt', clock.now())
    assert.equal(claims.iss, issuerUrl)
    assert.equal(spki(leaf), spki(activeOf(certs, 'credential')))
    // JWT VC Issuer Metadata (SD-JWT VC §3.5's other path) lists the same key under the header's kid.
    const url = new URL(issuerUrl)
    const metadata = (await (await fetch(`${url.origin}/.well-known/jwt-vc-issuer${url.pathname}`)).json()) as Json
    assert.equal(metadata.issuer, issuerUrl)
    const jwk = metadata.jwks.keys.find((k: Json) => k.kid === header.kid)
    assert.ok(jwk, `the issuer metadata lists ${header.kid}`)
    await jose.compactVerify(jws, await jose.importJWK(jwk, 'ES256'))
  })

  it('signed_metadata is a JWT of the metadata leaf, chained to the IACA, whose claims are the metadata', async () => {
    const [, , webId] = new URL((await receive()).issuerUrl).pathname.split('/')
    const res = await fetch(`${front.origin}/.well-known/openid-credential-issuer/issuers/${webId}`)
    assert.equal(res.status, 200)
    const { signed_metadata: signed, ...metadata } = (await res.json()) as Json
    assert.equal(typeof signed, 'string')
    const certs = await listing()
    const { claims, leaf } = await verifyWithX5c(
      signed,
      activeOf(certs, 'iaca'),
      'openidvci-issuer-metadata+jwt',
      clock.now(),
    )
    assert.equal(spki(leaf), spki(activeOf(certs, 'metadata')))
    const { iss, sub, iat, ...parameters } = claims
    assert.equal(sub, metadata.credential_issuer)
    assert.equal(iss, metadata.credential_issuer)
    assert.ok(typeof iat === 'number' && Math.abs(iat - clock.now().getTime() / 1000) < 60)
    assert.deepEqual(parameters, metadata)
    // §12.2.2: asked for application/jwt, the endpoint answers the signed form itself.
    const asJwt = await fetch(`${front.origin}/.well-known/openid-credential-issuer/issuers/${webId}`, {
      headers: { accept: 'application/jwt' },
    })
    assert.equal(asJwt.status, 200)
    assert.match(String(asJwt.headers.get('content-type')), /^application\/jwt/)
    const jwt = await asJwt.text()
    const again = await verifyWithX5c(jwt, activeOf(certs, 'iaca'), 'openidvci-issuer-metadata+jwt', clock.now())
    assert.equal(again.claims.sub, metadata.credential_issuer)
    // The credential leaf's key cannot stand in for the metadata key.
    await assert.rejects(
      jose.compactVerify(signed, await jose.importX509(activeOf(certs, 'credential').toString(), 'ES256')),
    )
  })

  it('a new signing key gets a new credential leaf; the old leaf stays listed, retired, and its credentials verify', async () => {
    const before = await receive()
    const kid = String(jose.decodeProtectedHeader(before.jws).kid)
    // The key store retires the key as a module's rotation does; the next use makes a new one.
    await t.app.keys.retire(kid.slice(kid.indexOf('#') + 1))
    clock.advance(61_000) // past the signer caches
    const certs = await listing()
    const iaca = activeOf(certs, 'iaca')
    const old = await verifyWithX5c(before.jws, iaca, 'dc+sd-jwt', clock.now())
    const current = activeOf(certs, 'credential')
    assert.notEqual(spki(old.leaf), spki(current), 'the new key has its own leaf')
    assert.ok(current.checkIssued(iaca) && current.verify(iaca.publicKey))
    const retired = certs.filter((c) => c.use === 'credential' && c.status === 'retired')
    assert.ok(retired.some((c) => new X509Certificate(c.pem).fingerprint256 === old.leaf.fingerprint256))
    // A leaf does not verify what another key signed: the old JWS under the new leaf's key fails.
    await assert.rejects(jose.compactVerify(before.jws, await jose.importX509(current.toString(), 'ES256')))
  })

  it('renews the leaves 30 days before their end, like the Document Signer; what the old ones signed still verifies', async () => {
    const issued = await receive()
    const first = await listing()
    const credential = activeOf(first, 'credential')
    const metadata = activeOf(first, 'metadata')
    clock.advance(new Date(credential.validTo).getTime() - clock.now().getTime() - 31 * 86_400_000)
    const early = await listing()
    assert.equal(activeOf(early, 'credential').fingerprint256, credential.fingerprint256, '31 days before: kept')
    clock.advance(2 * 86_400_000)
    const renewed = await listing()
    const iaca = activeOf(renewed, 'iaca')
    const newCredential = activeOf(renewed, 'credential')
    assert.notEqual(newCredential.fingerprint256, credential.fingerprint256)
    assert.equal(spki(newCredential), spki(credential), 'the credential leaf certifies the same signing key')
    assert.notEqual(spki(activeOf(renewed, 'metadata')), spki(metadata), 'the metadata leaf comes with a new key')
    for (const old of [credential, metadata])
      assert.ok(
        renewed.some((c) => c.status === 'retired' && new X509Certificate(c.pem).fingerprint256 === old.fingerprint256),
      )
    // The credential issued before still verifies with the leaf it carries, against the same IACA.
    await verifyWithX5c(issued.jws, iaca, 'dc+sd-jwt', clock.now())
  })
})
