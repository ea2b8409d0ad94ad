/**
 * The default format (`jwt_vc_json`, VCDM 1.1 JWT-VC) read and written by did-jwt-vc, the
 * reference VC-JWT library, with the resolvers of the DIF universal-resolver family: the service
 * serves its did:web documents and status lists over HTTPS (the test front), did-jwt-vc fetches
 * them with web-did-resolver; a did:key issuer is resolved by key-did-resolver without any fetch.
 * The other way round, a credential made by did-jwt-vc is imported into a wallet and presented.
 */
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { EdDSASigner } from 'did-jwt'
import { createVerifiableCredentialJwt, createVerifiablePresentationJwt, verifyCredential } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose'
import { getResolver as keyDidResolver } from 'key-did-resolver'
import { base58btc } from 'multiformats/bases/base58'
import { getResolver as webDidResolver } from 'web-did-resolver'
import { DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [{ name: 'member', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

/** did-jwt's signer over an Ed25519 seed (RFC 8037 EdDSA). */
const signerOf = (client: DidClient) =>
  EdDSASigner(Buffer.from(client.privateKey.export({ format: 'jwk' }).d!, 'base64url'))

/** The JWK of a verification method: its own JWK, or a Multikey's Ed25519 key (multicodec 0xed01). */
function jwkOf(method: Json): JWK {
  if (method.publicKeyJwk) return method.publicKeyJwk
  const raw = base58btc.decode(method.publicKeyMultibase)
  assert.deepEqual([...raw.subarray(0, 2)], [0xed, 0x01])
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw.subarray(2)).toString('base64url') }
}

describe('jwt_vc_json interop with did-jwt-vc', () => {
  let front: HttpsFront
  let t: TestApp
  const webIssuer = new IssuerActor()
  const keyIssuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string
  // Independent resolvers: did:web fetched over HTTPS from the front, did:key computed.
  const webResolver = new Resolver(webDidResolver())
  const keyResolver = new Resolver(keyDidResolver())

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await webIssuer.setUp(t.app, 'Web club')
    keyIssuer.token = await keyIssuer.login(t.app)
    const created = await callAs(t.app, 'POST', '/api/issuer', keyIssuer.token, {
      name: 'Key club',
      signing_did_method: 'key',
    })
    assert.equal(created.statusCode, 201, created.body)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  const issue = async (issuer: IssuerActor): Promise<{ id: string; jwt: string; signingDid: string }> => {
    const schemaId = await issuer.schema(t.app, SCHEMA)
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Membership',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { member: 'Ada' },
      format: 'jwt_vc_json',
    })
    assert.equal(res.statusCode, 201, res.body)
    const signing = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/signing`, issuer.token)).json()
    return { id: res.json().credential.id, jwt: res.json().credential.jwt, signingDid: signing.signing_did }
  }
  const tampered = (jwt: string): string => {
    const [h, p, s] = jwt.split('.') as [string, string, string]
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString())
    payload.vc.credentialSubject.member = 'Mallory'
    return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`
  }
  /**
   * The status list a credential names, fetched over HTTPS, its JWT verified with jose by the key
   * its kid names in the issuer's DID document (resolved by web-did-resolver), and the credential's
   * bit read from the GZIP-compressed, base64url (multibase "u") bitstring: Bitstring Status List
   * §3.2, index 0 the left-most bit of the first byte.
   */
  const statusBit = async (entry: Json, issuerDid: string): Promise<boolean> => {
    assert.equal(entry.type, 'BitstringStatusListEntry')
    assert.ok(entry.statusListCredential.startsWith(`${front.origin}/`), entry.statusListCredential)
    const res = await fetch(entry.statusListCredential)
    assert.equal(res.status, 200)
    const jwt = (await res.text()).trim()
    const { kid, typ } = decodeProtectedHeader(jwt)
    // The list is a VCDM 2.0 credential secured with VC-JOSE-COSE: the payload is the credential.
    assert.equal(typ, 'vc+jwt')
    assert.ok(kid?.startsWith(`${issuerDid}#`), kid)
    const doc = (await webResolver.resolve(issuerDid)).didDocument as Json
    const method = doc.verificationMethod.find((m: Json) => m.id === kid || `${issuerDid}${m.id}` === kid)
    assert.ok(
      method && doc.assertionMethod.some((r: unknown) => r === method.id),
      `${kid} is an assertionMethod of ${issuerDid}`,
    )
    const { payload } = await jwtVerify(jwt, await importJWK(jwkOf(method), 'EdDSA'), { issuer: issuerDid })
    assert.ok((payload.type as string[]).includes('BitstringStatusListCredential'))
    const subject = payload.credentialSubject as Json
    assert.equal(subject.statusPurpose, entry.statusPurpose)
    assert.ok(subject.encodedList.startsWith('u'))
    const bits = gunzipSync(Buffer.from(subject.encodedList.slice(1), 'base64url'))
    const index = Number(entry.statusListIndex)
    assert.ok(index < bits.length * 8)
    return ((bits[index >> 3]! >> (7 - (index & 7))) & 1) === 1
  }

  it('a hosted did:web issuer: did-jwt-vc verifies it over HTTPS; a tampered one fails; its status list reads revoked after revocation', async () => {
    const { id, jwt, signingDid } = await issue(webIssuer)
    assert.match(signingDid, /^did:web:localhost%3A\d+:issuers:/)
    const verified = await verifyCredential(jwt, webResolver, { proofPurpose: 'assertionMethod' })
    assert.equal(verified.issuer, signingDid)
    assert.equal(verified.verifiableCredential.credentialSubject.id, holder.did)
    assert.equal(verified.verifiableCredential.credentialSubject.member, 'Ada')
    assert.equal(verified.verifiableCredential.id, id)
    await assert.rejects(
      verifyCredential(tampered(jwt), webResolver, { proofPurpose: 'assertionMethod' }),
      /invalid_signature/,
    )

    const entry = verified.verifiableCredential.credentialStatus as Json
    assert.equal(await statusBit(entry, signingDid), false)
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${webIssuer.did}/credentials/${id}/revoke`,
      webIssuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.equal(await statusBit(entry, signingDid), true)
  })

  it('a did:key issuer: key-did-resolver alone (no fetch) verifies it; a tampered one fails', async () => {
    const { jwt, signingDid } = await issue(keyIssuer)
    assert.match(signingDid, /^did:key:z6Mk/)
    const verified = await verifyCredential(jwt, keyResolver, { proofPurpose: 'assertionMethod' })
    assert.equal(verified.issuer, signingDid)
    assert.equal(verified.verifiableCredential.credentialSubject.member, 'Ada')
    await assert.rejects(
      verifyCredential(tampered(jwt), keyResolver, { proofPurpose: 'assertionMethod' }),
      /invalid_signature/,
    )
  })

  it('a credential made by did-jwt-vc for a did:key issuer is imported into the wallet and presented', async () => {
    const outsider = new DidClient()
    const nbf = Math.floor(Date.now() / 1000) - 60
    // did-jwt-vc's defaults: header {alg, typ: 'JWT'} without kid, payload vc, sub, nbf, iss (no jti).
    const credential = await createVerifiableCredentialJwt(
      {
        sub: holder.did,
        nbf,
        vc: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          type: ['VerifiableCredential', 'LibraryCard'],
          credentialSubject: { reader: 'Ada' },
        },
      },
      { did: outsider.did, signer: signerOf(outsider), alg: 'EdDSA' },
    )
    const imported = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, {
      credential_jwt: credential,
    })
    assert.equal(imported.statusCode, 201, imported.body)
    const stored = imported.json().credential
    assert.equal(stored.issuer_did, outsider.did)
    assert.equal(stored.credential_type, 'LibraryCard')
    // Tampered, it is refused for its signature.
    const [h, p, s] = credential.split('.') as [string, string, string]
    const forged = JSON.parse(Buffer.from(p, 'base64url').toString())
    forged.vc.credentialSubject.reader = 'Mallory'
    const refused = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, {
      credential_jwt: `${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`,
    })
    assert.equal(refused.statusCode, 422, refused.body)
    assert.equal(refused.json().details.reason, 'signature')

    const request = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'LibraryCheck',
      required_credentials: [
        { credential_type: 'LibraryCard', issuer_did: outsider.did, required_attributes: ['reader'] },
      ],
      purpose: 'Lending',
    })
    assert.equal(request.statusCode, 201, request.body)
    const { id: requestId, nonce } = request.json().request
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: requestId }))
        .statusCode,
      201,
    )
    const vp = await createVerifiablePresentationJwt(
      {
        vp: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          type: ['VerifiablePresentation'],
          verifiableCredential: [credential],
        },
      },
      { did: holder.did, signer: signerOf(holder), alg: 'EdDSA' },
      { challenge: nonce, domain: verifier.did },
    )
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${requestId}/approve`,
      holderToken,
      { credential_ids: [stored.id], presentation_jwt: vp },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    const verified = await callAs(
      t.app,
      'POST',
      `/api/verifier/presentations/${approved.json().presentation.id}/verify`,
      verifierToken,
      { presentation_jwt: vp },
    )
    assert.equal(verified.statusCode, 200, verified.body)
    const result = verified.json().verification_result
    assert.deepEqual(result.errors, [])
    assert.equal(result.is_valid, true)
    assert.equal(result.credential_subjects[0].reader, 'Ada')
    assert.equal(result.credential_subjects[0].issuer, outsider.did)
  })
})
