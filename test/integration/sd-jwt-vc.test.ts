import assert from 'node:assert/strict'
import { createPublicKey, sign, verify, type JsonWebKey as NodeJwk, type KeyObject } from 'node:crypto'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { getListFromStatusListJWT } from '@owf/token-status-list'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Identity',
  description: 'A person',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'family_name', data_type: 'string', required: true },
    { name: 'birthdate', data_type: 'date', required: true },
    { name: 'email', data_type: 'email', required: true },
    { name: 'nationality', data_type: 'string', required: true },
    { name: 'document_type', data_type: 'string', always_disclosed: true },
  ],
  anonymous_credentials: false,
}
const ATTRIBUTES = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1964-08-12',
  email: 'erika@example.com',
  nationality: 'DE',
  document_type: 'pid-lite',
}

// The other side, written against @sd-jwt/sd-jwt-vc and node:crypto only (RFC 7518 §3.4: ES256 is r||s).
const hasher = (data: string | ArrayBuffer, alg: string) =>
  new Uint8Array(
    createHash(alg.replace('-', ''))
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )
const algOf = (data: string) => JSON.parse(Buffer.from(data.split('.')[0]!, 'base64url').toString()).alg
const verifyJws = (jwk: Json, data: string, signature: string) => {
  const key = createPublicKey({ key: jwk as NodeJwk, format: 'jwk' })
  const sig = Buffer.from(signature, 'base64url')
  if (algOf(data) === 'ES256')
    return (
      key.asymmetricKeyType === 'ec' && verify('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }, sig)
    )
  return algOf(data) === 'EdDSA' && key.asymmetricKeyType === 'ed25519' && verify(null, Buffer.from(data), key, sig)
}
const decode = (part: string): Json => JSON.parse(Buffer.from(part, 'base64url').toString())

/** A holder's wallet: discloses the chosen claims and signs a KB-JWT with its own key. */
function present(
  credential: string,
  key: KeyObject,
  frame: Record<string, boolean>,
  kb: { nonce: string; aud: string; iat?: number },
): Promise<string> {
  const holder = new SDJwtVcInstance({
    hasher,
    kbSigner: async (data: string) => sign(null, Buffer.from(data), key).toString('base64url'),
    kbSignAlg: 'EdDSA',
  })
  return holder.present(credential, frame, {
    kb: { payload: { iat: kb.iat ?? Math.floor(Date.now() / 1000), aud: kb.aud, nonce: kb.nonce } },
  })
}

/**
 * SD-JWT VC (dc+sd-jwt) end to end, with @sd-jwt/sd-jwt-vc on the other side: issued over HTTP,
 * verified by the library with the key from the served JWT VC Issuer Metadata, `vct` resolving to
 * served Type Metadata, two of five claims presented with a KB-JWT and verified by the verifier
 * routes; tampering, another holder's key, wrong nonce or audience and revocation (read back from
 * the IETF Token Status List) all fail.
 */
describe('SD-JWT VC: issue, verify with the library, present two of five claims', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const other = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let otherToken: string
  let verifierToken: string
  let schemaId: string
  let issued: Json
  let metadata: Json

  const issue = async (body: Json = {}) =>
    callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: ATTRIBUTES,
      format: 'dc+sd-jwt',
      ...body,
    })

  /** One request, taken by the holder, approved with the item in a VP-JWT, verified by the verifier. */
  const presentAndVerify = async (item: (nonce: string) => Promise<string>): Promise<Json> => {
    const created = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'IdentityCheck',
      required_credentials: [
        { credential_type: 'Identity', issuer_did: issuer.did, required_attributes: ['given_name', 'email'] },
      ],
      purpose: 'Identity check',
    })
    assert.equal(created.statusCode, 201, created.body)
    const request = created.json().request
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: request.id }))
        .statusCode,
      201,
    )
    const vp = signPresentation(holder, {
      aud: verifier.did,
      nonce: request.nonce,
      credentials: [await item(request.nonce)],
    })
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${request.id}/approve`,
      holderToken,
      { credential_ids: [issued.id], presentation_jwt: vp },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    const res = await callAs(
      t.app,
      'POST',
      `/api/verifier/presentations/${approved.json().presentation.id}/verify`,
      verifierToken,
      { presentation_jwt: vp },
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json().verification_result
  }
  const twoOfFive = (
    nonce: string,
    kb: Partial<{ nonce: string; aud: string; iat: number }> = {},
    key = holder.privateKey,
  ) => present(issued.jwt, key, { given_name: true, email: true }, { nonce, aud: verifier.did, ...kb })
  const invalid = (result: Json, expected: RegExp) => {
    assert.equal(result.is_valid, false, 'must not verify')
    assert.ok(
      result.errors.some((e: string) => expected.test(e)),
      result.errors.join('; '),
    )
  }
  /** The library as an outside verifier: the issuer key from the JWT VC Issuer Metadata fetched over HTTPS. */
  const libraryVerifier = () =>
    new SDJwtVcInstance({
      hasher,
      verifier: (data: string, signature: string) => {
        const kid = decode(data.split('.')[0]!).kid
        const jwk = metadata.jwks.keys.find((k: Json) => k.kid === kid)
        return Boolean(jwk) && verifyJws(jwk, data, signature)
      },
      kbVerifier: (data: string, signature: string, payload: Json) => verifyJws(payload.cnf.jwk, data, signature),
    })

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Registry')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    otherToken = await other.login(t.app)
    verifierToken = await verifier.login(t.app)
    const res = await issue()
    assert.equal(res.statusCode, 201, res.body)
    issued = res.json().credential
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('issues an SD-JWT VC the library verifies with the key of the served JWT VC Issuer Metadata', async () => {
    const [jwt, ...disclosures] = issued.jwt.split('~')
    const header = decode(jwt.split('.')[0])
    const payload = decode(jwt.split('.')[1])
    assert.equal(header.typ, 'dc+sd-jwt')
    assert.equal(header.alg, 'ES256')
    // The record says what the credential is: its format and its signature (no BBS companion in this schema).
    assert.equal(issued.credential.format, 'dc+sd-jwt')
    assert.equal(issued.credential.signature_type, 'ES256')
    // iss is the hosted issuer's https URL; its metadata sits under /.well-known/jwt-vc-issuer (SD-JWT VC §4.1).
    assert.match(payload.iss, new RegExp(`^${front.origin}/issuers/[a-f0-9]{32}$`))
    const res = await fetch(`${front.origin}/.well-known/jwt-vc-issuer${new URL(payload.iss).pathname}`)
    assert.equal(res.status, 200)
    metadata = (await res.json()) as Json
    assert.equal(metadata.issuer, payload.iss)
    assert.ok(
      metadata.jwks.keys.some((k: Json) => k.kid === header.kid && k.crv === 'P-256'),
      JSON.stringify(metadata),
    )
    // Five selectively disclosable claims; document_type is always disclosed (the schema says so).
    assert.equal(disclosures.filter(Boolean).length, 5)
    assert.equal(payload.document_type, 'pid-lite')
    assert.equal(payload.given_name, undefined)
    assert.equal(payload.jti, issued.id)
    const verified = await libraryVerifier().verify(issued.jwt, { disableStatusVerification: true })
    assert.equal(verified.payload.given_name, 'Erika')
    assert.equal(verified.payload.nationality, 'DE')
    // cnf is the holder's own key (its did:key's Ed25519 key).
    assert.deepEqual(
      { kty: payload.cnf.jwk.kty, crv: payload.cnf.jwk.crv, x: payload.cnf.jwk.x },
      { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(holder.publicKey).toString('base64url') },
    )
    // vct resolves to Type Metadata served at that URL (SD-JWT VC §6.3.1).
    const typeRes = await fetch(payload.vct)
    assert.equal(typeRes.status, 200)
    const type = (await typeRes.json()) as Json
    assert.equal(type.vct, payload.vct)
    assert.equal(type.name, 'Identity')
    assert.deepEqual(type.claims.find((c: Json) => c.path[0] === 'document_type').sd, 'always')
    assert.deepEqual(type.claims.find((c: Json) => c.path[0] === 'email').sd, 'allowed')
    // The status entry names an IETF Token Status List.
    assert.equal(payload.status.status_list.uri.startsWith(`${front.origin}/api/status-lists/`), true)
    assert.equal(typeof payload.status.status_list.idx, 'number')
    // The library itself rejects a signature by another key.
    const forged = `${jwt.split('.').slice(0, 2).join('.')}.${randomBytes(64).toString('base64url')}~${disclosures.join('~')}`
    await assert.rejects(libraryVerifier().verify(forged, { disableStatusVerification: true }))
  })

  it('refuses an unknown format with 400', async () => {
    const res = await issue({ format: 'mso_mdoc_x' })
    assert.equal(res.statusCode, 400, res.body)
    assert.match(res.json().message, /format "mso_mdoc_x"/)
  })

  it('verifies two of five claims presented with a KB-JWT made by the library', async () => {
    let presented = ''
    const result = await presentAndVerify(async (nonce) => (presented = await twoOfFive(nonce)))
    assert.deepEqual(result.errors, [])
    assert.equal(result.is_valid, true)
    // Only what the holder chose (and the always disclosed claim) reaches the verifier.
    const subject = result.credential_subjects[0]
    assert.equal(subject.given_name, 'Erika')
    assert.equal(subject.email, 'erika@example.com')
    assert.equal(subject.document_type, 'pid-lite')
    for (const hidden of ['family_name', 'birthdate', 'nationality']) assert.equal(subject[hidden], undefined, hidden)
    // The library accepts the same presentation (nonce and sd_hash).
    const kb = decode(presented.split('~').at(-1)!.split('.')[1]!)
    const checked = await libraryVerifier().verify(presented, {
      keyBindingNonce: kb.nonce,
      disableStatusVerification: true,
    })
    assert.equal(checked.kb?.payload.aud, verifier.did)
  })

  it('refuses a tampered disclosure, a KB-JWT by another key, a wrong nonce and a wrong audience', async () => {
    const tampered = async (nonce: string) => {
      const parts = (await twoOfFive(nonce)).split('~')
      const disclosure = decode(parts[1]!)
      disclosure[2] = 'Mallory'
      parts[1] = Buffer.from(JSON.stringify(disclosure)).toString('base64url')
      return parts.join('~')
    }
    invalid(await presentAndVerify(tampered), /credential 1.*(SD-JWT|key binding)/)
    invalid(await presentAndVerify((nonce) => twoOfFive(nonce, {}, other.privateKey)), /key binding/)
    invalid(await presentAndVerify(() => twoOfFive('not-the-request-nonce')), /key binding/)
    invalid(
      await presentAndVerify((nonce) => twoOfFive(nonce, { aud: other.did })),
      /KB-JWT's aud .* is not the verifier/,
    )
    invalid(
      await presentAndVerify((nonce) => twoOfFive(nonce, { iat: Math.floor(Date.now() / 1000) - 3600 })),
      /KB-JWT is too old/,
    )
    // Without a KB-JWT at all (a bare SD-JWT with disclosures).
    const bare = (nonce: string) =>
      new SDJwtVcInstance({ hasher })
        .present(issued.jwt, { given_name: true, email: true })
        .then((p) => (void nonce, p))
    invalid(await presentAndVerify(bare), /key binding/)
  })

  it('imports the SD-JWT VC into the wallet of its holder only', async () => {
    const second = (await issue()).json().credential
    assert.equal(
      (await callAs(t.app, 'DELETE', `/api/wallet/${holder.did}/credentials/${second.id}`, holderToken)).statusCode,
      200,
    )
    const imported = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, {
      credential_jwt: second.jwt,
    })
    assert.equal(imported.statusCode, 201, imported.body)
    assert.equal(imported.json().credential.id, second.id)
    // Bound (cnf) to the holder's key: another holder cannot keep it.
    const refused = await callAs(t.app, 'POST', `/api/wallet/${other.did}/credentials/import`, otherToken, {
      credential_jwt: second.jwt,
    })
    assert.equal(refused.statusCode, 422, refused.body)
    assert.equal(refused.json().details.reason, 'subject')
  })

  it('revocation sets the bit of the Token Status List and fails the presentation', async () => {
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${issued.id}/revoke`,
      issuer.token,
      { reason: 'test' },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    const { idx, uri } = decode(issued.jwt.split('~')[0].split('.')[1]).status.status_list
    const res = await fetch(uri)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /application\/statuslist\+jwt/)
    const token = await res.text()
    const [h, p, s] = token.split('.')
    assert.equal(decode(h!).typ, 'statuslist+jwt')
    assert.equal(decode(p!).sub, uri)
    // Signed by the issuer's key from its metadata; read by the status list library.
    const jwk = metadata.jwks.keys.find((k: Json) => k.kid === decode(h!).kid)
    assert.ok(jwk && verifyJws(jwk, `${h}.${p}`, s!), 'status list token signature')
    assert.equal(getListFromStatusListJWT(token).getStatus(idx), 1)
    assert.equal(getListFromStatusListJWT(token).getStatus(idx + 1), 0)
    invalid(await presentAndVerify((nonce) => twoOfFive(nonce)), /revoked/)
  })
})
