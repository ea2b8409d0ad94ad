/**
 * The Data Integrity EdDSA formats (eddsa-rdfc-2022, eddsa-jcs-2022) on their own: what `secure`
 * signs and refuses, what `verify` reports (every problem with its reason, dates against ctx.now
 * with the skew), and the W3C specification's own test vectors. Real: the libraries, the did:key
 * resolver, the document loader. Stubbed: the status checker (a recorder), the clock.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import * as vc from '@digitalbazaar/vc'
import type { DocumentSecuringFormat, VerifyContext } from '../../src/modules/credentials/formats/credential-format.js'
import { createDocumentLoader } from '../../src/modules/credentials/formats/shared/document-loader.js'
import { eddsaFormat } from '../../src/modules/credentials/formats/data-integrity/eddsa.format.js'
import { EDDSA_CRYPTOSUITES, signingSuite } from '../../src/modules/credentials/formats/data-integrity/eddsa-suites.js'
import { createDidResolver } from '../../src/modules/did/did-resolver.js'
import type { JwsSigner } from '../../src/modules/identity/signing-identities.js'
import type { StatusChecker } from '../../src/modules/status-list/status-check.js'
import { ValidationError } from '../../src/errors.js'
import { DidClient } from '../helpers/did-client.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const VC_V2 = 'https://www.w3.org/ns/credentials/v2'
const EXAMPLES_V2 = 'https://www.w3.org/ns/credentials/examples/v2'
const NOW = new Date('2026-06-01T12:00:00Z')
const clock = { now: () => NOW }
const resolver = createDidResolver({
  httpGet: async (url) => ({ status: 404, headers: {}, body: new Uint8Array(), url }),
  lookupLocal: async () => undefined,
})

const issuerKey = new DidClient()
const holder = new DidClient()
const signer: JwsSigner = {
  did: issuerKey.did,
  kid: `${issuerKey.did}#${issuerKey.did.slice('did:key:'.length)}`,
  alg: 'EdDSA',
  privateKey: issuerKey.privateKey,
}

let revoked = false
const status = { check: async () => (revoked ? { state: 'revoked' } : { state: 'active' }) } as unknown as StatusChecker
const ctx = (over: Partial<VerifyContext> = {}): VerifyContext => ({
  resolver,
  status,
  now: NOW,
  skewSeconds: 60,
  ...over,
})

const credential = (over: Json = {}): Json => ({
  '@context': [VC_V2, EXAMPLES_V2],
  id: 'urn:uuid:0b0e3f5a-8a6b-4a3c-9f1e-5d0a6c1e2b3f',
  type: ['VerifiableCredential', 'ExampleDegreeCredential'],
  issuer: issuerKey.did,
  validFrom: '2026-01-01T00:00:00Z',
  validUntil: '2027-01-01T00:00:00Z',
  credentialSubject: {
    id: holder.did,
    degree: { type: 'ExampleBachelorDegree', name: 'Bachelor of Science and Arts' },
  },
  credentialStatus: {
    id: 'https://issuer.example/lists/1#7',
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: '7',
    statusListCredential: 'https://issuer.example/lists/1',
  },
  ...over,
})
const reasons = (problems: Array<{ reason: string }>) => problems.map((p) => p.reason)

for (const suite of EDDSA_CRYPTOSUITES) {
  describe(`${suite}`, () => {
    const format: DocumentSecuringFormat = eddsaFormat(suite, { clock })

    it('secures a caller-built VCDM 2.0 document as it is, with a DataIntegrityProof for assertionMethod by the signer', async () => {
      const issued = await format.secure(credential(), signer, {})
      const doc = issued.document as Json
      assert.deepEqual(JSON.parse(issued.credential), doc)
      assert.deepEqual({ ...doc, proof: undefined }, { ...credential(), proof: undefined })
      assert.equal(doc.proof.type, 'DataIntegrityProof')
      assert.equal(doc.proof.cryptosuite, suite)
      assert.equal(doc.proof.proofPurpose, 'assertionMethod')
      assert.equal(doc.proof.verificationMethod, signer.kid)
      assert.equal(doc.proof.created, '2026-06-01T12:00:00Z')
      assert.match(doc.proof.proofValue, /^z[1-9A-HJ-NP-Za-km-z]{80,90}$/)
      assert.equal(format.recognizes(issued.credential), true)
      assert.equal(format.recognizes(doc), true)
      assert.equal(format.idOf(issued.credential), doc.id)
      assert.equal(
        eddsaFormat(suite === 'eddsa-rdfc-2022' ? 'eddsa-jcs-2022' : 'eddsa-rdfc-2022', { clock }).recognizes(doc),
        false,
        'the other cryptosuite does not claim it',
      )
    })

    it('verifies what it secured, reading the credential; reports tampering, another subject, revocation', async () => {
      const { credential: text } = await format.secure(credential(), signer, {})
      const ok = await format.verify(text, ctx({ holderDid: holder.did }))
      assert.deepEqual(ok.problems, [])
      assert.equal(ok.credential?.issuer, issuerKey.did)
      assert.deepEqual(ok.credential?.types, ['VerifiableCredential', 'ExampleDegreeCredential'])
      assert.equal(ok.credential?.subject, holder.did)
      assert.deepEqual(Object.keys(ok.credential!.attributes), ['degree'])
      assert.equal(ok.credential?.expiresAt?.toISOString(), '2027-01-01T00:00:00.000Z')

      const tampered = JSON.parse(text)
      tampered.credentialSubject.degree.name = 'Doctor of Philosophy'
      assert.deepEqual(reasons((await format.verify(tampered, ctx())).problems), ['signature'])
      assert.deepEqual(reasons((await format.verify(text, ctx({ holderDid: new DidClient().did }))).problems), [
        'subject',
      ])
      revoked = true
      try {
        assert.deepEqual(reasons((await format.verify(text, ctx())).problems), ['revoked'])
      } finally {
        revoked = false
      }
    })

    it('checks validFrom / validUntil against ctx.now with the skew, the proof still checked', async () => {
      const document = (await format.secure(credential(), signer, {})).document as Json
      const at = (iso: string, skewSeconds = 60) =>
        format.verify(document, ctx({ now: new Date(iso), skewSeconds })).then((r) => reasons(r.problems))
      assert.deepEqual(await at('2027-01-01T00:00:30Z'), [], 'within the skew after validUntil')
      assert.deepEqual(await at('2027-01-01T00:02:00Z'), ['expired'])
      assert.deepEqual(await at('2025-12-31T23:59:30Z'), [], 'within the skew before validFrom')
      assert.deepEqual(await at('2025-12-31T23:58:00Z'), ['not_yet_valid'])
      assert.deepEqual(await at('2025-12-31T23:59:30Z', 0), ['not_yet_valid'])
      const tampered = { ...document, credentialSubject: { ...document.credentialSubject, id: 'did:example:else' } }
      assert.deepEqual(
        reasons((await format.verify(tampered, ctx({ now: new Date('2028-01-01T00:00:00Z') }))).problems),
        ['signature', 'expired'],
      )
    })

    it("refuses a proof whose issuer is not the verification method's controller", async () => {
      // Signed with the library directly: `secure` itself refuses an issuer that is not the signer.
      const claimed = await vc.issue({
        credential: credential({ issuer: holder.did }),
        suite: signingSuite(suite, signer, NOW),
        documentLoader: createDocumentLoader(),
      })
      const { problems } = await format.verify(claimed, ctx())
      assert.deepEqual(reasons(problems), ['issuer'], JSON.stringify(problems))
      await assert.rejects(
        format.secure(credential({ issuer: holder.did }), signer, {}),
        (e: unknown) => e instanceof ValidationError && /issuer must be the signing DID/.test(e.message),
      )
    })

    it('refuses to secure what is not a VCDM document, names an unknown context, or uses an undefined term (400s with the reason)', async () => {
      const refused = async (doc: Json, pattern: RegExp) =>
        assert.rejects(format.secure(doc, signer, {}), (e: unknown) => {
          assert.ok(e instanceof ValidationError, String(e))
          assert.match(e.message, pattern)
          return true
        })
      await refused(
        credential({ '@context': ['https://example.org/not-vc'] }),
        /not a Verifiable Credentials Data Model document/,
      )
      await refused(credential({ type: ['ExampleDegreeCredential'] }), /must include `VerifiableCredential`/)
      await refused(credential({ credentialSubject: undefined }), /credentialSubject/)
      await refused(
        credential({ '@context': [VC_V2, 'https://contexts.example/unknown/v1'] }),
        /https:\/\/contexts\.example\/unknown\/v1 is not one this service bundles or serves/,
      )
      await refused(
        credential({ '@context': [VC_V2], credentialSubject: { id: holder.did, shoeSize: 42 } }),
        /safe mode.*"shoeSize"/,
      )
    })
  })
}

describe('the W3C VC DI EdDSA test vectors (TestVectors/, key z6MkrJVna…, controller https://vc.example/issuers/5678)', () => {
  const controller = 'https://vc.example/issuers/5678'
  const method = {
    id: `${controller}#z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2`,
    type: 'Multikey',
    controller,
    publicKeyMultibase: 'z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2',
  }
  // The spec's example controller document, answered as the service answers its own documents.
  const local = async (url: string) => {
    const context = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1']
    if (url === controller)
      return { '@context': context, id: controller, verificationMethod: [method], assertionMethod: [method.id] }
    if (url === method.id) return { '@context': context, ...method }
    return undefined
  }
  const vector = (name: string): Json =>
    JSON.parse(readFileSync(new URL(`../fixtures/vc-di-eddsa/${name}`, import.meta.url), 'utf8'))

  for (const [suite, file] of [
    ['eddsa-rdfc-2022', 'signedDataInt.json'],
    ['eddsa-jcs-2022', 'signedJCS.json'],
  ] as const) {
    it(`${suite}: ${file} verifies through the format; altered, it does not`, async () => {
      const format = eddsaFormat(suite, { clock, local })
      const signed = vector(file)
      assert.equal(format.recognizes(JSON.stringify(signed)), true)
      const { problems, credential: read } = await format.verify(signed, ctx())
      assert.deepEqual(problems, [])
      assert.equal(read?.issuer, controller)
      assert.deepEqual(read?.attributes, { alumniOf: 'The School of Examples' })
      const altered = { ...signed, credentialSubject: { ...signed.credentialSubject, alumniOf: 'Another School' } }
      assert.deepEqual(reasons((await format.verify(altered, ctx())).problems), ['signature'])
    })
  }
})
