/**
 * verifyDataIntegrityPresentation: VCDM 2.0 presentations a holder signed with
 * @digitalbazaar/vc's signPresentation (a did:key from @digitalbazaar/ed25519-multikey, either
 * EdDSA cryptosuite), checked for challenge, domain, holder and signature, with each embedded
 * credential checked by the format registry. Real: the libraries, the did:key resolver; stubbed:
 * the status checker.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DataIntegrityProof } from '@digitalbazaar/data-integrity'
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey'
import { createSignCryptosuite } from '@digitalbazaar/eddsa-jcs-2022-cryptosuite'
import { cryptosuite as rdfc } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite'
import * as vc from '@digitalbazaar/vc'
import {
  verifyDataIntegrityPresentation,
  isDataIntegrityPresentation,
} from '../../src/modules/credentials/formats/data-integrity/data-integrity-presentation.js'
import { createDocumentLoader } from '../../src/modules/credentials/formats/shared/document-loader.js'
import { eddsaFormat } from '../../src/modules/credentials/formats/data-integrity/eddsa.format.js'
import { createFormatRegistry } from '../../src/modules/credentials/formats/format-registry.js'
import { createDidResolver } from '../../src/modules/did/did-resolver.js'
import type { JwsSigner } from '../../src/modules/identity/signing-identities.js'
import type { StatusChecker } from '../../src/modules/status-list/status-check.js'
import { DidClient } from '../helpers/did-client.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const NOW = new Date()
const clock = { now: () => NOW }
const resolver = createDidResolver({
  httpGet: async (url) => ({ status: 404, headers: {}, body: new Uint8Array(), url }),
  lookupLocal: async () => undefined,
})
const status = { check: async () => ({ state: 'active' }) } as unknown as StatusChecker
const formats = createFormatRegistry([
  eddsaFormat('eddsa-rdfc-2022', { clock }),
  eddsaFormat('eddsa-jcs-2022', { clock }),
])
const VERIFIER = 'did:web:verifier.example'
const NONCE = 'n-0123456789abcdef'

/** A holder's did:key and its key pair, made by the Multikey library alone. */
async function holderKey() {
  const generated = await Ed25519Multikey.generate()
  const did = `did:key:${generated.publicKeyMultibase}`
  const exported = await generated.export({ publicKey: true, secretKey: true, includeContext: true })
  return {
    did,
    key: await Ed25519Multikey.from({ ...exported, id: `${did}#${generated.publicKeyMultibase}`, controller: did }),
  }
}

