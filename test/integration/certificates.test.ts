/**
 * The issuers' mdoc certificates over HTTP (docs/certificates.md): the public listing and the
 * chain it makes on first use, concurrent first uses, renewal by the clock and on request, a
 * Document Signer imported from an outside IACA and one certified from the service's CSR. The
 * outside IACA is played here with @peculiar/x509 on WebCrypto; what comes back is read with
 * node:crypto's X509Certificate.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createPrivateKey, generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import * as x509 from '@peculiar/x509'
import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from '../helpers/did-client.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

x509.cryptoProvider.set(webcrypto as typeof globalThis.crypto)

type CryptoKeyPair = webcrypto.CryptoKeyPair
interface Listed {
  use: 'iaca' | 'document_signer'
  pem: string
  not_before: string
  not_after: string
  status: 'active' | 'retired'
}

const DAY_MS = 86_400_000
const DS_EKU = '1.0.18013.5.1.2'
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
const newKeys = () =>
  webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]) as Promise<CryptoKeyPair>

/** An IACA outside the service: a self-signed CA as Annex B.1.2 describes it. */
async function outsideIaca(notBefore: Date, days = 3650) {
  const keys = await newKeys()
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'C=UT, CN=Outside IACA',
    notBefore,
    notAfter: new Date(notBefore.getTime() + days * DAY_MS),
    signingAlgorithm: ECDSA,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  })
  return { keys, cert, pem: cert.toString('pem') }
}
type Iaca = Awaited<ReturnType<typeof outsideIaca>>

/** A Document Signer the outside IACA certifies (B.1.4), or a deviation of it. */
async function issueDs(
  iaca: Iaca,
  publicKey: x509.PublicKeyType,
  options: { notBefore: Date; days?: number; eku?: boolean },
): Promise<string> {
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'C=UT, CN=Outside Document Signer',
    issuer: iaca.cert.subject,
    notBefore: options.notBefore,
    notAfter: new Date(options.notBefore.getTime() + (options.days ?? 365) * DAY_MS),
    signingAlgorithm: ECDSA,
    publicKey,
    signingKey: iaca.keys.privateKey,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...(options.eku === false ? [] : [new x509.ExtendedKeyUsageExtension([DS_EKU], true)]),
      await x509.AuthorityKeyIdentifierExtension.create(iaca.keys.publicKey),
    ],
  })
  return cert.toString('pem')
}

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')
}

/** The mdoc chain of the listing (the credential and metadata leaves: issuer-leaf-certificates.test.ts). */
const list = async (app: FastifyInstance, did: string): Promise<Listed[]> => {
  const res = await app.inject({ method: 'GET', url: `/api/issuer/${did}/certificates` })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().certificates.filter((c: Listed) => c.use === 'iaca' || c.use === 'document_signer')
}
const active = (certs: Listed[], use: Listed['use']) => {
  const found = certs.filter((c) => c.use === use && c.status === 'active')
  assert.equal(found.length, 1, `one active ${use}`)
  return found[0]!
}
const post = (app: FastifyInstance, issuer: IssuerActor, path: string, payload?: object) =>
  app.inject({
    method: 'POST',
    url: `/api/issuer/${issuer.did}/certificates${path}`,
    headers: bearer(issuer.token),
    ...(payload ? { payload } : {}),
  })

