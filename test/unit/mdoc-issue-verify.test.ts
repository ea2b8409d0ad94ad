/**
 * Issuing an mdoc and verifying it with this module: the round trip of values and status, and the
 * refusals (wrong doctype, a value that does not match its digest, expired, not yet valid, an
 * untrusted root or DS, no device signature, a device signature over another transcript, bytes
 * that are not an mdoc). Certificates are made in the test (test/helpers/mdoc-test-chain.ts).
 */
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { IssuerSigned, cborDecode, cborEncode } from '@owf/mdoc'
import { ValidationError } from '../../src/errors.js'
import { MDL_DOCTYPE, MDL_NAMESPACE } from '../../src/modules/credentials/formats/mdoc/mdoc-ids.js'
import { issueMdoc, type IssueMdocInput } from '../../src/modules/credentials/formats/mdoc/mdoc-issue.js'
import {
  createDeviceResponse,
  deviceSignatureToBeSigned,
} from '../../src/modules/credentials/formats/mdoc/mdoc-device-response.js'
import { verifyDeviceResponse, verifyIssuerSigned } from '../../src/modules/credentials/formats/mdoc/mdoc-verify.js'
import { sessionTranscriptBytes } from '../../src/modules/credentials/formats/mdoc/session-transcript.js'
import { makeTestChain, type TestChain } from '../helpers/mdoc-test-chain.js'

const DAY = 86_400_000
const reasons = (r: { problems: { reason: string }[] }) => r.problems.map((p) => p.reason)

