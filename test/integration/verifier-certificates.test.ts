/**
 * Verifiers' access certificates over HTTP (docs/adr/0044-verifier-certificates.md): the public
 * listing and the chain made on first use (root, and an access certificate naming the service's
 * host as dNSName), renewal by the clock and on request, an access certificate imported from an
 * outside CA with its intermediate, and one certified from the service's CSR; refusals and
 * ownership. The outside CA is played with @peculiar/x509 on WebCrypto; what comes back is read
 * with node:crypto's X509Certificate.
 */
import assert from 'node:assert/strict'
import { createHash, webcrypto, X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import * as x509 from '@peculiar/x509'
import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

x509.cryptoProvider.set(webcrypto as typeof globalThis.crypto)

interface Listed {
  use: 'root' | 'intermediate' | 'access'
  pem: string
  not_before: string
  not_after: string
  status: 'active' | 'retired'
}

const DAY_MS = 86_400_000
const HOST = 'service.test'
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
const newKeys = () =>
  webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]) as Promise<webcrypto.CryptoKeyPair>

type Ca = { keys: webcrypto.CryptoKeyPair; cert: x509.X509Certificate; pem: string }

async function outsideRoot(notBefore: Date): Promise<Ca> {
  const keys = await newKeys()
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Outside Access Root',
    notBefore,
    notAfter: new Date(notBefore.getTime() + 3650 * DAY_MS),
    signingAlgorithm: ECDSA,
    keys,
    extensions: [new x509.BasicConstraintsExtension(true, 1, true)],
  })
  return { keys, cert, pem: cert.toString('pem') }
}

async function issue(
  ca: Ca,
  subject: string,
  publicKey: x509.PublicKeyType,
  options: { notBefore: Date; days?: number; ca?: boolean },
): Promise<Ca & { pem: string }> {
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: ca.cert.subject,
    notBefore: options.notBefore,
    notAfter: new Date(options.notBefore.getTime() + (options.days ?? 365) * DAY_MS),
    signingAlgorithm: ECDSA,
    publicKey,
    signingKey: ca.keys.privateKey,
    extensions: options.ca
      ? [new x509.BasicConstraintsExtension(true, 0, true)]
      : [
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'rp.example' }]),
        ],
  })
  return { keys: ca.keys, cert, pem: cert.toString('pem') }
}

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')
}

const list = async (app: FastifyInstance, did: string): Promise<Listed[]> => {
  const res = await app.inject({ method: 'GET', url: `/api/verifier/${did}/certificates` })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().certificates
}
const active = (certs: Listed[], use: Listed['use']) => {
  const found = certs.filter((c) => c.use === use && c.status === 'active')
  assert.equal(found.length, 1, `one active ${use}`)
  return found[0]!
}
const dnsNames = (pem: string) =>
  new x509.X509Certificate(pem)
    .getExtension(x509.SubjectAlternativeNameExtension)
    ?.names.items.filter((n) => n.type === 'dns')
    .map((n) => n.value) ?? []

class Verifier extends DidClient {
  token = ''
  async setUp(app: FastifyInstance, name: string): Promise<this> {
    this.token = await this.login(app)
    const res = await app.inject({
      method: 'POST',
      url: '/api/verifier',
      headers: bearer(this.token),
      payload: { name, description: 'verifier certificates test' },
    })
    assert.equal(res.statusCode, 201, res.body)
    return this
  }
  post(app: FastifyInstance, path: string, payload?: object) {
    return app.inject({
      method: 'POST',
      url: `/api/verifier/${this.did}/certificates${path}`,
      headers: bearer(this.token),
      ...(payload ? { payload } : {}),
    })
  }
}

