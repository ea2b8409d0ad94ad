/**
 * mdoc verification against bytes other implementations produced (../shared/fixtures/mdoc: Paradym,
 * Google CM wallet, French playground, Ubique, Bundesdruckerei). Each must verify at its
 * `verify_at` with only its trust anchor, and must be refused after one flipped byte of a signed
 * structure, at a date outside its validity, with another trust anchor, or over another transcript.
 */
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { X509Certificate, createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { DeviceResponse, IssuerSigned, cborDecode, cborEncode } from '@owf/mdoc'
import { verifyDeviceResponse, verifyIssuerSigned } from '../../src/modules/credentials/formats/mdoc/mdoc-verify.js'
import {
  sessionTranscriptBytes,
  type SessionTranscriptParams,
} from '../../src/modules/credentials/formats/mdoc/session-transcript.js'
import { makeTestChain } from '../helpers/mdoc-test-chain.js'

const DIR = path.resolve(import.meta.dirname, '../../../shared/fixtures/mdoc')

interface Fixture {
  device_response?: string
  issuer_signed?: string
  certificates: Record<string, string>
  trust_anchor: string
  session_transcript?: Record<string, string>
  verify_at: string
}

const der = (pem: string) => new Uint8Array(new X509Certificate(pem).raw)

/** The fixture's handover parameters as this module's SessionTranscript parameters, chosen by `kind`. */
function transcriptParams(st: Record<string, string>): SessionTranscriptParams {
  const kind = st.kind ?? ''
  if (kind.startsWith('OpenID4VP 1.0'))
    return {
      kind: 'oid4vp',
      clientId: st.client_id as string,
      nonce: st.nonce as string,
      responseUri: st.response_uri as string,
      jwkThumbprint: Buffer.from(st.jwk_thumbprint_hex as string, 'hex'),
    }
  if (kind.includes('draft 24'))
    return {
      kind: 'oid4vp-dc-api-draft24',
      origin: st.origin as string,
      clientId: st.client_id as string,
      nonce: st.nonce as string,
    }
  if (kind.includes('draft 18'))
    return {
      kind: 'oid4vp-draft18',
      clientId: st.client_id as string,
      responseUri: st.response_uri as string,
      verifierGeneratedNonce: st.verifier_generated_nonce as string,
      mdocGeneratedNonce: st.mdoc_generated_nonce as string,
    }
  throw new Error(`unknown handover kind ${kind}`)
}

/** A copy of `bytes` with one byte flipped inside the first occurrence of `inside`. */
function flipInside(bytes: Uint8Array, inside: Uint8Array): Uint8Array {
  const at = Buffer.from(bytes).indexOf(Buffer.from(inside))
  assert.ok(at >= 0, 'the structure to tamper with is in the bytes')
  const copy = new Uint8Array(bytes)
  const i = at + Math.floor(inside.length / 2)
  copy[i] = (copy[i] as number) ^ 0x01
  return copy
}

const reasons = (r: { problems: { reason: string }[] }) => r.problems.map((p) => p.reason)

const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f, JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) as Fixture] as const)