const issuerKey = new DidClient()
const issuer: JwsSigner = {
  did: issuerKey.did,
  kid: `${issuerKey.did}#${issuerKey.did.slice('did:key:'.length)}`,
  alg: 'EdDSA',
  privateKey: issuerKey.privateKey,
}
const credentialFor = (subject: string, suite: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022' = 'eddsa-rdfc-2022') =>
  eddsaFormat(suite, { clock })
    .secure(
      {
        '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
        id: `urn:uuid:${crypto.randomUUID()}`,
        type: ['VerifiableCredential', 'ExampleDegreeCredential'],
        issuer: issuer.did,
        validFrom: new Date(NOW.getTime() - 60_000).toISOString(),
        credentialSubject: { id: subject, degree: { type: 'ExampleBachelorDegree', name: 'Bachelor of Arts' } },
      },
      issuer,
      {},
    )
    .then((i) => i.document)

async function signedVp(
  signer: Awaited<ReturnType<typeof holderKey>>,
  credentials: unknown[],
  over: { holder?: string; challenge?: string; domain?: string; jcs?: boolean } = {},
): Promise<Json> {
  const presentation = vc.createPresentation({ verifiableCredential: credentials, holder: over.holder ?? signer.did })
  const suite = new DataIntegrityProof({
    signer: signer.key.signer(),
    cryptosuite: over.jcs ? createSignCryptosuite() : rdfc,
  })
  return vc.signPresentation({
    presentation,
    suite,
    challenge: over.challenge ?? NONCE,
    domain: over.domain ?? VERIFIER,
    documentLoader: createDocumentLoader(),
  })
}

const check = (vp: unknown, over: Json = {}) =>
  verifyDataIntegrityPresentation(vp, {
    challenge: NONCE,
    domain: VERIFIER,
    formats,
    resolver,
    status,
    now: NOW,
    skewSeconds: 60,
    ...over,
  })

describe('verifyDataIntegrityPresentation', () => {
  it('verifies a holder-signed VP (either cryptosuite, as object or JSON text) and each credential in it, in both cryptosuites', async () => {
    const holder = await holderKey()
    const credentials = [await credentialFor(holder.did), await credentialFor(holder.did, 'eddsa-jcs-2022')]
    for (const jcs of [false, true]) {
      const vp = await signedVp(holder, credentials, { jcs })
      assert.equal(isDataIntegrityPresentation(JSON.stringify(vp)), true)
      const result = await check(JSON.stringify(vp), { holderDid: holder.did })
      assert.deepEqual(result.problems, [])
      assert.equal(result.holder, holder.did)
      assert.deepEqual(
        result.credentials.map((c) => c.problems),
        [[], []],
      )
      assert.deepEqual(
        result.credentials.map((c) => c.credential?.issuer),
        [issuer.did, issuer.did],
      )
    }
  })

  it("refuses a wrong challenge or domain, a tampered VP, another key than the holder's, and flags credentials issued to someone else", async () => {
    const holder = await holderKey()
    const other = await holderKey()
    const vp = await signedVp(holder, [await credentialFor(holder.did)])
    const reasons = (r: { problems: Array<{ reason: string; message: string }> }) =>
      r.problems.map((p) => `${p.reason}: ${p.message}`)

    const wrongChallenge = await check(vp, { challenge: 'another-nonce' })
    assert.deepEqual(
      wrongChallenge.problems.map((p) => p.reason),
      ['binding'],
      reasons(wrongChallenge).join('; '),
    )
    assert.match(wrongChallenge.problems[0]!.message, /challenge is not as expected/)
    const wrongDomain = await check(vp, { domain: 'did:web:elsewhere.example' })
    assert.deepEqual(
      wrongDomain.problems.map((p) => p.reason),
      ['binding'],
    )
    assert.match(wrongDomain.problems[0]!.message, /domain is not as expected/)

    const tampered = structuredClone(vp)
    tampered.verifiableCredential[0].credentialSubject.degree.name = 'Doctor of Philosophy'
    const forged = await check(tampered)
    assert.deepEqual(
      forged.problems.map((p) => p.reason),
      ['signature'],
      reasons(forged).join('; '),
    )
    assert.deepEqual(
      forged.credentials[0]!.problems.map((p) => p.reason),
      ['signature'],
    )

    // Signed by another key, claiming the holder: the signer is not the holder.
    const claimed = await check(await signedVp(other, [await credentialFor(holder.did)], { holder: holder.did }))
    assert.deepEqual(
      claimed.problems.map((p) => p.reason),
      ['binding'],
    )
    assert.match(claimed.problems[0]!.message, /holder .* did not sign it/)
    assert.deepEqual(
      claimed.credentials[0]!.problems.map((p) => p.reason),
      ['subject'],
      'bound to the key that signed',
    )
    const expected = await check(await signedVp(other, [await credentialFor(other.did)]), { holderDid: holder.did })
    assert.match(expected.problems.map((p) => p.message).join('; '), /not by the holder/)

    const notTheirs = await check(await signedVp(holder, [await credentialFor(other.did)]))
    assert.deepEqual(notTheirs.problems, [])
    assert.deepEqual(
      notTheirs.credentials[0]!.problems.map((p) => p.reason),
      ['subject'],
    )
  })

  it('refuses what is not a VCDM presentation', async () => {
    const result = await check({ '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['Something'], proof: {} })
    assert.deepEqual(
      result.problems.map((p) => p.reason),
      ['malformed'],
    )
    assert.deepEqual(
      (await check('not json')).problems.map((p) => p.reason),
      ['unreadable'],
    )
  })
})
