/**
 * `vc+jwt`: W3C VC Data Model 2.0 credentials secured with VC-JOSE-COSE, checked only with
 * libraries independent of the service: did-jwt-vc with did-resolver (web-did-resolver fetching
 * the hosted did:web through an HTTPS front, key-did-resolver for did:key issuers), jose with the
 * key the resolved document lists, jsonld (safe-mode expansion with the VCDM 2.0 context from
 * @digitalbazaar/credentials-context and the schema's context fetched from the service), Ajv's
 * 2020-12 dialect with the served JSON Schema, @digitalbazaar/vc-bitstring-status-list with the
 * status-list credential; and the other way round, a vc+jwt made with jose imported into a wallet.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { checkStatus, createList, decodeList, type BitstringStatusList } from '@digitalbazaar/vc-bitstring-status-list'
import { contexts as credentialContexts } from '@digitalbazaar/credentials-context'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import canonicalize from 'canonicalize'
import { verifyCredential } from 'did-jwt-vc'
import { Resolver, type VerificationMethod } from 'did-resolver'
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose'
import jsonld from 'jsonld'
import { getResolver as keyDidResolver } from 'key-did-resolver'
import { base58btc } from 'multiformats/bases/base58'
import { getResolver as webDidResolver } from 'web-did-resolver'
import type { HttpGet, HttpResponse } from '../../src/adapters/http-out/guarded-fetch.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor, DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const VC_V2 = 'https://www.w3.org/ns/credentials/v2'
const OUTSIDE_LIST = 'https://status.outside.example/lists/1'
const SCHEMA = { ...DEGREE_SCHEMA, name: 'Degree 2', anonymous_credentials: false }
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

/** The JWK of a verification method as a DID document lists it (JWK, Multikey or base58 Ed25519), decoded here. */
function jwkOf(method: VerificationMethod): JWK {
  if (method.publicKeyJwk) return method.publicKeyJwk as JWK
  const multibase = method.publicKeyMultibase
  const raw = multibase ? base58btc.decode(multibase).subarray(2) : base58btc.decode(`z${method.publicKeyBase58!}`)
  assert.equal(raw.length, 32, `${method.type} is not an Ed25519 key`)
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }
}

