/**
 * Data Integrity EdDSA formats over HTTP: credentials issued through the spec's issue route in
 * eddsa-rdfc-2022 and eddsa-jcs-2022 verify with @digitalbazaar/vc ALONE (the libraries' own
 * cryptosuites, a document loader built here from the context packages, the schema context and
 * the hosted did:web document fetched from the service, a did:key document built with
 * @digitalbazaar/ed25519-multikey); a VCDM 2.0 presentation the holder signs with
 * @digitalbazaar/vc's signPresentation goes through the holder's approve route and the verifier's
 * submit and verify routes. Real: the whole app; nothing is mocked.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context'
import { DataIntegrityProof } from '@digitalbazaar/data-integrity'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey'
import { createSignCryptosuite, createVerifyCryptosuite } from '@digitalbazaar/eddsa-jcs-2022-cryptosuite'
import { cryptosuite as rdfc } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite'
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context'
import * as vc from '@digitalbazaar/vc'
import { bearer } from '../helpers/did-client.js'
import { callAs, IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SUITES = ['eddsa-rdfc-2022', 'eddsa-jcs-2022'] as const
type Suite = (typeof SUITES)[number]
const verifySuite = (suite: Suite) =>
  new DataIntegrityProof({ cryptosuite: suite === 'eddsa-rdfc-2022' ? rdfc : createVerifyCryptosuite() })

describe('Data Integrity EdDSA credentials and presentations (eddsa-rdfc-2022, eddsa-jcs-2022)', () => {
  let t: TestApp
  const webIssuer = new IssuerActor()
  const keyIssuer = new IssuerActor()
  const verifier = new IssuerActor()
  let webSchema: string
  let keySchema: string
  let verifierToken: string

  /** The holder: a did:key made with the Multikey library, logged in with that key. */
  let holder: { did: string; key: Ed25519Multikey.Ed25519KeyPair; token: string }

  const contexts = new Map<string, unknown>([...credentialsContexts, ...dataIntegrityContexts, ...multikeyContexts])
  /** A did:key's document, built from the key alone (did:key v0.7, Multikey form). */
  const didKeyDocument = async (did: string): Promise<Json> => {
    const multibase = did.slice('did:key:'.length)
    const key = await Ed25519Multikey.from({
      id: `${did}#${multibase}`,
      controller: did,
      publicKeyMultibase: multibase,
    })
    const method = await key.export({ publicKey: true, includeContext: false })
    return {
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
      id: did,
      verificationMethod: [method],
      assertionMethod: [method.id],
      authentication: [method.id],
    }
  }
  /** The independent loader: packaged contexts; the service's documents fetched over HTTP (inject); DIDs resolved the standard way. */
  const documentLoader = async (url: string) => {
    const document = await (async (): Promise<unknown> => {
      if (contexts.has(url)) return structuredClone(contexts.get(url))
      const did = url.split('#')[0]!
      let doc: Json | undefined
      if (did.startsWith('did:key:')) doc = await didKeyDocument(did)
      else if (did.startsWith('did:web:')) {
        // did:web §3.2: did:web:<host>:issuers:<id> is https://<host>/issuers/<id>/did.json.
        const path = `/${did.split(':').slice(3).join('/')}/did.json`
        const res = await t.app.inject({ method: 'GET', url: path })
        assert.equal(res.statusCode, 200, `${path}: ${res.body}`)
        doc = res.json()
      } else if (url.startsWith(t.config.publicBaseUrl)) {
        const res = await t.app.inject({ method: 'GET', url: url.slice(t.config.publicBaseUrl.length) })
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
        return res.json()
      }
      if (!doc) throw new Error(`the test loader does not know ${url}`)
      if (!url.includes('#')) return doc
      const method = doc.verificationMethod.find((m: Json) => m.id === url)
      return { '@context': doc['@context'], ...method }
    })()
    return { contextUrl: null, documentUrl: url, document }
  }
  const libraryVerify = (credential: Json, suite: Suite) =>
    vc.verifyCredential({
      credential,
      suite: verifySuite(suite),
      documentLoader,
      checkStatus: async () => ({ verified: true }),
    })

  const issue = async (actor: IssuerActor, schemaId: string, format: Suite, extra: Json = {}): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${actor.did}/issue`, actor.token, {
      format,
      credential_type: 'Degree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Ada', gpa: 3.9 },
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential.credential
  }

  before(async () => {
    t = await createTestApp()
    await webIssuer.setUp(t.app, 'Web Uni')
    webSchema = await webIssuer.schema(t.app, JWT_DEGREE_SCHEMA)
    keyIssuer.token = await keyIssuer.login(t.app)
    const created = await callAs(t.app, 'POST', '/api/issuer', keyIssuer.token, {
      name: 'Key Uni',
      signing_did_method: 'key',
    })
    assert.equal(created.statusCode, 201, created.body)
    keySchema = await keyIssuer.schema(t.app, JWT_DEGREE_SCHEMA)
    verifierToken = await verifier.login(t.app)
    const generated = await Ed25519Multikey.generate()
    const did = `did:key:${generated.publicKeyMultibase}`
    const key = await Ed25519Multikey.from({
      ...(await generated.export({ publicKey: true, secretKey: true })),
      id: `${did}#${generated.publicKeyMultibase}`,
      controller: did,
    })
    // Login: the challenge signed with the same key (Ed25519 over its UTF-8 bytes, base64).
    const challenge = (await t.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } })).json()
      .challenge
    const signature = Buffer.from(await key.signer().sign({ data: Buffer.from(challenge, 'utf8') })).toString('base64')
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/verify-challenge',
      payload: { did, challenge, signature },
    })
    assert.equal(login.statusCode, 200, login.body)
    holder = { did, key, token: login.json().token }
  })
  after(async () => t.close())

  for (const suite of SUITES) {
    it(`${suite}: issued through the spec's route (did:web and did:key issuers), verified by @digitalbazaar/vc alone; tampered, refused there and here`, async () => {
      for (const [actor, schemaId] of [
        [webIssuer, webSchema],
        [keyIssuer, keySchema],
      ] as const) {
        const started = performance.now()
        const record = await issue(actor, schemaId, suite, {
          expiration_date: new Date(Date.now() + 86_400_000).toISOString(),
        })
        const issuedMs = performance.now() - started
        assert.equal(record.format, suite)
        const credential = JSON.parse(record.jwt)
        assert.equal(credential.issuer, record.signing_did)
        assert.equal(credential.proof.cryptosuite, suite)
        assert.equal(credential.proof.proofPurpose, 'assertionMethod')
        assert.ok(String(credential.proof.verificationMethod).startsWith(`${record.signing_did}#`))
        assert.equal(credential.iss, undefined, 'no JWT claims in a Data Integrity credential')
        assert.deepEqual(credential.credentialSubject, { given_name: 'Ada', gpa: 3.9, id: holder.did })
        const checkedAt = performance.now()
        const verified = await libraryVerify(credential, suite)
        assert.equal(verified.verified, true, String(verified.error?.errors?.[0] ?? verified.error))
        t.app.log.info({ suite, issuedMs, verifiedMs: performance.now() - checkedAt }, 'timing')

        const tampered = structuredClone(credential)
        tampered.credentialSubject.gpa = 4
        assert.equal((await libraryVerify(tampered, suite)).verified, false)

        // Here: the holder's wallet imports a copy of it (the format's verify) — the tampered one is refused.
        const refused = await t.app.inject({
          method: 'POST',
          url: `/api/wallet/${holder.did}/credentials/import`,
          headers: bearer(holder.token),
          payload: { credential_jwt: JSON.stringify(tampered) },
        })
        assert.equal(refused.statusCode, 422, refused.body)
        assert.equal(refused.json().details.reason, 'signature')
      }
    })
  }

  describe('presented in a VCDM 2.0 presentation with a Data Integrity proof', () => {
    const request = async (): Promise<Json> => {
      const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
        verifier_did: verifier.did,
        presentation_type: 'DegreeCheck',
        required_credentials: [
          { credential_type: 'Degree', issuer_did: webIssuer.did, required_attributes: ['given_name'] },
        ],
        purpose: 'Hiring',
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().request
    }
    const sign = async (
      credentials: Json[],
      over: {
        challenge: string
        domain?: string
        jcs?: boolean
        key?: Ed25519Multikey.Ed25519KeyPair
        holder?: string
      },
    ) => {
      const presentation = vc.createPresentation({
        verifiableCredential: credentials,
        holder: over.holder ?? holder.did,
      })
      const suite = new DataIntegrityProof({
        signer: (over.key ?? holder.key).signer(),
        cryptosuite: over.jcs ? createSignCryptosuite() : rdfc,
      })
      return vc.signPresentation({
        presentation,
        suite,
        challenge: over.challenge,
        domain: over.domain ?? verifier.did,
        documentLoader,
      })
    }
    const verify = async (id: string, text: string) => {
      const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, verifierToken, {
        presentation_jwt: text,
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().verification_result
    }

    it("the holder approves a request with it (presentation_jwt: the VP's JSON text); the verifier verifies it", async () => {
      const records = [
        await issue(webIssuer, webSchema, 'eddsa-rdfc-2022'),
        await issue(webIssuer, webSchema, 'eddsa-jcs-2022'),
      ]
      for (const jcs of [false, true]) {
        const req = await request()
        assert.equal(
          (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holder.token, { request_id: req.id }))
            .statusCode,
          201,
        )
        const vp = await sign(
          records.map((r) => JSON.parse(r.jwt)),
          { challenge: req.nonce, jcs },
        )
        const approve = (body: Json) =>
          callAs(t.app, 'POST', `/api/wallet/presentation-requests/${req.id}/approve`, holder.token, {
            credential_ids: records.map((r) => r.id),
            ...body,
          })
        // The envelope checks a holder can fix at once: 400 with the reason.
        const wrongNonce = await approve({
          presentation_jwt: JSON.stringify(
            await sign([JSON.parse(records[0]!.jwt)], { challenge: 'not-the-nonce', jcs }),
          ),
        })
        assert.equal(wrongNonce.statusCode, 400, wrongNonce.body)
        assert.match(wrongNonce.json().message, /must carry the request's nonce as its proof's challenge/)
        const wrongDomain = await approve({
          presentation_jwt: JSON.stringify(
            await sign([JSON.parse(records[0]!.jwt)], {
              challenge: req.nonce,
              domain: 'did:web:elsewhere.example',
              jcs,
            }),
          ),
        })
        assert.equal(wrongDomain.statusCode, 400, wrongDomain.body)
        assert.match(wrongDomain.json().message, /must name the request's verifier as its proof's domain/)

        const approved = await approve({ presentation_jwt: JSON.stringify(vp) })
        assert.equal(approved.statusCode, 201, approved.body)
        const result = await verify(approved.json().presentation.id, JSON.stringify(vp))
        assert.deepEqual(result.errors, [])
        assert.equal(result.is_valid, true)
        assert.deepEqual(
          result.credential_subjects.map((c: Json) => c.credential_id),
          records.map((r) => r.id),
        )
      }
    })

    it("the verifier submits one: a tampered VP or another key than the holder's is a 400; a wrong challenge, a tampered or revoked credential fail verification", async () => {
      const record = await issue(webIssuer, webSchema, 'eddsa-rdfc-2022')
      const submit = async (vp: Json, requestId: string) =>
        callAs(t.app, 'POST', '/api/verifier/presentations', verifierToken, {
          presentation_jwt: JSON.stringify(vp),
          request_id: requestId,
        })
      const credential = JSON.parse(record.jwt)

      let req = await request()
      const tamperedVp = await sign([credential], { challenge: req.nonce })
      tamperedVp.holder = verifier.did
      const forged = await submit(tamperedVp, req.id)
      assert.equal(forged.statusCode, 400, forged.body)
      assert.match(forged.json().message, /not signed by its holder/)
      const other = await Ed25519Multikey.generate()
      const otherDid = `did:key:${other.publicKeyMultibase}`
      const otherKey = await Ed25519Multikey.from({
        ...(await other.export({ publicKey: true, secretKey: true })),
        id: `${otherDid}#${other.publicKeyMultibase}`,
        controller: otherDid,
      })
      const impostor = await submit(await sign([credential], { challenge: req.nonce, key: otherKey }), req.id)
      assert.equal(impostor.statusCode, 400, impostor.body)
      assert.match(impostor.json().message, new RegExp(`signed by ${otherDid}, not by its holder`))

      const verdict = async (vp: Json): Promise<Json> => {
        const submitted = await submit(vp, req.id)
        assert.equal(submitted.statusCode, 201, submitted.body)
        return verify(submitted.json().presentation.id, JSON.stringify(vp))
      }
      const wrongChallenge = await verdict(await sign([credential], { challenge: 'a-nonce-of-another-request' }))
      assert.equal(wrongChallenge.is_valid, false)
      assert.ok(
        wrongChallenge.errors.some((e: string) => /challenge is not as expected/.test(e)),
        wrongChallenge.errors.join('; '),
      )

      req = await request()
      const tamperedCredential = structuredClone(credential)
      tamperedCredential.credentialSubject.gpa = 4
      const tampered = await verdict(await sign([tamperedCredential], { challenge: req.nonce }))
      assert.equal(tampered.is_valid, false)
      assert.ok(
        tampered.errors.some((e: string) => /credential 1.*issuer proof: Invalid signature/.test(e)),
        tampered.errors.join('; '),
      )

      assert.equal(
        (await callAs(t.app, 'POST', `/api/issuer/${webIssuer.did}/credentials/${record.id}/revoke`, webIssuer.token))
          .statusCode,
        200,
      )
      req = await request()
      const revoked = await verdict(await sign([credential], { challenge: req.nonce }))
      assert.equal(revoked.is_valid, false)
      assert.ok(
        revoked.errors.some((e: string) => /revoked/.test(e)),
        revoked.errors.join('; '),
      )
    })
  })
})