describe('verifier access certificates', () => {
  let t: TestApp
  const clock = new ManualClock()
  const verifierA = new Verifier()
  const verifierB = new Verifier()

  before(async () => {
    t = await createTestApp({ clock })
    await verifierA.setUp(t.app, 'Verifier A')
    await verifierB.setUp(t.app, 'Verifier B')
  })
  after(() => t.close())

  it('the public listing makes a root and an access certificate naming the host, then answers the same', async () => {
    const first = await list(t.app, verifierA.did)
    assert.equal(first.length, 2)
    const root = new X509Certificate(active(first, 'root').pem)
    const access = new X509Certificate(active(first, 'access').pem)
    assert.ok(root.ca && access.checkIssued(root) && access.verify(root.publicKey))
    assert.ok(!access.ca)
    assert.deepEqual(dnsNames(access.toString()), [HOST])
    assert.match(access.subject, /CN=Verifier A Verifier Access/)
    const usages = new x509.X509Certificate(access.raw).getExtension(x509.KeyUsagesExtension)!
    assert.equal(usages.usages, x509.KeyUsageFlags.digitalSignature)
    assert.deepEqual(await list(t.app, verifierA.did), first)
    // The signer the request objects use: the access key and x5c of the access certificate alone (no root).
    const signer = await t.app.verifierAccess.accessSigner(verifierA.did)
    assert.deepEqual(signer.x5c, [access.raw.toString('base64')])
    assert.ok(access.checkPrivateKey(signer.privateKey))
    assert.deepEqual(signer.dnsNames, [HOST])
    const stored = await t.app.keys.list(verifierA.did)
    for (const purpose of ['verifier-root', 'verifier-access'])
      assert.equal(stored.filter((k) => k.purpose === purpose && k.status === 'active').length, 1, purpose)
  })

  it('a DID with no verifier profile and no certificates is 404; a signed-in one without a profile gets a chain on use', async () => {
    const stranger = new DidClient()
    const res = await t.app.inject({ method: 'GET', url: `/api/verifier/${stranger.did}/certificates` })
    assert.equal(res.statusCode, 404, res.body)
    assert.equal((await t.app.keys.list(stranger.did)).length, 0, 'the public route makes no key for strangers')
    const signer = await t.app.verifierAccess.accessSigner(stranger.did)
    assert.equal(signer.x5c.length, 1)
    assert.match(new X509Certificate(Buffer.from(signer.x5c[0]!, 'base64')).subject, /CN=Verifier Verifier Access/)
    assert.equal((await list(t.app, stranger.did)).length, 2)
  })

  it('concurrent first uses end with one root and one access certificate', async () => {
    const v = await new Verifier().setUp(t.app, 'Racing verifier')
    await Promise.all([
      ...[1, 2, 3].map(() => t.app.verifierAccess.accessSigner(v.did)),
      ...[1, 2, 3].map(() => list(t.app, v.did)),
    ])
    const final = await list(t.app, v.did)
    assert.equal(final.length, 2, JSON.stringify(final.map((c) => [c.use, c.status])))
  })

  it('rotate makes a new access certificate and key from the same root; the old one stays listed, retired', async () => {
    const before = await list(t.app, verifierA.did)
    const res = await verifierA.post(t.app, '/rotate')
    assert.equal(res.statusCode, 201, res.body)
    const after = await list(t.app, verifierA.did)
    assert.equal(after.length, 3)
    assert.equal(active(after, 'root').pem, active(before, 'root').pem)
    assert.equal(after.find((c) => c.pem === active(before, 'access').pem)!.status, 'retired')
    assert.equal(res.json().certificate.pem, active(after, 'access').pem)
    const signer = await t.app.verifierAccess.accessSigner(verifierA.did)
    assert.ok(new X509Certificate(active(after, 'access').pem).checkPrivateKey(signer.privateKey))
    assert.ok(!new X509Certificate(active(before, 'access').pem).checkPrivateKey(signer.privateKey))
  })

  it('an access certificate near its end is renewed at its next use', async () => {
    const v = await new Verifier().setUp(t.app, 'Aging verifier')
    const first = active(await list(t.app, v.did), 'access')
    clock.advance(340 * DAY_MS)
    try {
      const later = await list(t.app, v.did)
      assert.notEqual(active(later, 'access').pem, first.pem)
      assert.equal(later.find((c) => c.pem === first.pem)!.status, 'retired')
    } finally {
      clock.advance(-340 * DAY_MS)
    }
  })

  it('imports an outside CA access certificate with its key and chain; x5c carries it and the intermediate', async () => {
    const v = await new Verifier().setUp(t.app, 'Imported verifier')
    const now = clock.now()
    const root = await outsideRoot(now)
    const midKeys = await newKeys()
    const intermediate = await issue(root, 'CN=Outside Intermediate', midKeys.publicKey, {
      notBefore: now,
      days: 1000,
      ca: true,
    })
    const leafKeys = await newKeys()
    const leaf = await issue({ ...intermediate, keys: midKeys }, 'CN=Imported RP', leafKeys.publicKey, {
      notBefore: now,
    })
    const key = await pkcs8Pem(leafKeys.privateKey)
    const chain = [intermediate.pem, root.pem]

    // Refusals first: nothing changes.
    const other = await newKeys()
    const cases: Array<[object, number, RegExp]> = [
      [{ certificate_pem: 'nope', private_key_pem: key, chain_pems: chain }, 400, /certificate_pem/],
      [
        { certificate_pem: leaf.pem, private_key_pem: await pkcs8Pem(other.privateKey), chain_pems: chain },
        422,
        /private key does not match/,
      ],
      [{ certificate_pem: leaf.pem, private_key_pem: key, chain_pems: [root.pem] }, 422, /not issued and signed/],
      [{ certificate_pem: leaf.pem, private_key_pem: key, chain_pems: [intermediate.pem] }, 422, /self-signed root/],
    ]
    for (const [body, status, message] of cases) {
      const res = await v.post(t.app, '/access', body)
      assert.equal(res.statusCode, status, res.body)
      assert.match(res.json().message, message)
    }
    const expired = await issue({ ...intermediate, keys: midKeys }, 'CN=Old RP', leafKeys.publicKey, {
      notBefore: new Date(now.getTime() - 400 * DAY_MS),
    })
    const old = await v.post(t.app, '/access', {
      certificate_pem: expired.pem,
      private_key_pem: key,
      chain_pems: chain,
    })
    assert.equal(old.statusCode, 422, old.body)
    assert.match(old.json().message, /not valid now/)

    const res = await v.post(t.app, '/access', { certificate_pem: leaf.pem, private_key_pem: key, chain_pems: chain })
    assert.equal(res.statusCode, 201, res.body)
    const again = await v.post(t.app, '/access', { certificate_pem: leaf.pem, private_key_pem: key, chain_pems: chain })
    assert.equal(again.statusCode, 201, 'the active certificate imported again is answered unchanged')
    const listed = await list(t.app, v.did)
    assert.equal(
      new X509Certificate(active(listed, 'root').pem).fingerprint256,
      new X509Certificate(root.pem).fingerprint256,
    )
    assert.equal(
      new X509Certificate(active(listed, 'access').pem).fingerprint256,
      new X509Certificate(leaf.pem).fingerprint256,
    )
    assert.equal(
      new X509Certificate(active(listed, 'intermediate').pem).fingerprint256,
      new X509Certificate(intermediate.pem).fingerprint256,
    )
    const signer = await t.app.verifierAccess.accessSigner(v.did)
    assert.deepEqual(
      signer.x5c.map((b) => createHash('sha256').update(Buffer.from(b, 'base64')).digest('hex')),
      [leaf, intermediate].map((c) => createHash('sha256').update(Buffer.from(c.cert.rawData)).digest('hex')),
    )
    assert.deepEqual(signer.dnsNames, ['rp.example'])
    // An outside CA's certificate is not renewed here.
    const rotate = await v.post(t.app, '/rotate')
    assert.equal(rotate.statusCode, 409, rotate.body)
  })

  it('certifies the key of the service CSR: the request names the host; another key or no pending CSR is refused', async () => {
    const v = await new Verifier().setUp(t.app, 'CSR verifier')
    const none = await v.post(t.app, '/csr/certificate', { certificate_pem: 'x', chain_pems: ['y'] })
    assert.equal(none.statusCode, 400, none.body)
    const res = await v.post(t.app, '/csr')
    assert.equal(res.statusCode, 200, res.body)
    const csr = new x509.Pkcs10CertificateRequest(res.json().csr_pem)
    assert.ok(await csr.verify())
    assert.deepEqual(
      [...csr.extensions]
        .flatMap((e) => (e.type === '2.5.29.17' ? new x509.SubjectAlternativeNameExtension(e.rawData).names.items : []))
        .map((n) => n.value),
      [HOST],
    )
    const again = await v.post(t.app, '/csr')
    assert.equal(
      new x509.Pkcs10CertificateRequest(again.json().csr_pem).publicKey.rawData.byteLength,
      csr.publicKey.rawData.byteLength,
    )
    assert.deepEqual(
      Buffer.from(new x509.Pkcs10CertificateRequest(again.json().csr_pem).publicKey.rawData),
      Buffer.from(csr.publicKey.rawData),
      'the same pending key until a certificate comes back',
    )
    const now = clock.now()
    const root = await outsideRoot(now)
    const wrong = await issue(root, 'CN=Wrong', (await newKeys()).publicKey, { notBefore: now })
    const refused = await v.post(t.app, '/csr/certificate', { certificate_pem: wrong.pem, chain_pems: [root.pem] })
    assert.equal(refused.statusCode, 422, refused.body)
    assert.match(refused.json().message, /pending request/)
    const leaf = await issue(root, 'CN=CSR RP', await csr.publicKey.export(), { notBefore: now })
    const accepted = await v.post(t.app, '/csr/certificate', { certificate_pem: leaf.pem, chain_pems: [root.pem] })
    assert.equal(accepted.statusCode, 201, accepted.body)
    const signer = await t.app.verifierAccess.accessSigner(v.did)
    assert.ok(new X509Certificate(leaf.pem).checkPrivateKey(signer.privateKey))
    const later = await v.post(t.app, '/csr/certificate', { certificate_pem: wrong.pem, chain_pems: [root.pem] })
    assert.equal(later.statusCode, 409, 'no CSR pending once its key is certified')
  })

  it('ownership: the listing is public; no token 401, another verifier 403 on every write route', async () => {
    for (const path of ['/rotate', '/csr', '/access', '/csr/certificate']) {
      const url = `/api/verifier/${verifierA.did}/certificates${path}`
      const anonymous = await t.app.inject({ method: 'POST', url })
      assert.equal(anonymous.statusCode, 401, `${path}: ${anonymous.body}`)
      const other = await t.app.inject({ method: 'POST', url, headers: bearer(verifierB.token), payload: {} })
      assert.equal(other.statusCode, 403, `${path}: ${other.body}`)
    }
  })
})