describe('issuer mdoc certificates', () => {
  let t: TestApp
  const clock = new ManualClock()
  const issuerA = new IssuerActor()
  const issuerB = new IssuerActor()

  before(async () => {
    t = await createTestApp({ clock })
    await issuerA.setUp(t.app, 'Issuer A')
    await issuerB.setUp(t.app, 'Issuer B')
  })
  after(() => t.close())

  it('the public listing makes the chain on first use, then answers the same chain', async () => {
    const first = await list(t.app, issuerA.did)
    assert.equal(first.length, 2)
    const iaca = new X509Certificate(active(first, 'iaca').pem)
    const ds = new X509Certificate(active(first, 'document_signer').pem)
    assert.ok(ds.checkIssued(iaca) && ds.verify(iaca.publicKey))
    assert.equal(active(first, 'iaca').not_after, new Date(iaca.validTo).toISOString())
    assert.equal(active(first, 'document_signer').not_before, new Date(ds.validFrom).toISOString())
    assert.deepEqual(await list(t.app, issuerA.did), first)
    const signer = await t.app.documentSigners.documentSigner(issuerA.did)
    assert.deepEqual(Buffer.from(signer.chain[0]!), ds.raw)
    // Both keys are the key store's, sealed like every other (owner: the issuer profile's DID).
    const stored = await t.app.keys.list(issuerA.did)
    const byPurpose = (purpose: string) => stored.filter((k) => k.purpose === purpose && k.status === 'active')
    assert.equal(byPurpose('mdoc-iaca').length, 1)
    assert.equal(byPurpose('mdoc-document-signer').length, 1)
    const spki = (der: Uint8Array) => Buffer.from(der).toString('hex')
    const raw = async (kid: string) =>
      (await t.app.keys.signingKey(kid)).publicKeyObject.export({ type: 'spki', format: 'der' })
    assert.equal(
      spki(await raw(byPurpose('mdoc-iaca')[0]!.kid)),
      spki(iaca.publicKey.export({ type: 'spki', format: 'der' })),
    )
    assert.equal(
      spki(await raw(byPurpose('mdoc-document-signer')[0]!.kid)),
      spki(ds.publicKey.export({ type: 'spki', format: 'der' })),
    )
  })

  it('an unknown issuer is 404 with a message, for the listing and for documentSigner()', async () => {
    const stranger = new DidClient()
    const res = await t.app.inject({ method: 'GET', url: `/api/issuer/${stranger.did}/certificates` })
    assert.equal(res.statusCode, 404)
    assert.match(res.json().message, /Issuer not found/)
    await assert.rejects(t.app.documentSigners.documentSigner(stranger.did), /Issuer not found/)
    // A signed-in DID without an issuer profile: its own routes are 404 too.
    const token = await stranger.login(t.app)
    const csr = await t.app.inject({
      method: 'POST',
      url: `/api/issuer/${stranger.did}/certificates/csr`,
      headers: bearer(token),
    })
    assert.equal(csr.statusCode, 404, csr.body)
  })

  it('concurrent first uses end with one IACA and one Document Signer', async () => {
    const issuer = await new IssuerActor().setUp(t.app, 'Racing issuer')
    const [signers, listings] = await Promise.all([
      Promise.all([1, 2, 3].map(() => t.app.documentSigners.documentSigner(issuer.did))),
      Promise.all([1, 2, 3].map(() => list(t.app, issuer.did))),
    ])
    const final = await list(t.app, issuer.did)
    assert.equal(final.length, 2, JSON.stringify(final.map((c) => [c.use, c.status])))
    const dsDer = new X509Certificate(active(final, 'document_signer').pem).raw
    for (const s of signers) assert.deepEqual(Buffer.from(s.chain[0]!), dsDer)
    for (const l of listings) assert.deepEqual(l, final)
  })

  it('POST rotate makes a new Document Signer from the same IACA; the old one stays listed, retired', async () => {
    const before = await list(t.app, issuerA.did)
    const res = await post(t.app, issuerA, '/rotate')
    assert.equal(res.statusCode, 201, res.body)
    const after = await list(t.app, issuerA.did)
    assert.equal(after.length, 3)
    assert.equal(active(after, 'iaca').pem, active(before, 'iaca').pem)
    const oldDs = after.find((c) => c.pem === active(before, 'document_signer').pem)!
    assert.equal(oldDs.status, 'retired')
    const newDs = active(after, 'document_signer')
    assert.equal(res.json().certificate.pem, newDs.pem)
    const cert = new X509Certificate(newDs.pem)
    assert.ok(cert.verify(new X509Certificate(active(after, 'iaca').pem).publicKey))
    const signer = await t.app.documentSigners.documentSigner(issuerA.did)
    assert.deepEqual(Buffer.from(signer.chain[0]!), cert.raw)
    assert.ok(cert.checkPrivateKey(signer.privateKey))
    assert.ok(!new X509Certificate(oldDs.pem).checkPrivateKey(signer.privateKey), 'a new key, not a new certificate')
  })

  it('ownership: no token 401, another issuer 403 on every write route', async () => {
    for (const path of ['/rotate', '/csr', '/document-signer', '/csr/certificate']) {
      const url = `/api/issuer/${issuerA.did}/certificates${path}`
      const anonymous = await t.app.inject({ method: 'POST', url })
      assert.equal(anonymous.statusCode, 401, `${path}: ${anonymous.body}`)
      const other = await t.app.inject({ method: 'POST', url, headers: bearer(issuerB.token), payload: {} })
      assert.equal(other.statusCode, 403, `${path}: ${other.body}`)
    }
  })

  describe('import from an outside IACA', () => {
    let iaca: Iaca
    let dsKeys: CryptoKeyPair
    let dsPem: string
    let keyPem: string
    const refuse = async (body: object, status: number, message: RegExp) => {
      const res = await post(t.app, issuerB, '/document-signer', {
        certificate_pem: dsPem,
        private_key_pem: keyPem,
        iaca_pem: iaca.pem,
        ...body,
      })
      assert.equal(res.statusCode, status, res.body)
      assert.match(res.json().message, message)
    }

    before(async () => {
      await list(t.app, issuerB.did) // B starts with its own chain
      const now = clock.now()
      iaca = await outsideIaca(new Date(now.getTime() - DAY_MS))
      dsKeys = await newKeys()
      dsPem = await issueDs(iaca, dsKeys.publicKey, { notBefore: new Date(now.getTime() - DAY_MS) })
      keyPem = await pkcs8Pem(dsKeys.privateKey)
    })

    it('refuses what is not PEM: 400', async () => {
      await refuse({ certificate_pem: 'not a certificate' }, 400, /certificate_pem must be one PEM certificate/)
      await refuse(
        { iaca_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' },
        400,
        /iaca_pem is not a readable X.509 certificate/,
      )
      const sec1 = createPrivateKey(keyPem).export({ format: 'pem', type: 'sec1' }).toString()
      await refuse({ private_key_pem: sec1 }, 400, /PKCS#8/)
      const schema = await post(t.app, issuerB, '/document-signer', { certificate_pem: dsPem })
      assert.equal(schema.statusCode, 400, schema.body)
    })

    it('refuses a key that is not the certificate’s, or not P-256: 422', async () => {
      await refuse({ private_key_pem: await pkcs8Pem((await newKeys()).privateKey) }, 422, /private key does not match/)
      const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey
      await refuse({ private_key_pem: p384.export({ format: 'pem', type: 'pkcs8' }).toString() }, 422, /P-256/)
    })

    it('refuses a Document Signer of another IACA, without the DS usage, expired or outliving its root: 422', async () => {
      const now = clock.now()
      const other = await outsideIaca(new Date(now.getTime() - DAY_MS))
      await refuse({ iaca_pem: other.pem }, 422, /not issued and signed by the IACA/)
      // Same issuer name, another key: the name matches, the signature does not.
      const impostor = await outsideIaca(new Date(now.getTime() - DAY_MS))
      await refuse(
        { certificate_pem: await issueDs(impostor, dsKeys.publicKey, { notBefore: now }) },
        422,
        /not issued and signed/,
      )
      await refuse(
        { certificate_pem: await issueDs(iaca, dsKeys.publicKey, { notBefore: now, eku: false }) },
        422,
        /extended key usage 1\.0\.18013\.5\.1\.2/,
      )
      await refuse(
        {
          certificate_pem: await issueDs(iaca, dsKeys.publicKey, { notBefore: new Date(now.getTime() - 400 * DAY_MS) }),
        },
        422,
        /not valid now/,
      )
      const shortRoot = await outsideIaca(new Date(now.getTime() - DAY_MS), 100)
      await refuse(
        { certificate_pem: await issueDs(shortRoot, dsKeys.publicKey, { notBefore: now }), iaca_pem: shortRoot.pem },
        422,
        /outlives its IACA/,
      )
      const notCa = await issueDs(iaca, (await newKeys()).publicKey, { notBefore: now })
      await refuse({ iaca_pem: notCa }, 422, /not a CA certificate/)
    })

    it('nothing refused changed the listing', async () => {
      const certs = await list(t.app, issuerB.did)
      assert.equal(certs.length, 2)
      assert.ok(certs.every((c) => c.status === 'active' && c.pem !== dsPem.trim()))
    })

    it('accepts the chain: the outside IACA and the DS become active, the own ones retired', async () => {
      const before = await list(t.app, issuerB.did)
      const res = await post(t.app, issuerB, '/document-signer', {
        certificate_pem: dsPem,
        private_key_pem: keyPem,
        iaca_pem: iaca.pem,
      })
      assert.equal(res.statusCode, 201, res.body)
      const certs = await list(t.app, issuerB.did)
      assert.equal(certs.length, 4)
      const ds = new X509Certificate(active(certs, 'document_signer').pem)
      assert.deepEqual(ds.raw, new X509Certificate(dsPem).raw)
      assert.deepEqual(new X509Certificate(active(certs, 'iaca').pem).raw, new X509Certificate(iaca.pem).raw)
      for (const old of before) assert.equal(certs.find((c) => c.pem === old.pem)?.status, 'retired')
      const signer = await t.app.documentSigners.documentSigner(issuerB.did)
      assert.deepEqual(Buffer.from(signer.chain[0]!), ds.raw)
      assert.ok(ds.checkPrivateKey(signer.privateKey))
      const roots = (await t.app.documentSigners.hostedRoots()).map((r) => Buffer.from(r))
      assert.ok(roots.some((r) => r.equals(new X509Certificate(iaca.pem).raw)))

      // The same import again (a retry whose answer was lost) is answered unchanged: no new row.
      const again = await post(t.app, issuerB, '/document-signer', {
        certificate_pem: dsPem,
        private_key_pem: keyPem,
        iaca_pem: iaca.pem,
      })
      assert.equal(again.statusCode, 201, again.body)
      assert.deepEqual(new X509Certificate(again.json().certificate.pem).raw, ds.raw)
      assert.deepEqual(await list(t.app, issuerB.did), certs)
    })

    it('rotate cannot renew a Document Signer of an outside IACA: 409', async () => {
      const res = await post(t.app, issuerB, '/rotate')
      assert.equal(res.statusCode, 409, res.body)
      assert.match(res.json().message, /outside IACA/)
    })
  })

  describe('CSR to an outside IACA', () => {
    let issuer: IssuerActor
    let iaca: Iaca

    before(async () => {
      issuer = await new IssuerActor().setUp(t.app, 'CSR issuer')
      iaca = await outsideIaca(new Date(clock.now().getTime() - DAY_MS))
    })

    it('a certificate with no pending request is 409', async () => {
      const res = await post(t.app, issuer, '/csr/certificate', {
        certificate_pem: await issueDs(iaca, (await newKeys()).publicKey, { notBefore: clock.now() }),
        iaca_pem: iaca.pem,
      })
      assert.equal(res.statusCode, 409, res.body)
      assert.match(res.json().message, /No certificate request is pending/)
    })

    it('round trip: the CSR is signed, its key kept pending; the certificate back becomes the Document Signer', async () => {
      const res = await post(t.app, issuer, '/csr')
      assert.equal(res.statusCode, 200, res.body)
      const csr = new x509.Pkcs10CertificateRequest(res.json().csr_pem)
      assert.ok(await csr.verify())
      assert.match(csr.subject, /CN=CSR issuer Document Signer/)
      // Read by openssl too: its signature and the B.1.4 usages it asks for.
      const text = execFileSync('openssl', ['req', '-noout', '-text', '-verify'], {
        input: res.json().csr_pem,
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      assert.match(text, /X509v3 Key Usage: critical\s+Digital Signature/)
      assert.match(text, /X509v3 Extended Key Usage: critical\s+1\.0\.18013\.5\.1\.2/)
      // Asked again before an answer: the same pending key.
      const again = new x509.Pkcs10CertificateRequest((await post(t.app, issuer, '/csr')).json().csr_pem)
      assert.deepEqual(Buffer.from(again.publicKey.rawData), Buffer.from(csr.publicKey.rawData))

      const wrongKey = await issueDs(iaca, (await newKeys()).publicKey, { notBefore: clock.now() })
      const refused = await post(t.app, issuer, '/csr/certificate', { certificate_pem: wrongKey, iaca_pem: iaca.pem })
      assert.equal(refused.statusCode, 422, refused.body)
      assert.match(refused.json().message, /does not certify the key of the pending request/)
      const noEku = await issueDs(iaca, csr.publicKey, { notBefore: clock.now(), eku: false })
      const refusedEku = await post(t.app, issuer, '/csr/certificate', { certificate_pem: noEku, iaca_pem: iaca.pem })
      assert.equal(refusedEku.statusCode, 422, refusedEku.body)

      const signed = await issueDs(iaca, csr.publicKey, { notBefore: clock.now() })
      const accepted = await post(t.app, issuer, '/csr/certificate', { certificate_pem: signed, iaca_pem: iaca.pem })
      assert.equal(accepted.statusCode, 201, accepted.body)
      const certs = await list(t.app, issuer.did)
      const ds = new X509Certificate(active(certs, 'document_signer').pem)
      assert.deepEqual(ds.raw, new X509Certificate(signed).raw)
      const signer = await t.app.documentSigners.documentSigner(issuer.did)
      assert.ok(ds.checkPrivateKey(signer.privateKey))
      assert.deepEqual(Buffer.from(signer.chain[0]!), ds.raw)

      // Sent again (a retry), the active certificate is answered unchanged; the key is no longer pending, so a new CSR has a new key.
      const twice = await post(t.app, issuer, '/csr/certificate', { certificate_pem: signed, iaca_pem: iaca.pem })
      assert.equal(twice.statusCode, 201, twice.body)
      assert.deepEqual(await list(t.app, issuer.did), certs)
      const next = new x509.Pkcs10CertificateRequest((await post(t.app, issuer, '/csr')).json().csr_pem)
      assert.notDeepEqual(Buffer.from(next.publicKey.rawData), Buffer.from(csr.publicKey.rawData))
    })
  })
})

describe('Document Signer renewal by the clock', () => {
  let t: TestApp
  const clock = new ManualClock()
  const issuer = new IssuerActor()

  before(async () => {
    t = await createTestApp({ clock })
    await issuer.setUp(t.app, 'Clocked issuer')
  })
  after(() => t.close())

  it('renews 30 days before the end, not earlier; the IACA is kept, the old DS listed retired', async () => {
    const first = await list(t.app, issuer.did)
    const ds1 = active(first, 'document_signer')
    const end = Date.parse(ds1.not_after)
    clock.advance(end - clock.now().getTime() - 31 * DAY_MS)
    assert.deepEqual(await list(t.app, issuer.did), first, '31 days before the end: unchanged')
    clock.advance(2 * DAY_MS)
    const signer = await t.app.documentSigners.documentSigner(issuer.did)
    const renewed = await list(t.app, issuer.did)
    assert.equal(renewed.length, 3)
    assert.equal(renewed.find((c) => c.pem === ds1.pem)?.status, 'retired')
    const ds2 = active(renewed, 'document_signer')
    assert.equal(active(renewed, 'iaca').pem, active(first, 'iaca').pem)
    assert.deepEqual(Buffer.from(signer.chain[0]!), new X509Certificate(ds2.pem).raw)
    assert.ok(Math.abs(Date.parse(ds2.not_before) - clock.now().getTime()) < 2000)
    assert.ok(Date.parse(ds2.not_after) <= Date.parse(active(renewed, 'iaca').not_after))
  })

  it('near the IACA end a new IACA is made too, so no DS is cut short', async () => {
    const iaca1 = active(await list(t.app, issuer.did), 'iaca')
    clock.advance(Date.parse(iaca1.not_after) - clock.now().getTime() - 200 * DAY_MS)
    const certs = await list(t.app, issuer.did)
    const iaca2 = active(certs, 'iaca')
    assert.notEqual(iaca2.pem, iaca1.pem)
    assert.equal(certs.find((c) => c.pem === iaca1.pem)?.status, 'retired')
    const ds = new X509Certificate(active(certs, 'document_signer').pem)
    assert.ok(ds.verify(new X509Certificate(iaca2.pem).publicKey))
    assert.ok(Date.parse(ds.validTo) - clock.now().getTime() > 360 * DAY_MS)
  })
})