const tamper = (jwt: string, change: (payload: Json) => void): string => {
  const [h, p, s] = jwt.split('.')
  const payload = JSON.parse(Buffer.from(p!, 'base64url').toString())
  change(payload)
  return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`
}

describe('VCDM 2.0 credentials secured with VC-JOSE-COSE (vc+jwt)', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const keyIssuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  const verifier = new DidClient()
  const outsider = new DidClient()
  let holderToken: string
  let verifierToken: string
  let schemaId: string
  let keySchemaId: string
  const resolver = new Resolver({ ...webDidResolver(), ...keyDidResolver() })
  const didJwtVcOptions = { policies: { format: false }, proofPurpose: 'assertionMethod' as const }
  // The outside issuer's status list, encoded by vc-bitstring-status-list and served as a vc+jwt signed with jose.
  let outsideList: BitstringStatusList
  const httpGet: HttpGet = async (url): Promise<HttpResponse> => {
    if (url !== OUTSIDE_LIST) return { status: 404, headers: {}, body: new Uint8Array(), url }
    const list = await new SignJWT({
      '@context': [VC_V2],
      id: OUTSIDE_LIST,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: outsider.did,
      iss: outsider.did,
      validFrom: new Date().toISOString(),
      credentialSubject: {
        id: `${OUTSIDE_LIST}#list`,
        type: 'BitstringStatusList',
        statusPurpose: 'revocation',
        encodedList: await outsideList.encode(),
      },
    })
      .setProtectedHeader({
        alg: 'EdDSA',
        typ: 'vc+jwt',
        kid: `${outsider.did}#${outsider.did.slice('did:key:'.length)}`,
      })
      .sign(outsider.privateKey)
    return {
      status: 200,
      headers: { 'content-type': 'application/vc+jwt' },
      body: new Uint8Array(Buffer.from(list)),
      url,
    }
  }

  /** GET through the HTTPS front, as any client on the network would. */
  const fetchText = async (url: string): Promise<{ status: number; type: string; body: string }> => {
    const res = await fetch(url)
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() }
  }
  const issue = async (actor: IssuerActor, schema: string, extra: Json = {}): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${actor.did}/issue`, actor.token, {
      format: 'vc+jwt',
      credential_type: 'UniversityDegree',
      schema_id: schema,
      subject_did: holder.did,
      attributes: ATTRIBUTES,
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    // The issued record as the issuer's listing shows it: id, jwt, format, signing_did, credential_hash.
    return res.json().credential.credential
  }
  /** A vc+jwt verified with jose by the key its kid names in the DID document did-resolver gives. */
  const joseVerify = async (jwt: string): Promise<JWTPayload> => {
    const header = decodeProtectedHeader(jwt)
    assert.equal(header.typ, 'vc+jwt')
    const did = String(header.kid).split('#')[0]!
    const { didDocument } = await resolver.resolve(did)
    assert.ok(didDocument, `${did} resolves`)
    const absolute = (id: string) => (id.startsWith('#') ? `${did}${id}` : id)
    assert.ok(
      (didDocument.assertionMethod ?? []).some((m) => absolute(typeof m === 'string' ? m : m.id) === header.kid),
      'kid is an assertion method',
    )
    const method = didDocument.verificationMethod!.find((m) => absolute(m.id) === header.kid)!
    const { payload } = await jwtVerify(jwt, await importJWK(jwkOf(method), 'EdDSA'), {
      typ: 'vc+jwt',
      issuer: did,
      algorithms: ['EdDSA'],
    })
    return payload
  }
  /** A static JSON-LD document loader: the VCDM 2.0 context from its package, the rest fetched once from the service. */
  const loaded = new Map<string, unknown>(credentialContexts)
  const documentLoader = async (url: string) => {
    if (!loaded.has(url)) {
      const res = await fetchText(url)
      assert.equal(res.status, 200, `${url}: ${res.body}`)
      assert.match(res.type, /application\/ld\+json/)
      loaded.set(url, JSON.parse(res.body))
    }
    return { contextUrl: undefined, documentUrl: url, document: structuredClone(loaded.get(url)) as Json }
  }
  // jsonld's safe mode (JSON-LD 1.1 "safe" expansion: a term it would drop throws); @types/jsonld lacks the option.
  const expandSafe = (doc: Json) =>
    jsonld.expand(doc, { documentLoader, safe: true } as unknown as Parameters<typeof jsonld.expand>[1])

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin }, httpGet })
    outsideList = await createList({ length: 131_072 })
    front.serve(t.app)
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
    verifierToken = await verifier.login(t.app)
    await other.login(t.app)
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('issues a VCDM 2.0 credential as the JWT payload that did-jwt-vc and jose verify against the hosted did:web', async () => {
    const credential = await issue(issuer, schemaId)
    assert.equal(credential.format, 'vc+jwt')
    const jwt: string = credential.jwt
    const header = decodeProtectedHeader(jwt)
    assert.deepEqual(Object.keys(header).sort(), ['alg', 'kid', 'typ'])
    assert.equal(header.alg, 'EdDSA')
    const did = String(header.kid).split('#')[0]!
    assert.equal(did, credential.signing_did)
    assert.match(did, /^did:web:localhost%3A\d+:issuers:[0-9a-f]{32}$/)

    // did-jwt-vc resolves the did:web over HTTPS (web-did-resolver) and checks the signature.
    const verified = await verifyCredential(jwt, resolver, didJwtVcOptions)
    assert.equal(verified.verified, true)
    assert.equal(verified.issuer, did)
    assert.equal(verified.signer.id, header.kid)

    // jose, with the key the resolved document lists; the payload is the credential (VC-JOSE-COSE §3.1.1).
    const payload = (await joseVerify(jwt)) as Json
    assert.deepEqual(payload['@context'], [
      VC_V2,
      `${front.origin}/api/schemas/${schemaId}/context.jsonld?type=UniversityDegree`,
    ])
    assert.deepEqual(payload.type, ['VerifiableCredential', 'UniversityDegree'])
    assert.equal(payload.id, credential.id)
    assert.equal(payload.jti, payload.id)
    assert.equal(payload.issuer, did)
    assert.equal(payload.iss, payload.issuer)
    assert.equal(payload.sub, holder.did)
    assert.deepEqual(payload.credentialSubject, { ...ATTRIBUTES, id: holder.did })
    assert.deepEqual(payload.credentialSchema, {
      id: `${front.origin}/api/schemas/${schemaId}/json-schema.json`,
      type: 'JsonSchema',
    })
    assert.equal(payload.credentialStatus.type, 'BitstringStatusListEntry')
    assert.equal(Math.floor(Date.parse(payload.validFrom) / 1000), payload.nbf)
    assert.equal(payload.iat, payload.nbf)
    assert.ok(payload.nbf <= Date.now() / 1000 + 1)
    assert.equal(payload.validUntil, undefined)
    assert.equal(payload.vc, undefined, 'no VCDM 1.1 vc claim')
    // credential_hash: SHA-256 of the RFC 8785 form of the whole payload (docs/formats.md).
    assert.equal(credential.credential_hash, createHash('sha256').update(canonicalize(payload)!).digest('hex'))
  })

  it('with an expiration date, validUntil and exp say it alike; both libraries refuse a tampered or expired credential', async () => {
    const expiry = new Date(Date.now() + 86_400_000)
    const credential = await issue(issuer, schemaId, { expiration_date: expiry.toISOString() })
    const payload = (await joseVerify(credential.jwt)) as Json
    assert.equal(payload.validUntil, expiry.toISOString())
    assert.equal(payload.exp, Math.floor(expiry.getTime() / 1000))

    const forged = tamper(credential.jwt, (p) => (p.credentialSubject.gpa = 4.0))
    await assert.rejects(verifyCredential(forged, resolver, didJwtVcOptions), /signature/i)
    await assert.rejects(joseVerify(forged), /signature verification failed/)
    const claimed = tamper(credential.jwt, (p) => (p.issuer = outsider.did))
    await assert.rejects(joseVerify(claimed))

    // An expired one: made by an outside issuer with jose, refused by did-jwt-vc (exp) and by the wallet (validUntil).
    const past = Math.floor(Date.now() / 1000) - 3600
    const expired = await outsideCredential({ validUntil: new Date(past * 1000).toISOString(), exp: past })
    await assert.rejects(verifyCredential(expired, resolver, didJwtVcOptions), /expired/)
    const refused = await importJwt(expired)
    assert.equal(refused.statusCode, 422, refused.body)
    assert.equal(refused.json().details.reason, 'expired')
  })

  it('a did:key issuer (signing_did_method "key") issues vc+jwt that did-jwt-vc verifies through key-did-resolver', async () => {
    const credential = await issue(keyIssuer, keySchemaId)
    const did = String(decodeProtectedHeader(credential.jwt).kid).split('#')[0]!
    assert.match(did, /^did:key:z6Mk/)
    const verified = await verifyCredential(credential.jwt, resolver, didJwtVcOptions)
    assert.equal(verified.issuer, did)
    const payload = (await joseVerify(credential.jwt)) as Json
    assert.equal(payload.issuer, did)
    assert.equal(payload.iss, did)
  })

  it('expands as JSON-LD in safe mode with the VCDM 2.0 context and the served schema context: every attribute, the type, schema, status and evidence kept', async () => {
    const uploaded = await t.deps.content.put(Buffer.from('transcript bytes'))
    const evidence = [
      {
        label: 'transcript',
        filename: 't.pdf',
        ipfs_hash: uploaded.cid,
        gateway_url: `${front.origin}/api/ipfs/${uploaded.cid}`,
        content_type: 'application/pdf',
        size: 16,
      },
    ]
    const credential = await issue(issuer, schemaId, { evidence, extensions: ['honours'] })
    const payload = decodeJwt(credential.jwt) as Json
    assert.equal(payload.evidence[0].id, `ipfs://${uploaded.cid}`)
    const [expanded] = (await expandSafe(payload)) as Json[]
    const vocab = `${front.origin}/api/schemas/${schemaId}/vocab#`
    const cred = 'https://www.w3.org/2018/credentials#'
    assert.deepEqual(expanded!['@type'], [`${cred}VerifiableCredential`, `${vocab}UniversityDegree`])
    assert.equal(expanded!['@id'], credential.id)
    const subject = expanded![`${cred}credentialSubject`][0]
    assert.equal(subject['@id'], holder.did)
    for (const name of Object.keys(ATTRIBUTES))
      assert.ok(subject[`${vocab}${name}`], `attribute ${name} expanded under the schema vocabulary`)
    assert.deepEqual(subject[`${vocab}birth_date`], [
      { '@type': 'http://www.w3.org/2001/XMLSchema#date', '@value': '1815-12-10' },
    ])
    assert.deepEqual(subject[`${vocab}gpa`], [{ '@type': 'http://www.w3.org/2001/XMLSchema#double', '@value': 3.9 }])
    assert.deepEqual(subject[`${vocab}graduated`], [
      { '@type': 'http://www.w3.org/2001/XMLSchema#boolean', '@value': true },
    ])
    assert.deepEqual(subject[`${vocab}address`], [{ '@type': '@json', '@value': ATTRIBUTES.address }])
    assert.deepEqual(subject[`${vocab}courses`], [{ '@type': '@json', '@value': ATTRIBUTES.courses }])
    assert.deepEqual(expanded![`${cred}credentialSchema`], [
      { '@id': payload.credentialSchema.id, '@type': [`${cred}JsonSchema`] },
    ])
    const status = expanded![`${cred}credentialStatus`][0]
    assert.equal(status['@id'], payload.credentialStatus.id)
    assert.deepEqual(status['https://www.w3.org/ns/credentials/status#statusListIndex'], [
      { '@value': payload.credentialStatus.statusListIndex },
    ])
    const [attached] = expanded![`${cred}evidence`]
    assert.equal(attached['@id'], `ipfs://${uploaded.cid}`)
    assert.deepEqual(attached['@type'], [`${vocab}Evidence`])
    assert.ok(attached[`${vocab}filename`] && attached[`${vocab}size`] && attached['https://schema.org/name'])
    assert.deepEqual(expanded![`${vocab}extensions`], [{ '@value': 'honours' }])
    assert.equal(expanded!['https://www.w3.org/2018/credentials#validFrom'][0]['@value'], payload.validFrom)

    // Safe mode is what makes this a check: a term the contexts do not define throws.
    await assert.rejects(
      expandSafe({ ...payload, credentialSubject: { ...payload.credentialSubject, shoe_size: 42 } }),
      /Safe mode validation error/,
    )
    // The context is public; an unknown schema is 404.
    assert.equal((await fetchText(`${front.origin}/api/schemas/schema-nope/context.jsonld`)).status, 404)
  })

  it("the served JSON Schema (2020-12) validates the credential's subject and rejects a wrong type or a missing attribute", async () => {
    const credential = await issue(issuer, schemaId)
    const payload = decodeJwt(credential.jwt) as Json
    const res = await fetchText(payload.credentialSchema.id)
    assert.equal(res.status, 200)
    assert.match(res.type, /application\/schema\+json/)
    const schema = JSON.parse(res.body)
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema')
    assert.equal(schema.$id, payload.credentialSchema.id)
    const ajv = addFormats.default(new Ajv2020.default({ strict: true, allErrors: true }))
    const validate = ajv.compile(schema)
    assert.equal(validate(payload), true, JSON.stringify(validate.errors))
    assert.equal(validate({ ...payload, credentialSubject: { ...payload.credentialSubject, gpa: 'excellent' } }), false)
    assert.ok(validate.errors!.some((e) => e.instancePath === '/credentialSubject/gpa'))
    assert.equal(
      validate({ ...payload, credentialSubject: { ...payload.credentialSubject, birth_date: '10 Dec 1815' } }),
      false,
    )
    const { given_name: _omitted, ...withoutName } = payload.credentialSubject
    assert.equal(validate({ ...payload, credentialSubject: withoutName }), false)
    assert.equal(validate({ ...payload, credentialSubject: { ...payload.credentialSubject, shoe_size: 42 } }), false)
  })

  it('the status list is a VCDM 2.0 vc+jwt: jose verifies it against the issuer DID, vc-bitstring-status-list reads the bit before and after revocation', async () => {
    const credential = await issue(issuer, schemaId)
    const payload = decodeJwt(credential.jwt) as Json
    const entry = payload.credentialStatus
    const readList = async (): Promise<Json> => {
      const res = await fetchText(entry.statusListCredential)
      assert.equal(res.status, 200)
      assert.match(res.type, /application\/vc\+jwt/)
      const list = (await joseVerify(res.body)) as Json
      assert.equal(list.issuer, credential.signing_did)
      assert.equal(list.iss, list.issuer)
      assert.deepEqual(list.type, ['VerifiableCredential', 'BitstringStatusListCredential'])
      assert.equal(list.id, entry.statusListCredential)
      assert.equal(list.credentialSubject.statusPurpose, 'revocation')
      return list
    }
    // The library reads the list once we verified its JWT (it verifies Data Integrity proofs only).
    const libraryStatus = async (list: Json) => {
      const result = await checkStatus({
        credential: payload,
        documentLoader: async () => ({ document: list }),
        verifyBitstringStatusListCredential: false,
        verifyMatchingIssuers: true,
      })
      assert.equal(result.verified, true, result.error?.message)
      return result.results![0]!.status
    }
    const index = Number(entry.statusListIndex)
    let list = await readList()
    assert.equal((await decodeList({ encodedList: list.credentialSubject.encodedList })).getStatus(index), false)
    assert.equal(await libraryStatus(list), false)
    // The status-list credential expands in safe mode with the VCDM 2.0 context alone.
    const [expanded] = (await expandSafe(list)) as Json[]
    assert.ok(
      expanded!['https://www.w3.org/2018/credentials#credentialSubject'][0][
        'https://www.w3.org/ns/credentials/status#encodedList'
      ],
    )
    // ?format=json still answers the JWT and its decoded credential.
    const json = (await callAs(t.app, 'GET', `${new URL(entry.statusListCredential).pathname}?format=json`)).json()
    assert.equal(json.credential.id, entry.statusListCredential)

    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    list = await readList()
    assert.equal((await decodeList({ encodedList: list.credentialSubject.encodedList })).getStatus(index), true)
    assert.equal(await libraryStatus(list), true)
  })

  describe('presented in a VP-JWT to a verifier request', () => {
    const request = async (): Promise<Json> => {
      const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
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
        required_predicates: [{ attribute: 'gpa', operator: '>=', value: 3 }],
        purpose: 'Hiring',
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json()
    }
    /** The verifier submits the VP (a holder's, or anyone's) for its request and verifies it. */
    const verified = async (jwts: string[], signer: DidClient = holder): Promise<Json> => {
      const created = await request()
      const vp = signPresentation(signer, { aud: verifier.did, nonce: created.request.nonce, credentials: jwts })
      const submitted = await callAs(t.app, 'POST', '/api/verifier/presentations', verifierToken, {
        presentation_jwt: vp,
        request_id: created.request.id,
      })
      assert.equal(submitted.statusCode, 201, submitted.body)
      const res = await callAs(
        t.app,
        'POST',
        `/api/verifier/presentations/${submitted.json().presentation.id}/verify`,
        verifierToken,
        { presentation_jwt: vp },
      )
      assert.equal(res.statusCode, 200, res.body)
      return res.json().verification_result
    }

    it('verifies, and meets a request naming the issuer and schema', async () => {
      const credential = await issue(issuer, schemaId)
      const result = await verified([credential.jwt])
      assert.deepEqual(result.errors, [])
      assert.equal(result.is_valid, true)
    })

    it('fails when tampered, revoked, or presented by another holder', async () => {
      const credential = await issue(issuer, schemaId)
      const tampered = await verified([tamper(credential.jwt, (p) => (p.credentialSubject.gpa = 4.0))])
      assert.equal(tampered.is_valid, false)
      assert.ok(
        tampered.errors.some((e: string) => /issuer signature/.test(e)),
        tampered.errors.join('; '),
      )

      const theirs = await verified([credential.jwt], other)
      assert.equal(theirs.is_valid, false)
      assert.ok(
        theirs.errors.some((e: string) => /not to the holder/.test(e)),
        theirs.errors.join('; '),
      )

      assert.equal(
        (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`, issuer.token))
          .statusCode,
        200,
      )
      const revoked = await verified([credential.jwt])
      assert.equal(revoked.is_valid, false)
      assert.ok(
        revoked.errors.some((e: string) => /revoked/.test(e)),
        revoked.errors.join('; '),
      )
    })
  })

  /** A vc+jwt an outside issuer made with jose: did:key, the VCDM 2.0 context alone. */
  async function outsideCredential(extra: Json = {}, subject = holder.did): Promise<string> {
    const now = Math.floor(Date.now() / 1000)
    const fragment = outsider.did.slice('did:key:'.length)
    const { exp, ...properties } = extra
    const payload = {
      '@context': [VC_V2],
      id: `urn:uuid:${crypto.randomUUID()}`,
      type: ['VerifiableCredential', 'ExternalBadge'],
      issuer: { id: outsider.did, name: 'Badge Co' },
      validFrom: new Date((now - 60) * 1000).toISOString(),
      credentialSubject: { id: subject, badge: 'gold', level: 3 },
      iss: outsider.did,
      ...properties,
    }
    const jwt = new SignJWT(payload)
      .setProtectedHeader({ alg: 'EdDSA', typ: 'vc+jwt', kid: `${outsider.did}#${fragment}` })
      .setIssuedAt(now)
    if (exp !== undefined) jwt.setExpirationTime(exp)
    return jwt.sign(outsider.privateKey)
  }
  const importJwt = (jwt: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/credentials/import`,
      headers: bearer(holderToken),
      payload: { credential_jwt: jwt },
    })

  it('a wallet imports a vc+jwt an outside issuer made with jose, and refuses it tampered, for someone else or claiming another issuer', async () => {
    const jwt = await outsideCredential()
    assert.equal((await verifyCredential(jwt, resolver, didJwtVcOptions)).issuer, outsider.did)
    const res = await importJwt(jwt)
    assert.equal(res.statusCode, 201, res.body)
    const imported = res.json().credential
    assert.equal(imported.issuer_did, outsider.did)
    assert.equal(imported.issuer_name, 'Badge Co')
    assert.equal(imported.credential_type, 'ExternalBadge')
    assert.deepEqual(imported.credential_data, { badge: 'gold', level: 3 })
    assert.equal(imported.jwt, jwt)
    assert.equal(
      imported.credential_hash,
      createHash('sha256')
        .update(canonicalize(decodeJwt(jwt))!)
        .digest('hex'),
    )

    const refusal = async (bad: string, reason: string) => {
      const refused = await importJwt(bad)
      assert.equal(refused.statusCode, 422, refused.body)
      assert.equal(refused.json().details.reason, reason)
    }
    await refusal(
      tamper(await outsideCredential(), (p) => (p.credentialSubject.level = 9)),
      'signature',
    )
    await refusal(await outsideCredential({}, other.did), 'subject')
    await refusal(await outsideCredential({ issuer: issuer.did }), 'issuer')
    await refusal(
      await outsideCredential({ validFrom: new Date(Date.now() + 86_400_000).toISOString() }),
      'not_yet_valid',
    )
    await refusal(await outsideCredential({ '@context': ['https://www.w3.org/2018/credentials/v1'] }), 'malformed')
  })

  it("reads an outside issuer's status list published as a VCDM 2.0 vc+jwt: imports while the bit is clear, refuses once it is set", async () => {
    const credentialStatus = (index: number) => ({
      id: `${OUTSIDE_LIST}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: OUTSIDE_LIST,
    })
    const active = await importJwt(await outsideCredential({ credentialStatus: credentialStatus(4242) }))
    assert.equal(active.statusCode, 201, active.body)
    assert.equal(active.json().credential.status, 'active')
    outsideList.setStatus(4243, true)
    const refused = await importJwt(await outsideCredential({ credentialStatus: credentialStatus(4243) }))
    assert.equal(refused.statusCode, 422, refused.body)
    assert.equal(refused.json().details.reason, 'revoked')
  })
})
