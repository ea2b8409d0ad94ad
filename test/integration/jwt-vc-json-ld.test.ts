/**
 * The default format, `jwt_vc_json`, as VCDM 1.1 JSON-LD and VC-JWT (§6.3.1), checked with
 * libraries independent of the service: jsonld 9 (safe-mode expansion, contexts from their
 * publishers' packages and the schema's context fetched from the service: a static loader),
 * Ajv's 2020-12 dialect with the JSON Schema that `credentialSchema` names,
 * @digitalbazaar/vc-bitstring-status-list with the status entry and the served list, did-jwt-vc
 * with web-did-resolver over the HTTPS front. A credential of the shape issued before (VCDM 1.1
 * context alone, `schemaId`, milliseconds in its dates) still verifies and meets a schema requirement.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { contexts as credentialContexts } from '@digitalbazaar/credentials-context'
import { checkStatus, getCredentialStatus, statusTypeMatches } from '@digitalbazaar/vc-bitstring-status-list'
import { contexts as statusContexts } from '@digitalbazaar/vc-bitstring-status-list-context'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { verifyCredential } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import jsonld from 'jsonld'
import { getResolver as webDidResolver } from 'web-did-resolver'
import { signCompactJws } from '../../src/crypto/jws.js'
import { SigningIdentities } from '../../src/modules/identity/signing-identities.js'
import { DbKeyStore } from '../../src/modules/keys/key-store.js'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, DEGREE_SCHEMA, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const VC_V1 = 'https://www.w3.org/2018/credentials/v1'
const STATUS_V1 = 'https://www.w3.org/ns/credentials/status/v1'
const CRED = 'https://www.w3.org/2018/credentials#'
const STATUS = 'https://www.w3.org/ns/credentials/status#'
const SCHEMA = { ...DEGREE_SCHEMA, name: 'Degree 1.1', anonymous_credentials: false }
const ATTRIBUTES = {
  given_name: 'Ada',
  birth_date: '1815-12-10',
  gpa: 3.9,
  graduated: true,
  email: 'ada@example.org',
  homepage: 'https://ada.example.org/',
  thesis: 'bafkreib2bhwgeyjbfkr7ra7vbo5rvwnfhzxn4uhw5d2z2nx2v5mlo3mpoi',
  address: { city: 'London', lines: ['12 St James Square'] },
  courses: ['Analysis', { name: 'Engines', grade: 'A' }],
}

describe('jwt_vc_json as VCDM 1.1 JSON-LD and VC-JWT', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let schemaId: string
  let holderToken: string
  let verifierToken: string
  const resolver = new Resolver(webDidResolver())

  /** GET through the HTTPS front, as any client on the network would. */
  const fetchText = async (url: string): Promise<{ status: number; type: string; body: string }> => {
    const res = await fetch(url)
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() }
  }
  /** Static: the W3C contexts from their publishers' packages; only this service's own documents are fetched (from it). */
  const loaded = new Map<string, unknown>([...credentialContexts, ...statusContexts])
  const documentLoader = async (url: string) => {
    if (!loaded.has(url)) {
      assert.ok(url.startsWith(`${front.origin}/`), `the loader fetches nothing but the service: ${url}`)
      const res = await fetchText(url)
      assert.equal(res.status, 200, `${url}: ${res.body}`)
      assert.match(res.type, /application\/ld\+json/)
      loaded.set(url, JSON.parse(res.body))
    }
    return { contextUrl: undefined, documentUrl: url, document: structuredClone(loaded.get(url)) as Json }
  }
  // jsonld's safe mode (a term or type it would drop throws); @types/jsonld lacks the option.
  const expandSafe = (doc: Json) =>
    jsonld.expand(doc, { documentLoader, safe: true } as unknown as Parameters<typeof jsonld.expand>[1])

  const issue = async (extra: Json = {}): Promise<Json> => {
    const body = {
      format: 'jwt_vc_json',
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
    }
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      ...body,
      attributes: ATTRIBUTES,
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential
  }

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Uni 1.1')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('did-jwt-vc verifies it (VCDM 1.1 policies) over HTTPS; nbf/exp, jti, iss and sub say what the vc claim says', async () => {
    const expiry = new Date(Date.now() + 86_400_000 + 456)
    const credential = await issue({ expiration_date: expiry.toISOString() })
    const verified = await verifyCredential(credential.jwt, resolver, { proofPurpose: 'assertionMethod' })
    const payload = decodeJwt(credential.jwt) as Json
    const vc = payload.vc
    assert.equal(verified.issuer, String(decodeProtectedHeader(credential.jwt).kid).split('#')[0])
    // VCDM 1.1 §6.3.1: each JWT claim and its vc property represent the same value.
    assert.equal(Date.parse(vc.issuanceDate) / 1000, payload.nbf)
    assert.equal(payload.iat, payload.nbf)
    assert.equal(Date.parse(vc.expirationDate) / 1000, payload.exp)
    assert.equal(payload.exp, Math.floor(expiry.getTime() / 1000))
    assert.equal(payload.jti, vc.id)
    assert.equal(payload.jti, credential.id)
    assert.equal(payload.iss, vc.issuer)
    assert.equal(payload.sub, vc.credentialSubject.id)
    assert.equal(payload.sub, holder.did)
    // did-jwt-vc's normalized credential has the dates of the claims: the same instants as the vc's.
    assert.equal(Date.parse(verified.verifiableCredential.issuanceDate), Date.parse(vc.issuanceDate))
    assert.equal(Date.parse(verified.verifiableCredential.expirationDate!), Date.parse(vc.expirationDate))
  })

  it('expands as JSON-LD in safe mode: every subject attribute, the type, schema, status and evidence kept', async () => {
    const uploaded = await t.deps.content.put(Buffer.from('transcript bytes'))
    const gateway = `${front.origin}/api/ipfs/${uploaded.cid}`
    const file = { filename: 't.pdf', content_type: 'application/pdf', size: 16 }
    const evidence = [{ label: 'transcript', ipfs_hash: uploaded.cid, gateway_url: gateway, ...file }]
    const credential = await issue({ evidence, extensions: ['honours'] })
    const vc = (decodeJwt(credential.jwt) as Json).vc
    const [expanded] = (await expandSafe(vc)) as Json[]
    assert.equal(vc['@context'][0], VC_V1)
    assert.ok(vc['@context'].includes(STATUS_V1), 'the Bitstring Status List context (its §2.1) is named')
    const vocab = `${front.origin}/api/schemas/${schemaId}/vocab#`
    assert.deepEqual(expanded!['@type'], [`${CRED}VerifiableCredential`, `${vocab}UniversityDegree`])
    assert.equal(expanded!['@id'], credential.id)
    assert.equal(expanded![`${CRED}issuanceDate`][0]['@value'], vc.issuanceDate)
    const subject = expanded![`${CRED}credentialSubject`][0]
    assert.equal(subject['@id'], holder.did)
    for (const name of Object.keys(ATTRIBUTES))
      assert.ok(subject[`${vocab}${name}`], `attribute ${name} expanded under the vocabulary`)
    assert.deepEqual(subject[`${vocab}birth_date`], [
      { '@type': 'http://www.w3.org/2001/XMLSchema#date', '@value': '1815-12-10' },
    ])
    assert.deepEqual(subject[`${vocab}gpa`], [{ '@type': 'http://www.w3.org/2001/XMLSchema#double', '@value': 3.9 }])
    assert.deepEqual(subject[`${vocab}address`], [{ '@type': '@json', '@value': ATTRIBUTES.address }])
    assert.deepEqual(expanded![`${CRED}credentialSchema`], [
      { '@id': vc.credentialSchema.id, '@type': [`${CRED}JsonSchema`] },
    ])
    const [status] = expanded![`${CRED}credentialStatus`]
    assert.equal(status['@id'], vc.credentialStatus.id)
    assert.deepEqual(status['@type'], [`${STATUS}BitstringStatusListEntry`])
    assert.deepEqual(status[`${STATUS}statusPurpose`], [{ '@value': 'revocation' }])
    assert.deepEqual(status[`${STATUS}statusListIndex`], [{ '@value': vc.credentialStatus.statusListIndex }])
    assert.deepEqual(status[`${STATUS}statusListCredential`], [{ '@id': vc.credentialStatus.statusListCredential }])
    const [attached] = expanded![`${CRED}evidence`]
    assert.equal(attached['@id'], `ipfs://${uploaded.cid}`)
    assert.deepEqual(attached['@type'], [`${vocab}Evidence`])
    for (const term of [
      `${vocab}filename`,
      `${vocab}size`,
      'https://schema.org/name',
      'https://schema.org/encodingFormat',
    ]) {
      assert.ok(attached[term], `evidence keeps ${term}`)
    }
    assert.deepEqual(expanded![`${vocab}extensions`], [{ '@value': 'honours' }])

    // Safe mode is what makes this a check: a term the contexts do not define throws.
    await assert.rejects(
      expandSafe({ ...vc, credentialSubject: { ...vc.credentialSubject, shoe_size: 42 } }),
      /Safe mode validation error/,
    )
  })

  it("credentialSchema names the served JSON Schema (2020-12), which the credential's subject validates against", async () => {
    const credential = await issue()
    const vc = (decodeJwt(credential.jwt) as Json).vc
    assert.equal(vc.credentialSchema.type, 'JsonSchema')
    const res = await fetchText(vc.credentialSchema.id)
    assert.equal(res.status, 200, res.body)
    assert.match(res.type, /application\/schema\+json/)
    const schema = JSON.parse(res.body)
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema')
    assert.equal(schema.$id, vc.credentialSchema.id)
    const validate = addFormats.default(new Ajv2020.default({ strict: true, allErrors: true })).compile(schema)
    assert.equal(validate(vc), true, JSON.stringify(validate.errors))
    assert.equal(validate({ ...vc, credentialSubject: { ...vc.credentialSubject, gpa: 'excellent' } }), false)
    const { given_name: _omitted, ...withoutName } = vc.credentialSubject
    assert.equal(validate({ ...vc, credentialSubject: withoutName }), false)
  })

  it('vc-bitstring-status-list accepts the entry and reads the bit from the served list, before and after revocation', async () => {
    const credential = await issue()
    const vc = (decodeJwt(credential.jwt) as Json).vc
    assert.equal(statusTypeMatches({ credential: vc }), true)
    assert.deepEqual(getCredentialStatus({ credential: vc, statusPurpose: 'revocation' }), vc.credentialStatus)
    // The list is a vc+jwt (its signature: vcdm2-jose.test.ts and jwt-vc-interop.test.ts); the library reads its payload.
    const readStatus = async () => {
      const res = await fetchText(vc.credentialStatus.statusListCredential)
      assert.equal(res.status, 200)
      const list = decodeJwt(res.body.trim())
      const documentLoader = async () => ({ document: list })
      // The library verifies Data Integrity lists only; the list's issuer must still be the credential's.
      const options = { documentLoader, verifyBitstringStatusListCredential: false, verifyMatchingIssuers: true }
      const result = await checkStatus({ credential: vc, ...options })
      assert.equal(result.verified, true, result.error?.message)
      return result.results![0]!.status
    }
    assert.equal(await readStatus(), false)
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.equal(await readStatus(), true)
  })

  it('a credential of the shape issued before still verifies, imports into a wallet and meets a schema requirement', async () => {
    const fresh = await issue()
    const now = decodeJwt(fresh.jwt) as Json
    // As the service signed jwt_vc_json before: VCDM 1.1 context alone, the schema record's IPFS URL with `schemaId`, milliseconds.
    const issuedAt = new Date(now.iat * 1000 + 789)
    const id = `urn:uuid:${crypto.randomUUID()}`
    const legacyVc = {
      '@context': [VC_V1],
      id,
      type: ['VerifiableCredential', 'UniversityDegree'],
      issuer: now.iss,
      issuanceDate: issuedAt.toISOString(),
      credentialSubject: { ...ATTRIBUTES, id: holder.did },
      credentialSchema: { id: `${front.origin}/api/ipfs/${ATTRIBUTES.thesis}`, type: 'JsonSchema', schemaId },
      credentialStatus: now.vc.credentialStatus,
    }
    const keys = new DbKeyStore(t.deps.database.db, t.deps.masterKey)
    const identities = new SigningIdentities({
      db: t.deps.database.db,
      keys,
      bbs: undefined as never,
      publicBaseUrl: front.origin,
    })
    const signer = await identities.jwsSigner((await identities.identity(issuer.did))!, 'Ed25519')
    const iat = Math.floor(issuedAt.getTime() / 1000)
    const legacyPayload = { iss: now.iss, jti: id, iat, nbf: iat, sub: holder.did, vc: legacyVc }
    const legacy = await signCompactJws({ typ: 'JWT', kid: signer.kid }, legacyPayload, signer.privateKey)

    const imported = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, {
      credential_jwt: legacy,
    })
    assert.equal(imported.statusCode, 201, imported.body)
    assert.equal(imported.json().credential.schema_id, schemaId)
    const verifyAll = async (jwts: string[]) => {
      const request = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
        verifier_did: verifier.did,
        presentation_type: 'DegreeCheck',
        required_credentials: [
          {
            credential_type: 'UniversityDegree',
            issuer_did: issuer.did,
            schema_id: schemaId,
            required_attributes: ['given_name'],
          },
        ],
        purpose: 'Hiring',
      })
      assert.equal(request.statusCode, 201, request.body)
      const vp = signPresentation(holder, { aud: verifier.did, nonce: request.json().request.nonce, credentials: jwts })
      const body = { presentation_jwt: vp, request_id: request.json().request.id }
      const submitted = await callAs(t.app, 'POST', '/api/verifier/presentations', verifierToken, body)
      assert.equal(submitted.statusCode, 201, submitted.body)
      const id = submitted.json().presentation.id
      const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, verifierToken, {
        presentation_jwt: vp,
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().verification_result
    }
    const old = await verifyAll([legacy])
    assert.deepEqual(old.errors, [])
    assert.equal(old.is_valid, true)
    // A new one meets the same requirement (its schema id read from the JSON Schema URL).
    const current = await verifyAll([fresh.jwt])
    assert.deepEqual(current.errors, [])
    assert.equal(current.is_valid, true)
  })
})