describe('mdoc issuance and verification', () => {
  let chain: TestChain
  let device: { publicKey: KeyObject; privateKey: KeyObject }
  let transcript: Uint8Array
  let otherTranscript: Uint8Array
  const now = new Date()
  const signWithDevice = async (toBeSigned: Uint8Array) =>
    new Uint8Array(sign('sha256', toBeSigned, { key: device.privateKey, dsaEncoding: 'ieee-p1363' }))

  const issue = (over: Partial<IssueMdocInput> = {}) =>
    issueMdoc({
      doctype: MDL_DOCTYPE,
      namespaces: {
        [MDL_NAMESPACE]: {
          family_name: 'Jones',
          birth_date: '2007-03-25',
          portrait: 'data:image/jpeg;base64,/9j/4A==',
          driving_privileges: [{ vehicle_category_code: 'B', codes: [{ code: '01' }] }],
          age_over_18: true,
          height: 180,
        },
      },
      types: {
        [MDL_NAMESPACE]: { birth_date: 'date', portrait: 'file', driving_privileges: 'array', age_over_18: 'boolean' },
      },
      signer: { privateKey: chain.dsPrivateKey, chain: [chain.dsDer] },
      deviceKeyJwk: device.publicKey.export({ format: 'jwk' }) as Record<string, unknown>,
      validity: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 10 * DAY) },
      status: { uri: 'https://issuer.example/status/3', idx: 42 },
      ...over,
    })

  const present = async (issuerSigned: Uint8Array, st = transcript) =>
    (
      await createDeviceResponse({
        issuerSigned,
        disclose: [
          [MDL_NAMESPACE, 'family_name'],
          [MDL_NAMESPACE, 'birth_date'],
        ],
        sessionTranscript: st,
        sign: signWithDevice,
      })
    ).deviceResponse

  before(async () => {
    chain = await makeTestChain()
    device = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const params = { clientId: 'x509_san_dns:v.example', responseUri: 'https://v.example/r' }
    transcript = await sessionTranscriptBytes({ kind: 'oid4vp', ...params, nonce: 'a' })
    otherTranscript = await sessionTranscriptBytes({ kind: 'oid4vp', ...params, nonce: 'b' })
  })

  it('round-trips values, validity, status, device key and DS certificate', async () => {
    const { issuerSigned, base64url } = await issue()
    assert.equal(Buffer.from(issuerSigned).toString('base64url'), base64url)
    const r = await verifyIssuerSigned(base64url, { trustAnchors: [chain.iacaDer] })
    assert.deepEqual(r.problems, [])
    const doc = r.documents[0]
    assert.ok(doc)
    assert.deepEqual(doc.namespaces[MDL_NAMESPACE], {
      family_name: 'Jones',
      birth_date: '2007-03-25',
      portrait: Buffer.from('/9j/4A==', 'base64').toString('base64url'),
      driving_privileges: [{ vehicle_category_code: 'B', codes: [{ code: '01' }] }],
      age_over_18: true,
      height: 180,
    })
    assert.deepEqual(doc.status, { uri: 'https://issuer.example/status/3', idx: 42 })
    assert.equal(doc.validity.validFrom, new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString())
    const jwk = device.publicKey.export({ format: 'jwk' })
    assert.deepEqual(doc.deviceKeyJwk, { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y })
    assert.deepEqual(Buffer.from(doc.issuerCertificateDer), Buffer.from(chain.dsDer))
  })

  it('encodes a date as full-date (tag 1004) and a file as a byte string', async () => {
    const { issuerSigned } = await issue()
    const items = IssuerSigned.decode(issuerSigned).getIssuerNamespace(MDL_NAMESPACE) ?? []
    const raw = Buffer.from(issuerSigned)
    // RFC 8943: tag 1004 (0xd9 0x03 0xec) over a 10-character text string (0x6a) "2007-03-25"
    assert.ok(raw.includes(Buffer.concat([Buffer.from([0xd9, 0x03, 0xec, 0x6a]), Buffer.from('2007-03-25')])))
    // the portrait: a 4-byte byte string (0x44), not text
    assert.ok(raw.includes(Buffer.concat([Buffer.from([0x44]), Buffer.from('/9j/4A==', 'base64')])))
    assert.ok(items.find((i) => i.elementIdentifier === 'portrait')?.elementValue instanceof Uint8Array)
  })

  it('refuses bad input at issuance', async () => {
    await assert.rejects(
      issue({
        namespaces: { [MDL_NAMESPACE]: { birth_date: '25-03-2007' } },
        types: { [MDL_NAMESPACE]: { birth_date: 'date' } },
      }),
      ValidationError,
    )
    await assert.rejects(issue({ deviceKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'AA' } }), ValidationError)
    await assert.rejects(issue({ signer: { privateKey: chain.dsPrivateKey, chain: [] } }), ValidationError)
  })

  it('verifies a DeviceResponse of the asked elements only', async () => {
    const r = await verifyDeviceResponse(await present((await issue()).issuerSigned), {
      trustAnchors: [chain.iacaDer],
      sessionTranscript: transcript,
    })
    assert.deepEqual(r.problems, [])
    assert.deepEqual(r.documents[0]?.namespaces, {
      [MDL_NAMESPACE]: { family_name: 'Jones', birth_date: '2007-03-25' },
    })
  })

  it('refuses to disclose an element the credential does not have', async () => {
    const { issuerSigned } = await issue()
    await assert.rejects(
      createDeviceResponse({
        issuerSigned,
        disclose: [[MDL_NAMESPACE, 'nope']],
        sessionTranscript: transcript,
        sign: signWithDevice,
      }),
      ValidationError,
    )
  })

  it('refuses a document whose doctype differs from its MSO (device signature made for that doctype)', async () => {
    const raw = cborDecode<Map<string, unknown>>(await present((await issue()).issuerSigned))
    const doc = (raw.get('documents') as Map<string, unknown>[])[0] as Map<string, unknown>
    doc.set('docType', 'org.example.other')
    const deviceAuth = (doc.get('deviceSigned') as Map<string, unknown>).get('deviceAuth') as Map<string, unknown[]>
    ;(deviceAuth.get('deviceSignature') as unknown[])[3] = await signWithDevice(
      deviceSignatureToBeSigned('org.example.other', transcript),
    )
    const r = await verifyDeviceResponse(cborEncode(raw), {
      trustAnchors: [chain.iacaDer],
      sessionTranscript: transcript,
    })
    assert.deepEqual(reasons(r), ['malformed'])
    const alone = await verifyIssuerSigned((await issue()).issuerSigned, {
      trustAnchors: [chain.iacaDer],
      doctype: 'org.example.other',
    })
    assert.deepEqual(reasons(alone), ['malformed'])
  })

  it('refuses a value that does not match its digest', async () => {
    const { issuerSigned } = await issue()
    const item = IssuerSigned.decode(issuerSigned).getIssuerNamespace(MDL_NAMESPACE)?.[0]
    assert.ok(item)
    const at = Buffer.from(issuerSigned).indexOf(Buffer.from(item.random))
    const tampered = new Uint8Array(issuerSigned)
    tampered[at] = (tampered[at] as number) ^ 0xff
    const r = await verifyIssuerSigned(tampered, { trustAnchors: [chain.iacaDer] })
    assert.deepEqual(reasons(r), ['signature'])
    assert.match(r.problems[0]?.message ?? '', /digest/)
    assert.deepEqual(r.documents, [])
  })

  it('refuses an expired and a not yet valid MSO, within the skew only', async () => {
    const { issuerSigned } = await issue()
    const later = new Date(now.getTime() + 11 * DAY)
    assert.deepEqual(reasons(await verifyIssuerSigned(issuerSigned, { trustAnchors: [chain.iacaDer], now: later })), [
      'expired',
    ])
    const earlier = new Date(now.getTime() - 60_000)
    assert.deepEqual(reasons(await verifyIssuerSigned(issuerSigned, { trustAnchors: [chain.iacaDer], now: earlier })), [
      'not_yet_valid',
    ])
    assert.deepEqual(
      reasons(
        await verifyIssuerSigned(issuerSigned, { trustAnchors: [chain.iacaDer], now: earlier, skewSeconds: 120 }),
      ),
      [],
    )
  })

  it('refuses an untrusted root, a DS without the mdoc DS key usage, and an expired DS certificate', async () => {
    const { issuerSigned } = await issue()
    const other = await makeTestChain()
    assert.deepEqual(reasons(await verifyIssuerSigned(issuerSigned, { trustAnchors: [other.iacaDer] })), ['issuer'])
    assert.deepEqual(reasons(await verifyIssuerSigned(issuerSigned, { trustAnchors: [] })), ['issuer'])

    const wrongEku = await makeTestChain({ dsEku: '1.3.6.1.5.5.7.3.2' })
    const signedByWrong = await issue({ signer: { privateKey: wrongEku.dsPrivateKey, chain: [wrongEku.dsDer] } })
    assert.deepEqual(
      reasons(await verifyIssuerSigned(signedByWrong.issuerSigned, { trustAnchors: [wrongEku.iacaDer] })),
      ['issuer'],
    )

    const old = await makeTestChain({
      notBefore: new Date(now.getTime() - 20 * DAY),
      notAfter: new Date(now.getTime() - DAY),
    })
    const signedByOld = await issue({ signer: { privateKey: old.dsPrivateKey, chain: [old.dsDer] } })
    assert.deepEqual(reasons(await verifyIssuerSigned(signedByOld.issuerSigned, { trustAnchors: [old.iacaDer] })), [
      'issuer',
    ])
  })

  it('refuses a DeviceResponse without device signature', async () => {
    const raw = cborDecode<Map<string, unknown>>(await present((await issue()).issuerSigned))
    const doc = (raw.get('documents') as Map<string, unknown>[])[0] as Map<string, unknown>
    ;(doc.get('deviceSigned') as Map<string, unknown>).set('deviceAuth', new Map())
    const r = await verifyDeviceResponse(cborEncode(raw), {
      trustAnchors: [chain.iacaDer],
      sessionTranscript: transcript,
    })
    assert.deepEqual(reasons(r), ['binding'])
  })

  it('refuses a device signature made over another session transcript, or by another key', async () => {
    const { issuerSigned } = await issue()
    const r = await verifyDeviceResponse(await present(issuerSigned, otherTranscript), {
      trustAnchors: [chain.iacaDer],
      sessionTranscript: transcript,
    })
    assert.deepEqual(reasons(r), ['binding'])
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const { deviceResponse } = await createDeviceResponse({
      issuerSigned,
      disclose: [[MDL_NAMESPACE, 'family_name']],
      sessionTranscript: transcript,
      sign: async (tbs) => new Uint8Array(sign('sha256', tbs, { key: stranger.privateKey, dsaEncoding: 'ieee-p1363' })),
    })
    assert.deepEqual(
      reasons(
        await verifyDeviceResponse(deviceResponse, { trustAnchors: [chain.iacaDer], sessionTranscript: transcript }),
      ),
      ['binding'],
    )
  })

  it('reports unreadable and malformed input instead of throwing', async () => {
    const opts = { trustAnchors: [chain.iacaDer], sessionTranscript: transcript }
    assert.deepEqual(reasons(await verifyDeviceResponse('not base64url!', opts)), ['unreadable'])
    assert.deepEqual(reasons(await verifyDeviceResponse(new Uint8Array([0xff, 0x00]), opts)), ['unreadable'])
    assert.deepEqual(reasons(await verifyDeviceResponse(cborEncode(new Map([['version', 1]])), opts)), ['malformed'])
    assert.deepEqual(reasons(await verifyIssuerSigned(cborEncode([1, 2, 3]), opts)), ['malformed'])
  })
})
