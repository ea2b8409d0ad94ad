/**
 * The certificates the service makes for an issuer, read by readers that share no code with it:
 * node:crypto's X509Certificate (OpenSSL bindings) and the openssl command line, against the
 * profiles of ISO/IEC 18013-5 Annex B.1.2 (IACA) and B.1.4 (Document Signer).
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createPublicKey, X509Certificate } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { DocumentSigner } from '../../src/modules/certificates/document-signer.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

const DAY_MS = 86_400_000
const dir = mkdtempSync(path.join(os.tmpdir(), 'certs-profile-'))
const file = (name: string, text: string) => {
  const p = path.join(dir, name)
  writeFileSync(p, text)
  return p
}
const openssl = (...args: string[]) => execFileSync('openssl', args, { encoding: 'utf8' })
/** The text of one extension in `openssl x509 -text`: its header line (with "critical") and its value. */
const extension = (text: string, name: string): { critical: boolean; value: string } => {
  const match = new RegExp(`X509v3 ${name}:( critical)? *\\n\\s+(.+)`).exec(text)
  assert.ok(match, `${name} missing from\n${text}`)
  return { critical: !!match[1], value: match[2]!.trim() }
}

describe('mdoc certificate profiles (ISO/IEC 18013-5 Annex B)', () => {
  let t: TestApp
  const clock = new ManualClock()
  const issuer = new IssuerActor()
  let signer: DocumentSigner
  let iacaPem: string
  let dsPem: string
  let iaca: X509Certificate
  let ds: X509Certificate

  before(async () => {
    t = await createTestApp({ clock })
    await issuer.setUp(t.app, 'Ministry of Tests')
    signer = await t.app.documentSigners.documentSigner(issuer.did)
    const res = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    assert.equal(res.statusCode, 200, res.body)
    const listed = res.json().certificates as { use: string; pem: string }[]
    iacaPem = listed.find((c) => c.use === 'iaca')!.pem
    dsPem = listed.find((c) => c.use === 'document_signer')!.pem
    iaca = new X509Certificate(iacaPem)
    ds = new X509Certificate(dsPem)
  })
  after(() => t.close())

  it('the IACA root is a self-signed CA, pathLen 0, keyCertSign + cRLSign, both critical (B.1.2)', () => {
    assert.equal(iaca.ca, true)
    assert.ok(iaca.checkIssued(iaca))
    assert.ok(iaca.verify(iaca.publicKey))
    assert.equal(iaca.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1')
    const text = openssl('x509', '-in', file('iaca.pem', iacaPem), '-noout', '-text')
    assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/)
    assert.deepEqual(extension(text, 'Basic Constraints'), { critical: true, value: 'CA:TRUE, pathlen:0' })
    assert.deepEqual(extension(text, 'Key Usage'), { critical: true, value: 'Certificate Sign, CRL Sign' })
    assert.match(extension(text, 'Subject Key Identifier').value, /^([0-9A-F]{2}:)+[0-9A-F]{2}$/)
    assert.match(iaca.subject, /^C=ZZ$/m)
    assert.match(iaca.subject, /^CN=Ministry of Tests IACA$/m)
    assert.equal(iaca.subject, iaca.issuer)
    const years = (Date.parse(iaca.validTo) - Date.parse(iaca.validFrom)) / (365 * DAY_MS)
    assert.ok(years > 9.9 && years <= 10.01, `IACA validity ${years} years`)
  })

  it('the Document Signer is issued by the IACA: digitalSignature, the mdoc DS EKU, AKI = IACA SKI (B.1.4)', () => {
    assert.equal(ds.ca, false)
    assert.ok(ds.checkIssued(iaca))
    assert.ok(ds.verify(iaca.publicKey))
    assert.ok(!ds.verify(ds.publicKey), 'not self-signed')
    // node names the extended key usages keyUsage.
    assert.deepEqual(ds.keyUsage, ['1.0.18013.5.1.2'])
    const text = openssl('x509', '-in', file('ds.pem', dsPem), '-noout', '-text')
    assert.deepEqual(extension(text, 'Key Usage'), { critical: true, value: 'Digital Signature' })
    assert.deepEqual(extension(text, 'Extended Key Usage'), { critical: true, value: '1.0.18013.5.1.2' })
    const iacaSki = extension(
      openssl('x509', '-in', file('iaca.pem', iacaPem), '-noout', '-text'),
      'Subject Key Identifier',
    )
    assert.equal(extension(text, 'Authority Key Identifier').value.replace(/^keyid:/, ''), iacaSki.value)
    assert.ok(extension(text, 'Subject Key Identifier').value !== iacaSki.value)
    assert.match(ds.subject, /^C=ZZ$/m, 'the same country as the IACA (B.1.4)')
    assert.match(ds.subject, /^CN=Ministry of Tests Document Signer$/m)
  })

  it('the Document Signer lies inside the root validity: one year from now', () => {
    const from = Date.parse(ds.validFrom)
    const to = Date.parse(ds.validTo)
    assert.ok(Math.abs(from - clock.now().getTime()) < 2000, `${ds.validFrom} vs ${clock.now().toISOString()}`)
    assert.ok(Math.abs(to - from - 365 * DAY_MS) < 2000)
    assert.ok(to <= Date.parse(iaca.validTo))
    assert.ok(from >= Date.parse(iaca.validFrom))
  })

  it('openssl verifies the chain strictly at the clock time', () => {
    const at = String(Math.floor(clock.now().getTime() / 1000) + 60)
    const out = openssl(
      'verify',
      '-x509_strict',
      '-attime',
      at,
      '-CAfile',
      file('iaca.pem', iacaPem),
      file('ds.pem', dsPem),
    )
    assert.match(out, /: OK/)
    // And a control: the DS is not a trust anchor for the IACA.
    assert.throws(() =>
      execFileSync('openssl', ['verify', '-attime', at, '-CAfile', file('ds.pem', dsPem), file('iaca.pem', iacaPem)], {
        stdio: 'pipe',
      }),
    )
  })

  it('documentSigner() answers the DS certificate as its chain and the private key it certifies', () => {
    assert.equal(signer.issuerDid, issuer.did)
    assert.equal(signer.chain.length, 1)
    assert.deepEqual(Buffer.from(signer.chain[0]!), ds.raw)
    assert.ok(ds.checkPrivateKey(signer.privateKey))
    const spki = (k: ReturnType<typeof createPublicKey>) => k.export({ type: 'spki', format: 'der' })
    assert.deepEqual(spki(createPublicKey(signer.privateKey)), spki(ds.publicKey))
  })

  it('hostedRoots() lists the IACA (DER) and not the Document Signer', async () => {
    const roots = (await t.app.documentSigners.hostedRoots()).map((r) => Buffer.from(r))
    assert.ok(roots.some((r) => r.equals(iaca.raw)))
    assert.ok(!roots.some((r) => r.equals(ds.raw)))
  })

  it('serial numbers are positive and carry at least 63 bits (Annex B, RFC 5280 §4.1.2.2)', () => {
    for (const c of [iaca, ds]) {
      assert.ok(c.serialNumber.length >= 16 && c.serialNumber.length <= 40, c.serialNumber)
      assert.ok(Number.parseInt(c.serialNumber.slice(0, 2), 16) < 0x80)
    }
    assert.notEqual(iaca.serialNumber, ds.serialNumber)
  })
})
