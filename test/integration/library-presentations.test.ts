/**
 * Presentations as a standard library makes them: did-jwt-vc `createVerifiablePresentationJwt`
 * with its defaults (header {alg, typ: 'JWT'} without kid; payload vp and iss only, no exp or
 * iat) plus {challenge, domain} for the request's nonce and verifier, signed by did-jwt's
 * EdDSASigner. Accepted through the holder's approval and the verifier's verify; every check that
 * binds it (nonce, audience, signature, an exp that is there, one key when kid is absent) still refuses.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { EdDSASigner } from 'did-jwt'
import { createVerifiablePresentationJwt, type JwtPresentationPayload } from 'did-jwt-vc'
import type { HttpGet, HttpResponse } from '../../src/adapters/http-out/guarded-fetch.js'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Licence',
  version: '1.0',
  attributes: [{ name: 'given_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

/** A holder's did:web whose document lists two Ed25519 authentication keys (served by the stub below). */
const TWO_KEYS_DID = 'did:web:two-keys.example'
const twoKeys = [generateKeyPairSync('ed25519'), generateKeyPairSync('ed25519')]
const twoKeysDocument = {
  '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
  id: TWO_KEYS_DID,
  verificationMethod: twoKeys.map((k, i) => ({
    id: `${TWO_KEYS_DID}#key-${i + 1}`,
    type: 'JsonWebKey2020',
    controller: TWO_KEYS_DID,
    publicKeyJwk: k.publicKey.export({ format: 'jwk' }),
  })),
  authentication: [`${TWO_KEYS_DID}#key-1`, `${TWO_KEYS_DID}#key-2`],
}

