/**
 * Issuers sign as DIDs whose own method publishes the keys (DESIGN.md "Issuer identity"): the
 * hosted did:web by default, service-generated did:keys on request, the issuer's own did:web
 * once it publishes the keys. Checked from the outside: documents fetched at the URL the did:web
 * method gives, keys read from the did:key itself, signatures verified with jose, the DID
 * Configuration's linkage JWTs verified with jose against the keys their documents list.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose'
import { base58btc } from 'multiformats/bases/base58'
import { didWebUrl } from '../../src/modules/did/methods/did-web-method.js'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
}

/** The JWK of a Multikey's Ed25519 key (multicodec 0xed01), decoded here without the service's code. */
function ed25519Jwk(publicKeyMultibase: string): JWK {
  const raw = base58btc.decode(publicKeyMultibase)
  assert.deepEqual([...raw.subarray(0, 2)], [0xed, 0x01])
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw.subarray(2)).toString('base64url') }
}

describe('issuer signing identities', () => {
  let t: TestApp
  const webIssuer = new IssuerActor()
  const keyIssuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string

  const fetchDoc = async (did: string) => {
    const res = await t.app.inject({ method: 'GET', url: new URL(didWebUrl(did)).pathname })
    assert.equal(res.statusCode, 200, res.body)
    assert.match(String(res.headers['content-type']), /application\/did\+ld\+json/)
    return res.json()
  }
  const issue = async (issuer: IssuerActor, schemaId: string) => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Membership',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { member: 'Ada', level: 3 },
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().credential.credential
  }

  before(async () => {
    t = await createTestApp()
    await webIssuer.setUp(t.app, 'Web issuer')
    keyIssuer.token = await keyIssuer.login(t.app)
    const created = await callAs(t.app, 'POST', '/api/issuer', keyIssuer.token, {
      name: 'Key issuer',
      signing_did_method: 'key',
    })
    assert.equal(created.statusCode, 201, created.body)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(() => t.close())

  it('signs as a did:web hosted here whose document lists Ed25519, P-256 and BBS keys; the login DID document lists none of them', async () => {
    const signing = (await callAs(t.app, 'GET', `/api/issuer/${webIssuer.did}/signing`, webIssuer.token)).json()
    assert.equal(signing.signing_did_method, 'web')
    assert.match(signing.signing_did, /^did:web:service\.test:issuers:[0-9a-f]{32}$/)
    const doc = await fetchDoc(signing.signing_did)
    assert.equal(doc.id, signing.signing_did)
    assert.deepEqual(doc.alsoKnownAs, [webIssuer.did])
    const types = doc.verificationMethod
      .map((m: Json) =>
        m.publicKeyJwk ? `${m.type}:${m.publicKeyJwk.crv}` : `${m.type}:${m.publicKeyMultibase.slice(0, 4)}`,
      )
      .sort()
    // Two BLS12-381 G2 keys: Dock's BBS (with bbsScheme) and the IETF BBS key of bbs-2023 (plain Multikey).
    assert.deepEqual(types, ['JsonWebKey2020:P-256', 'Multikey:z6Mk', 'Multikey:zUC7', 'Multikey:zUC7'])
    assert.equal(doc.verificationMethod.filter((m: Json) => m.bbsScheme !== undefined).length, 1)
    for (const m of doc.verificationMethod) assert.ok(doc.assertionMethod.includes(m.id))

    // A did:key document is the did:key method's alone: the service adds nothing to it.
    const own = (await callAs(t.app, 'GET', `/api/did/${webIssuer.did}`)).json()
    assert.deepEqual(
      own.didDocument.verificationMethod.map((m: Json) => m.id.split('#')[0]),
      [webIssuer.did, webIssuer.did],
    )
    assert.equal(own.didDocumentMetadata.serviceManagedVerificationMethods, undefined)

    // What it issues verifies with the key the hosted document publishes, and names that DID.
    const schemaId = await webIssuer.schema(t.app, SCHEMA)
    const credential = await issue(webIssuer, schemaId)
    assert.equal(credential.signing_did, signing.signing_did)
    assert.equal(credential.issuer_did, webIssuer.did)
    const kid = decodeProtectedHeader(credential.jwt).kid!
    const method = doc.verificationMethod.find((m: Json) => m.id === kid)
    const { payload } = await jwtVerify(
      credential.jwt,
      await importJWK(ed25519Jwk(method.publicKeyMultibase), 'EdDSA'),
      { issuer: signing.signing_did },
    )
    assert.equal((payload.vc as Json).issuer, signing.signing_did)
    assert.equal(
      await t.app
        .inject({ method: 'GET', url: '/issuers/00000000000000000000000000000000/did.json' })
        .then((r) => r.statusCode),
      404,
    )
  })

  it('with signing_did_method "key", signs with did:keys whose own keys verify, no fetch needed', async () => {
    const schemaId = await keyIssuer.schema(t.app, SCHEMA)
    const credential = await issue(keyIssuer, schemaId)
    const header = decodeProtectedHeader(credential.jwt)
    const did = String(header.kid).split('#')[0]!
    assert.match(did, /^did:key:z6Mk/)
    assert.equal(header.kid, `${did}#${did.slice('did:key:'.length)}`)
    const { payload } = await jwtVerify(
      credential.jwt,
      await importJWK(ed25519Jwk(did.slice('did:key:'.length)), 'EdDSA'),
      { issuer: did, subject: holder.did },
    )
    assert.equal(payload.jti, credential.id)
    // The BBS signature is made by a BLS12-381 G2 did:key.
    assert.match(credential.anonymous_credential.verification_method, /^did:key:zUC7[^#]+#zUC7/)
    const signing = (await callAs(t.app, 'GET', `/api/issuer/${keyIssuer.did}/signing`, keyIssuer.token)).json()
    assert.equal(signing.signing_did, did)
    assert.deepEqual(signing.signing_dids.map((d: Json) => d.key_type).sort(), [
      'BBS-BLS12-381-SHA-256',
      'BLS12381G2',
      'Ed25519',
      'P-256',
    ])
  })

  it('a did:key BBS credential yields anonymous proofs a verifier accepts, for a request naming the login DID', async () => {
    const schemaId = await keyIssuer.schema(t.app, { ...SCHEMA, version: '2' })
    const credential = await issue(keyIssuer, schemaId)
    const request = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'Membership',
      required_credentials: [
        { credential_type: 'Membership', issuer_did: keyIssuer.did, required_attributes: ['member'] },
      ],
      required_predicates: [{ attribute: 'level', operator: '>=', value: 2 }],
      purpose: 'Membership check',
    })
    assert.equal(request.statusCode, 201, request.body)
    const { id: requestId, nonce } = request.json().request
    const derived = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${credential.id}/anonymous-proof`,
      holderToken,
      {
        reveal: ['member'],
        predicates: [{ attribute: 'level', operator: '>=', value: 2 }],
        nonce,
        verifier_did: verifier.did,
      },
    )
    assert.equal(derived.statusCode, 200, derived.body)
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: requestId }))
        .statusCode,
      201,
    )
    const vp = signPresentation(holder, { aud: verifier.did, nonce, credentials: [derived.json().proof] })
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${requestId}/approve`,
      holderToken,
      { credential_ids: [credential.id], presentation_jwt: vp },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    const verified = await callAs(
      t.app,
      'POST',
      `/api/verifier/presentations/${approved.json().presentation.id}/verify`,
      verifierToken,
      { presentation_jwt: vp },
    )
    assert.deepEqual(verified.json().verification_result.errors, [])
    assert.equal(verified.json().verification_result.is_valid, true)
    // A request naming another issuer is not met by it.
    const other = new DidClient()
    const refused = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'Membership',
      required_credentials: [{ credential_type: 'Membership', issuer_did: other.did }],
      purpose: 'Membership check',
    })
    const take = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
      request_id: refused.json().request.id,
    })
    assert.equal(take.statusCode, 201)
    const proof2 = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/${credential.id}/anonymous-proof`,
      holderToken,
      { reveal: ['member'], predicates: [], nonce: refused.json().request.nonce, verifier_did: verifier.did },
    )
    const vp2 = signPresentation(holder, {
      aud: verifier.did,
      nonce: refused.json().request.nonce,
      credentials: [proof2.json().proof],
    })
    const approved2 = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${refused.json().request.id}/approve`,
      holderToken,
      { credential_ids: [credential.id], presentation_jwt: vp2 },
    )
    const result2 = (
      await callAs(
        t.app,
        'POST',
        `/api/verifier/presentations/${approved2.json().presentation.id}/verify`,
        verifierToken,
        { presentation_jwt: vp2 },
      )
    ).json()
    assert.equal(result2.verification_result.is_valid, false)
    assert.ok(
      result2.verification_result.errors.some((e: string) =>
        e.includes(`missing required credential Membership from ${other.did}`),
      ),
      result2.verification_result.errors.join('; '),
    )
  })

  it('switches method (step-up and ownership apply); "self" needs a did:web login DID that publishes the keys', async () => {
    const toKey = await callAs(t.app, 'PUT', `/api/issuer/${webIssuer.did}/signing`, webIssuer.token, {
      signing_did_method: 'key',
    })
    assert.equal(toKey.statusCode, 200, toKey.body)
    assert.match(toKey.json().signing_did, /^did:key:z6Mk/)
    // A did:key login DID cannot sign as itself.
    const self = await callAs(t.app, 'PUT', `/api/issuer/${webIssuer.did}/signing`, webIssuer.token, {
      signing_did_method: 'self',
    })
    assert.equal(self.statusCode, 400, self.body)
    assert.match(self.json().message, /did:web/)
    assert.equal(
      (
        await callAs(t.app, 'PUT', `/api/issuer/${webIssuer.did}/signing`, webIssuer.token, {
          signing_did_method: 'ledger',
        })
      ).statusCode,
      400,
    )
    assert.equal(
      (
        await callAs(t.app, 'PUT', `/api/issuer/${keyIssuer.did}/signing`, webIssuer.token, {
          signing_did_method: 'web',
        })
      ).statusCode,
      403,
    )
    assert.equal((await callAs(t.app, 'GET', `/api/issuer/${holder.did}/signing`, holderToken)).statusCode, 404)
    const back = await callAs(t.app, 'PUT', `/api/issuer/${webIssuer.did}/signing`, webIssuer.token, {
      signing_did_method: 'web',
    })
    assert.equal(back.statusCode, 200)
    assert.match(back.json().signing_did, /^did:web:/)
  })

  it('answers the public documents of unknown records 404, and malformed ids 400, with a message', async () => {
    const get = (url: string) => t.app.inject({ method: 'GET', url })
    for (const url of [
      '/issuers/00000000000000000000000000000000/did.json',
      '/.well-known/jwt-vc-issuer/issuers/00000000000000000000000000000000',
      '/vct/schema-nope',
      '/api/schemas/schema-nope/json-schema.json',
      '/api/schemas/schema-nope/context.jsonld',
      '/api/status-lists/list-nope/token',
    ]) {
      const res = await get(url)
      assert.equal(res.statusCode, 404, url)
      assert.ok(res.json().message, url)
    }
    for (const url of [
      '/issuers/NOT-HEX/did.json',
      '/.well-known/jwt-vc-issuer/issuers/short',
      `/vct/${'x'.repeat(101)}`,
      '/api/status-lists/bad!id/token',
    ]) {
      const res = await get(url)
      assert.equal(res.statusCode, 400, url)
      assert.ok(res.json().message, url)
    }
  })

  it('publishes the service did:web and a DID Configuration whose linkage JWTs verify against the linked documents', async () => {
    const service = await t.app.inject({ method: 'GET', url: '/.well-known/did.json' })
    assert.equal(service.statusCode, 200)
    assert.equal(service.json().id, 'did:web:service.test')
    const config = await t.app.inject({ method: 'GET', url: '/.well-known/did-configuration.json' })
    assert.equal(config.statusCode, 200)
    const body = config.json()
    assert.equal(body['@context'], 'https://identity.foundation/.well-known/did-configuration/v1')
    const linked: string[] = []
    for (const jwt of body.linked_dids) {
      const header = decodeProtectedHeader(jwt)
      const did = String(header.kid).split('#')[0]!
      const doc = did === 'did:web:service.test' ? service.json() : await fetchDoc(did)
      const method = doc.verificationMethod.find((m: Json) => m.id === header.kid)
      const { payload } = await jwtVerify(jwt, await importJWK(ed25519Jwk(method.publicKeyMultibase), 'EdDSA'), {
        issuer: did,
        subject: did,
      })
      assert.equal((payload.vc as Json).credentialSubject.origin, 'http://service.test')
      assert.ok((payload.vc as Json).type.includes('DomainLinkageCredential'))
      linked.push(did)
    }
    const webSigning = (await callAs(t.app, 'GET', `/api/issuer/${webIssuer.did}/signing`, webIssuer.token)).json()
      .signing_did
    assert.ok(linked.includes('did:web:service.test') && linked.includes(webSigning), linked.join(', '))
  })
})