describe('mdoc fixtures from other implementations', () => {
  let otherAnchor: Uint8Array
  before(async () => {
    otherAnchor = (await makeTestChain()).iacaDer
  })

  it('reads all five fixtures', () => assert.equal(fixtures.length, 5))

  for (const [file, fx] of fixtures) {
    const anchor = der(fx.certificates[fx.trust_anchor] as string)
    const now = new Date(fx.verify_at)

    if (fx.issuer_signed) {
      const bytes = new Uint8Array(Buffer.from(fx.issuer_signed, 'base64url'))
      const issuerSigned = IssuerSigned.decode(bytes)
      const firstItem = [...issuerSigned.issuerNamespaces.issuerNamespaces.values()][0]?.[0]
      const verify = (input: Uint8Array, opts: { at?: Date; anchors?: Uint8Array[] } = {}) =>
        verifyIssuerSigned(input, { trustAnchors: opts.anchors ?? [anchor], now: opts.at ?? now })

      describe(file, () => {
        it('verifies at verify_at with only its trust anchor', async () => {
          const r = await verify(bytes)
          assert.deepEqual(r.problems, [])
          assert.equal(r.documents.length, 1)
          assert.equal(r.documents[0]?.doctype, issuerSigned.issuerAuth.mobileSecurityObject.docType)
        })
        it('refuses a flipped byte in the issuer signature', async () => {
          assert.ok(reasons(await verify(flipInside(bytes, issuerSigned.issuerAuth.signature))).includes('signature'))
        })
        it('refuses a flipped byte in a disclosed value', async () => {
          assert.ok(firstItem)
          assert.ok(reasons(await verify(flipInside(bytes, firstItem.random))).includes('signature'))
        })
        it('refuses a date after and a date before the validity', async () => {
          assert.ok(reasons(await verify(bytes, { at: new Date('2100-01-01') })).includes('expired'))
          assert.ok(reasons(await verify(bytes, { at: new Date('2000-01-01') })).includes('not_yet_valid'))
        })
        it('refuses another trust anchor', async () => {
          assert.deepEqual(reasons(await verify(bytes, { anchors: [otherAnchor] })), ['issuer'])
        })
      })
      continue
    }

    const bytes = new Uint8Array(Buffer.from(fx.device_response as string, 'base64url'))
    const response = DeviceResponse.decode(bytes)
    const document = response.documents?.[0]
    const params = transcriptParams(fx.session_transcript ?? {})
    const verify = async (
      input: Uint8Array,
      opts: { at?: Date; anchors?: Uint8Array[]; transcript?: SessionTranscriptParams } = {},
    ) =>
      verifyDeviceResponse(input, {
        trustAnchors: opts.anchors ?? [anchor],
        now: opts.at ?? now,
        sessionTranscript: await sessionTranscriptBytes(opts.transcript ?? params),
      })

    describe(file, () => {
      it('verifies at verify_at with only its trust anchor and the given session transcript', async () => {
        const r = await verify(bytes)
        assert.deepEqual(r.problems, [])
        assert.equal(r.documents.length, response.documents?.length)
        assert.equal(r.documents[0]?.doctype, document?.docType)
      })
      it('refuses a flipped byte in the issuer signature', async () => {
        assert.ok(document)
        assert.ok(
          reasons(await verify(flipInside(bytes, document.issuerSigned.issuerAuth.signature))).includes('signature'),
        )
      })
      it('refuses a flipped byte in a disclosed value', async () => {
        const item = [...(document?.issuerSigned.issuerNamespaces.issuerNamespaces.values() ?? [])][0]?.[0]
        assert.ok(item)
        assert.ok(reasons(await verify(flipInside(bytes, item.random))).includes('signature'))
      })
      it('refuses a flipped byte in the device signature', async () => {
        const signature = document?.deviceSigned.deviceAuth.deviceSignature?.signature
        assert.ok(signature)
        assert.deepEqual(reasons(await verify(flipInside(bytes, signature))), ['binding'])
      })
      it('refuses a date after and a date before the validity', async () => {
        assert.ok(reasons(await verify(bytes, { at: new Date('2100-01-01') })).includes('expired'))
        assert.ok(reasons(await verify(bytes, { at: new Date('2000-01-01') })).includes('not_yet_valid'))
      })
      it('refuses another trust anchor', async () => {
        // The fixture's other certificates, except those in the x5chain (trusting the DS itself pins it).
        const chain = (document?.issuerSigned.issuerAuth.certificateChain ?? []).map((c) => Buffer.from(c))
        const others = [
          otherAnchor,
          ...Object.entries(fx.certificates)
            .filter(([n]) => n !== fx.trust_anchor)
            .map(([, p]) => der(p))
            .filter((c) => !chain.some((x) => x.equals(c))),
        ]
        for (const other of others) assert.ok(reasons(await verify(bytes, { anchors: [other] })).includes('issuer'))
      })
      it('refuses the device signature over another transcript (another nonce)', async () => {
        const other = {
          ...params,
          ...('nonce' in params ? { nonce: `${params.nonce}x` } : { verifierGeneratedNonce: 'other' }),
        }
        assert.deepEqual(reasons(await verify(bytes, { transcript: other as SessionTranscriptParams })), ['binding'])
      })
    })
  }
})

describe('OpenID4VP 1.0 handover (Appendix B.2.6.1)', () => {
  it('is [null, null, ["OpenID4VPHandover", SHA-256(cbor([client_id, nonce, jwk_thumbprint, response_uri]))]]', async () => {
    const params = {
      clientId: 'x509_san_dns:verifier.example',
      nonce: 'n-0S6',
      responseUri: 'https://verifier.example/post',
    }
    const thumbprint = new Uint8Array(32).fill(7)
    const info = cborEncode([params.clientId, params.nonce, thumbprint, params.responseUri])
    const expected = [null, null, ['OpenID4VPHandover', new Uint8Array(createHash('sha256').update(info).digest())]]
    const built = cborDecode(await sessionTranscriptBytes({ kind: 'oid4vp', ...params, jwkThumbprint: thumbprint }))
    assert.deepEqual(built, expected)
    const withoutKey = cborDecode<unknown[]>(await sessionTranscriptBytes({ kind: 'oid4vp', ...params }))
    const infoNull = cborEncode([params.clientId, params.nonce, null, params.responseUri])
    assert.deepEqual(withoutKey[2], [
      'OpenID4VPHandover',
      new Uint8Array(createHash('sha256').update(infoNull).digest()),
    ])
  })

  it('over the DC API (B.2.6.2) is ["OpenID4VPDCAPIHandover", SHA-256(cbor([origin, nonce, jwk_thumbprint]))]', async () => {
    const origin = 'https://verifier.example'
    const info = cborEncode([origin, 'n-1', null])
    const built = cborDecode(await sessionTranscriptBytes({ kind: 'oid4vp-dc-api', origin, nonce: 'n-1' }))
    assert.deepEqual(built, [
      null,
      null,
      ['OpenID4VPDCAPIHandover', new Uint8Array(createHash('sha256').update(info).digest())],
    ])
  })
})