/** did-jwt's signer over the holder's Ed25519 seed (RFC 8037 EdDSA). */
const signerOf = (privateKey: DidClient['privateKey']) =>
  EdDSASigner(Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'))

describe('presentations made by did-jwt-vc with its defaults', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  const other = new DidClient()
  let holderToken: string
  let verifierToken: string
  let schemaId: string
  // did:web documents come from this stub: the two-key holder's, nothing else.
  const httpGet: HttpGet = async (url): Promise<HttpResponse> => {
    if (url !== 'https://two-keys.example/.well-known/did.json')
      return { status: 404, headers: {}, body: new Uint8Array(), url }
    return {
      status: 200,
      headers: { 'content-type': 'application/did+json' },
      body: new Uint8Array(Buffer.from(JSON.stringify(twoKeysDocument))),
      url,
    }
  }

  before(async () => {
    t = await createTestApp({ httpGet })
    await issuer.setUp(t.app, 'Licensing')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(() => t.close())

  const issue = async (): Promise<{ id: string; jwt: string }> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Ada' },
      format: 'jwt_vc_json',
    })
    assert.equal(res.statusCode, 201, res.body)
    return { id: res.json().credential.id, jwt: res.json().credential.jwt }
  }
  const createRequest = async (): Promise<{ id: string; nonce: string }> => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'LicenceCheck',
      required_credentials: [
        { credential_type: 'DrivingLicence', issuer_did: issuer.did, required_attributes: ['given_name'] },
      ],
      purpose: 'Car hire',
    })
    assert.equal(res.statusCode, 201, res.body)
    await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: res.json().request.id })
    return res.json().request
  }
  /** What a wallet built on did-jwt-vc sends: only the options it is given change its defaults. */
  const libraryVp = (
    credentials: string[],
    options: { challenge?: string; domain?: string } = {},
    claims: Partial<JwtPresentationPayload> = {},
    did = holder.did,
    key = holder.privateKey,
  ) =>
    createVerifiablePresentationJwt(
      {
        vp: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          type: ['VerifiablePresentation'],
          verifiableCredential: credentials,
        },
        ...claims,
      },
      { did, signer: signerOf(key), alg: 'EdDSA' },
      options,
    )
  const approve = (requestId: string, ids: string[], jwt: string) =>
    callAs(t.app, 'POST', `/api/wallet/presentation-requests/${requestId}/approve`, holderToken, {
      credential_ids: ids,
      presentation_jwt: jwt,
    })
  const verify = async (presentationId: string, jwt: string): Promise<Json> => {
    const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentationId}/verify`, verifierToken, {
      presentation_jwt: jwt,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().verification_result
  }
  const submit = (jwt: string, requestId?: string) =>
    callAs(
      t.app,
      'POST',
      '/api/verifier/presentations',
      verifierToken,
      requestId ? { presentation_jwt: jwt, request_id: requestId } : { presentation_jwt: jwt },
    )

  it('accepts a default VP bound by {challenge: nonce, domain: verifier} through approval and verify', async () => {
    const credential = await issue()
    const request = await createRequest()
    const jwt = await libraryVp([credential.jwt], { challenge: request.nonce, domain: verifier.did })
    // The defaults this test is about: no kid, no exp, no iat.
    const [header, payload] = jwt
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Json)
    assert.deepEqual(header, { alg: 'EdDSA', typ: 'JWT' })
    assert.deepEqual(Object.keys(payload!).sort(), ['aud', 'iss', 'nonce', 'vp'])
    const approved = await approve(request.id, [credential.id], jwt)
    assert.equal(approved.statusCode, 201, approved.body)
    const result = await verify(approved.json().presentation.id, jwt)
    assert.deepEqual(result.errors, [])
    assert.equal(result.is_valid, true)
    assert.equal(result.credential_subjects[0].given_name, 'Ada')
    // Submitted directly to a request as well (the verifier posts it; the signer is checked without kid).
    const direct = await createRequest()
    const directJwt = await libraryVp([credential.jwt], { challenge: direct.nonce, domain: verifier.did })
    const submitted = await submit(directJwt, direct.id)
    assert.equal(submitted.statusCode, 201, submitted.body)
    assert.equal((await verify(submitted.json().presentation.id, directJwt)).is_valid, true)
  })

  it('refuses it without the nonce, for another audience, or signed by another key', async () => {
    const credential = await issue()
    const request = await createRequest()
    const noNonce = await approve(
      request.id,
      [credential.id],
      await libraryVp([credential.jwt], { domain: verifier.did }),
    )
    assert.equal(noNonce.statusCode, 400)
    assert.equal(noNonce.json().message, "presentation_jwt must carry the request's nonce")
    const otherAudience = await approve(
      request.id,
      [credential.id],
      await libraryVp([credential.jwt], { challenge: request.nonce, domain: other.did }),
    )
    assert.equal(otherAudience.statusCode, 400)
    assert.equal(otherAudience.json().message, "presentation_jwt must name the request's verifier as aud")
    // The verifier's own checks say the same of a VP submitted straight to the request.
    const unboundJwt = await libraryVp([credential.jwt], { domain: verifier.did })
    const unbound = await submit(unboundJwt, request.id)
    assert.equal(unbound.statusCode, 201, unbound.body)
    const result = await verify(unbound.json().presentation.id, unboundJwt)
    assert.equal(result.is_valid, false)
    assert.ok(result.errors.includes('presentation nonce does not match the request'), result.errors.join('; '))

    // Signed with another key under the holder's iss: the approval takes it (signatures are the
    // verifier's), the verification refuses it; a direct submission is refused at once.
    const forgedRequest = await createRequest()
    const forged = await libraryVp(
      [credential.jwt],
      { challenge: forgedRequest.nonce, domain: verifier.did },
      {},
      holder.did,
      other.privateKey,
    )
    const approved = await approve(forgedRequest.id, [credential.id], forged)
    assert.equal(approved.statusCode, 201, approved.body)
    const refused = await verify(approved.json().presentation.id, forged)
    assert.equal(refused.is_valid, false)
    assert.ok(
      refused.errors.includes(
        `presentation signature: the signature does not verify with ${holder.did}#${holder.did.slice('did:key:'.length)}`,
      ),
      refused.errors.join('; '),
    )
    const direct = await submit(
      await libraryVp([credential.jwt], { domain: verifier.did }, {}, holder.did, other.privateKey),
    )
    assert.equal(direct.statusCode, 400)
    assert.match(
      direct.json().message,
      /^presentation_jwt is not signed by its holder did:key:.*: the signature does not verify with /,
    )
  })

  it('refuses a VP without kid from a DID with two authentication keys, naming the DID and the count', async () => {
    const jwt = await libraryVp([], { domain: verifier.did }, {}, TWO_KEYS_DID, twoKeys[0]!.privateKey)
    const res = await submit(jwt)
    assert.equal(res.statusCode, 400)
    assert.equal(
      res.json().message,
      `presentation_jwt is not signed by its holder ${TWO_KEYS_DID}: the header has no kid and ${TWO_KEYS_DID} has 2 authentication keys for EdDSA: without kid exactly one is accepted`,
    )
  })

  it('enforces an exp that is there, and asks a VP answering no request for exp or a recent iat', async () => {
    const credential = await issue()
    const now = Math.floor(Date.now() / 1000)
    const request = await createRequest()
    const expired = await libraryVp(
      [credential.jwt],
      { challenge: request.nonce, domain: verifier.did },
      { exp: now - 3600 },
    )
    const approved = await approve(request.id, [credential.id], expired)
    assert.equal(approved.statusCode, 201, approved.body)
    const result = await verify(approved.json().presentation.id, expired)
    assert.equal(result.is_valid, false)
    assert.deepEqual(result.errors, ['the presentation has expired'])

    // No request: the nonce binds nothing, so its lifetime must show on its face.
    const cases: Array<[Partial<JwtPresentationPayload>, string | undefined]> = [
      [
        {},
        'the presentation has no exp and no iat, and answers no request whose nonce would bind it: one of exp or a recent iat is required',
      ],
      [{ iat: now - 3600 }, 'the presentation has no exp and its iat is more than 5 minutes before it was received'],
      [{ iat: now }, undefined],
      [{ exp: now + 600 }, undefined],
    ]
    for (const [claims, error] of cases) {
      const jwt = await libraryVp([credential.jwt], { domain: verifier.did }, claims)
      const submitted = await submit(jwt)
      assert.equal(submitted.statusCode, 201, submitted.body)
      const outcome = await verify(submitted.json().presentation.id, jwt)
      assert.deepEqual(outcome.errors, error ? [error] : [], JSON.stringify(claims))
    }
  })
})
