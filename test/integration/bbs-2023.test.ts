/**
 * bbs-2023 (W3C Data Integrity BBS Cryptosuites v1.0): credentials issued through the spec's issue
 * route, derived by their holder through POST /api/wallet/:did/credentials/:credential_id/derive,
 * checked with @digitalbazaar/vc and the cryptosuite alone (a document loader built here from the
 * context packages, the schema context and the issuer's DID document fetched from the service),
 * and the BBS proof inside checked against the IETF BBS verify directly, with the header and
 * messages the cryptosuite's own createVerifyData gives.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createVerifyCryptosuite } from '@digitalbazaar/bbs-2023-cryptosuite'
import * as bbs from '@digitalbazaar/bbs-signatures'
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context'
import { DataIntegrityProof } from '@digitalbazaar/data-integrity'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context'
import * as vc from '@digitalbazaar/vc'
import { base58btc } from 'multiformats/bases/base58'
import { DidClient } from '../helpers/did-client.js'
import { callAs, DEGREE_SCHEMA, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = { ...DEGREE_SCHEMA, name: 'Degree bbs-2023', anonymous_credentials: false }
const ATTRIBUTES = {
  given_name: 'Ada',
  birth_date: '1815-12-10',
  gpa: 3.9,
  graduated: true,
  address: { city: 'London', lines: ['12 St James Square'] },
}
const MULTIKEY_V1 = 'https://w3id.org/security/multikey/v1'

describe('bbs-2023 credentials: issue, derive, verify with the libraries alone', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const keyIssuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  let holderToken: string
  let otherToken: string
  let schemaId: string
  let keySchemaId: string

  /** Anything the service serves, by URL, through inject (the test app's base is http://service.test). */
  const served = async (url: string): Promise<Json> => {
    const { pathname, search } = new URL(url)
    const res = await t.app.inject({ method: 'GET', url: pathname + search })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    return res.json()
  }
  /** The DID document of a did:web hosted by the service (did:web §3.2) or of a did:key (its Multikey form). */
  const didDocument = async (did: string): Promise<Json> => {
    if (did.startsWith('did:key:')) {
      const id = `${did}#${did.slice('did:key:'.length)}`
      return {
        '@context': ['https://www.w3.org/ns/did/v1', MULTIKEY_V1],
        id: did,
        verificationMethod: [
          { id, type: 'Multikey', controller: did, publicKeyMultibase: did.slice('did:key:'.length) },
        ],
        assertionMethod: [id],
      }
    }
    const path = did.slice('did:web:'.length).split(':').slice(1).join('/')
    return served(`http://service.test/${path}/did.json`)
  }
  const documentLoader = async (url: string) => {
    const fixed = credentialsContexts.get(url) ?? dataIntegrityContexts.get(url) ?? multikeyContexts.get(url)
    if (fixed) return { contextUrl: null, documentUrl: url, document: fixed }
    if (url.startsWith('did:')) {
      const [did, fragment] = url.split('#')
      const doc = await didDocument(did!)
      if (!fragment) return { contextUrl: null, documentUrl: url, document: doc }
      const method = doc.verificationMethod.find((m: Json) => m.id === url)
      assert.ok(method, `${url} is in the DID document`)
      return { contextUrl: null, documentUrl: url, document: { '@context': MULTIKEY_V1, ...method } }
    }
    return { contextUrl: null, documentUrl: url, document: await served(url) }
  }
  const libraryVerify = (credential: Json) =>
    vc.verifyCredential({
      credential,
      suite: new DataIntegrityProof({ cryptosuite: createVerifyCryptosuite() }),
      documentLoader,
      checkStatus: async () => ({ verified: true }),
    })

  /** The derived proof's BBS proof, verified by the IETF BBS ProofVerify with what the cryptosuite says it covers. */
  const bbsProofVerifies = async (credential: Json): Promise<boolean> => {
    const { proof, ...document } = credential
    const cryptosuite = createVerifyCryptosuite()
    const data = (await cryptosuite.createVerifyData({
      cryptosuite,
      document,
      proof: { '@context': document['@context'], ...proof },
      documentLoader,
    })) as {
      bbsProof: Uint8Array
      proofHash: Uint8Array
      mandatoryHash: Uint8Array
      nonMandatory: string[]
      selectiveIndexes: number[]
      presentationHeader: Uint8Array
    }
    const method = (await documentLoader(proof.verificationMethod)).document as Json
    const publicKey = base58btc.decode(method.publicKeyMultibase).subarray(2)
    // bbs-2023 §3.4.7: header = proofHash || mandatoryHash; the disclosed messages are the non-mandatory N-Quads.
    const header = new Uint8Array([...data.proofHash, ...data.mandatoryHash])
    return bbs.verifyProof({
      publicKey,
      proof: data.bbsProof,
      header,
      presentationHeader: data.presentationHeader,
      disclosedMessages: data.nonMandatory.map((m) => new TextEncoder().encode(m)),
      disclosedMessageIndexes: data.selectiveIndexes,
      ciphersuite: bbs.CIPHERSUITES.BLS12381_SHA256,
    })
  }

  const issue = async (actor: IssuerActor, schema: string, format = 'bbs-2023'): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${actor.did}/issue`, actor.token, {
      format,
      credential_type: 'UniversityDegree',
      schema_id: schema,
      subject_did: holder.did,
      attributes: ATTRIBUTES,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential
  }
  const derive = (id: string, pointers: unknown, as = { did: holder.did, token: '' }) =>
    callAs(
      t.app,
      'POST',
      `/api/wallet/${as.did}/credentials/${encodeURIComponent(id)}/derive`,
      as.token || holderToken,
      { pointers },
    )

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Web Uni')
    schemaId = await issuer.schema(t.app, SCHEMA)
    keyIssuer.token = await keyIssuer.login(t.app)
    const created = await callAs(t.app, 'POST', '/api/issuer', keyIssuer.token, {
      name: 'Key Uni',
      signing_did_method: 'key',
    })
    assert.equal(created.statusCode, 201, created.body)
    keySchemaId = await keyIssuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    otherToken = await other.login(t.app)
  })
  after(async () => t.close())

  it('issues a base proof, derives a proof disclosing one claim, which @digitalbazaar/vc and the IETF BBS verify accept (hosted did:web)', async () => {
    const issued = await issue(issuer, schemaId)
    assert.equal(issued.credential.signature_type, 'bbs-2023')
    const base: Json = JSON.parse(issued.jwt)
    assert.equal(base.proof.type, 'DataIntegrityProof')
    assert.equal(base.proof.cryptosuite, 'bbs-2023')
    assert.match(base.proof.proofValue, /^u2V0C/, 'a base proof (CBOR tag 0xd95d02)')
    assert.equal(base.issuer, base.proof.verificationMethod.split('#')[0])
    assert.equal(base.iss, undefined, 'no JWT claims in a Data Integrity credential')
    // The hosted did:web lists the IETF BBS key as a Multikey assertion method.
    const didDoc = await didDocument(base.issuer)
    const method = didDoc.verificationMethod.find((m: Json) => m.id === base.proof.verificationMethod)
    assert.equal(method.type, 'Multikey')
    assert.match(method.publicKeyMultibase, /^zUC7/)
    assert.equal(method.bbsScheme, undefined, "not Dock's BBS key")
    assert.ok(didDoc.assertionMethod.includes(method.id))
    assert.ok(!didDoc.authentication.includes(method.id))

    const res = await derive(issued.id, ['/credentialSubject/given_name'])
    assert.equal(res.statusCode, 200, res.body)
    const derived: Json = res.json().credential
    assert.match(derived.proof.proofValue, /^u2V0D/, 'a derived proof (CBOR tag 0xd95d03)')
    // Selective disclosure: the chosen claim and the mandatory statements, nothing else; the
    // selection keeps the `id` of each object on a pointer's path (di-sd-primitives selectJsonLd), so the subject's DID too.
    assert.deepEqual(derived.credentialSubject, { id: holder.did, given_name: 'Ada' })
    assert.equal(derived.credentialSubject.given_name, 'Ada')
    assert.ok(!JSON.stringify(derived).includes('1815-12-10') && !JSON.stringify(derived).includes('London'))
    assert.equal(derived.issuer, base.issuer)
    assert.equal(derived.id, issued.id)
    assert.deepEqual(derived.credentialStatus, base.credentialStatus)
    assert.equal(derived.validFrom, base.validFrom)
    assert.deepEqual(derived.credentialSchema, base.credentialSchema)

    const result = await libraryVerify(derived)
    assert.equal(result.verified, true, String(result.error))
    assert.equal(await bbsProofVerifies(derived), true)

    // A disclosed value changed: both refuse it.
    const tampered = structuredClone(derived)
    tampered.credentialSubject.given_name = 'Eve'
    assert.equal((await libraryVerify(tampered)).verified, false)
    assert.equal(await bbsProofVerifies(tampered), false)
  })

  it('a did:key issuer signs with its own IETF BBS did:key (zUC7…), and an object attribute is disclosed whole', async () => {
    const issued = await issue(keyIssuer, keySchemaId)
    const base: Json = JSON.parse(issued.jwt)
    assert.match(base.issuer, /^did:key:zUC7/)
    assert.equal(base.proof.verificationMethod, `${base.issuer}#${base.issuer.slice('did:key:'.length)}`)
    // An object attribute is a JSON literal (@json in the schema context): disclosed whole, never in part.
    const inside = await derive(issued.id, ['/credentialSubject/address/city'])
    assert.equal(inside.statusCode, 400, inside.body)
    assert.match(inside.json().message, /select "address" whole/)
    const res = await derive(issued.id, ['/credentialSubject/gpa', '/credentialSubject/address'])
    assert.equal(res.statusCode, 200, res.body)
    const derived: Json = res.json().credential
    assert.deepEqual(derived.credentialSubject, { id: holder.did, gpa: 3.9, address: ATTRIBUTES.address })
    const keyResult = await libraryVerify(derived)
    assert.equal(keyResult.verified, true, String(keyResult.error?.errors?.[0] ?? keyResult.error))
    assert.equal(await bbsProofVerifies(derived), true)
    // The subject's DID alone is a valid selection; nothing of the subject is not (VCDM 2.0 §4.8 needs a credentialSubject).
    const bare = await derive(issued.id, ['/credentialSubject/id'])
    assert.equal(bare.statusCode, 200, bare.body)
    assert.deepEqual(bare.json().credential.credentialSubject, { id: holder.did })
    assert.equal((await libraryVerify(bare.json().credential)).verified, true)
    const none = await derive(issued.id, [])
    assert.equal(none.statusCode, 400, none.body)
    assert.match(none.json().message, /credentialSubject/)
  })

  it("refuses another holder's credential (404), pointers that are malformed or select nothing (400), and a credential of another format (409)", async () => {
    const issued = await issue(issuer, schemaId)
    const others = await derive(issued.id, ['/credentialSubject/given_name'], { did: other.did, token: otherToken })
    assert.equal(others.statusCode, 404, others.body)
    const nothing = await derive(issued.id, ['/credentialSubject/nickname'])
    assert.equal(nothing.statusCode, 400, nothing.body)
    assert.match(nothing.json().message, /selects nothing/)
    const escaped = await derive(issued.id, ['/credentialSubject/a~2b'])
    assert.equal(escaped.statusCode, 400, escaped.body)
    const relative = await derive(issued.id, ['credentialSubject'])
    assert.equal(relative.statusCode, 400, relative.body)
    const tooMany = await derive(
      issued.id,
      Array.from({ length: 101 }, () => '/id'),
    )
    assert.equal(tooMany.statusCode, 400, tooMany.body)
    const notStrings = await derive(issued.id, [1])
    assert.equal(notStrings.statusCode, 400, notStrings.body)
    const jose = await issue(issuer, schemaId, 'vc+jwt')
    const wrongFormat = await derive(jose.id, ['/credentialSubject/given_name'])
    assert.equal(wrongFormat.statusCode, 409, wrongFormat.body)
    assert.match(wrongFormat.json().message, /not bbs-2023/)
  })
})
