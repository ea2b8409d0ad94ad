import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { OP } from '@sphereon/did-auth-siop'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { DcqlQuery } from 'dcql'
import * as jose from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { generateWalletKey, resolveDidUrlJwk, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SELF_ISSUED_V2 = 'https://self-issued.me/v2'
const SCHEMA = {
  name: 'Identity',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'family_name', data_type: 'string', required: true },
  ],
  anonymous_credentials: false,
}
const hasher = (data: string | ArrayBuffer, alg: string) =>
  new Uint8Array(
    createHash(alg.replace('-', '').toLowerCase())
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )

/**
 * The request side of OpenID4VP as Sphereon's @sphereon/did-auth-siop 0.20.1 (a holder's OP)
 * reads it: it fetches the request object at request_uri and verifies it through the wallet's JWT
 * callback (here: the verifier's did:web resolved over HTTPS, the signature and the audience a
 * wallet without metadata expects, OID4VP 1.0 §5.8), then hands over the DCQL query, which a
 * standard wallet matches against what it holds with the `dcql` library (OID4VP 1.0 §6, B.3.5).
 */
describe('OpenID4VP request objects as Sphereon did-auth-siop reads them', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let schemaId: string
  let key: WalletKey
  let sdJwt: string

  const createRequest = async (requirement: Json) => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'IdentityCheck',
      required_credentials: [requirement],
      purpose: 'Identity check',
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }
  /** Sphereon's OP; the JWT callback is the wallet's: the request object's signer resolved, its `aud` the one §5.8 names. */
  const sphereonOp = () =>
    OP.builder()
      .withVerifyJwtCallback(async (verifierInfo, jwt) => {
        if (verifierInfo.method !== 'did')
          throw new Error(`a did-signed request object was expected, not ${verifierInfo.method}`)
        const jwk = await resolveDidUrlJwk(verifierInfo.didUrl)
        const options = { audience: SELF_ISSUED_V2, typ: 'oauth-authz-req+jwt' }
        await jose.jwtVerify(jwt.raw, await jose.importJWK(jwk as jose.JWK, verifierInfo.alg), options)
        return true
      })
      // The OP answers nothing here: it only resolves and verifies the request.
      .withCreateJwtCallback(async () => {
        throw new Error('not used')
      })
      .withHasher(hasher as never)
      .build()

  before(async () => {
    front = await HttpsFront.open()
    t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin } })
    front.serve(t.app)
    await issuer.setUp(t.app, 'Registry')
    schemaId = await issuer.schema(t.app, SCHEMA)
    verifierToken = await verifier.login(t.app)
    key = await generateWalletKey('ES256')
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Identity',
      schema_id: schemaId,
      subject_did: key.did,
      attributes: { given_name: 'Erika', family_name: 'Mustermann' },
      format: 'dc+sd-jwt',
    })
    assert.equal(issued.statusCode, 201, issued.body)
    sdJwt = issued.json().credential.jwt
  })
  after(async () => {
    await t.close()
    await front.close()
  })

  it('Sphereon resolves and verifies the request object: signed by the verifier did:web, aud self-issued.me/v2 (§5.8)', async () => {
    const created = await createRequest({ credential_type: 'Identity', required_attributes: ['given_name'] })
    const verified = await sphereonOp().verifyAuthorizationRequest(created.authorization_request_uri)
    assert.equal(verified.responseURI, created.openid4vp.response_uri)
    // The same, read with jose alone: no wallet metadata was sent (request_uri_method get), so aud is the static value.
    const object = jose.decodeJwt(verified.jwt!)
    assert.equal(object.aud, SELF_ISSUED_V2)
    assert.equal(object.client_id, created.openid4vp.client_id)
  })

  it('without schema_id, DCQL names the vct of the credential issued (vct_values, B.3.5); a wallet matches it', async () => {
    const created = await createRequest({
      credential_type: 'Identity',
      issuer_did: issuer.did,
      required_attributes: ['given_name'],
    })
    const verified = await sphereonOp().verifyAuthorizationRequest(created.authorization_request_uri)
    const query = DcqlQuery.parse(verified.dcqlQuery as DcqlQuery.Input)
    DcqlQuery.validate(query)
    const sd = query.credentials.find((c) => c.format === 'dc+sd-jwt') as Json
    const jwtVc = query.credentials.find((c) => c.format === 'jwt_vc_json') as Json
    const claims = (await new SDJwtVcInstance({ hasher }).getClaims(sdJwt)) as Json
    // §6.1: meta is required; B.3.5: vct_values names the type. No made-up claim carries it instead.
    assert.ok(Array.isArray(sd.meta?.vct_values), JSON.stringify(sd))
    assert.ok(sd.meta.vct_values.includes(claims.vct), `${JSON.stringify(sd.meta)} should name ${claims.vct}`)
    assert.ok(!(sd.claims ?? []).some((c: Json) => c.path[0] === 'credential_type'), JSON.stringify(sd.claims))
    assert.deepEqual(jwtVc.meta, { type_values: [['Identity']] })
    // A wallet holding the credential (only its selectively disclosable claims as claims) matches the query.
    const disclosable = Object.fromEntries(
      Object.entries(claims).filter(([name]) => ['given_name', 'family_name'].includes(name)),
    )
    const held = (vct: string) => [
      { credential_format: 'dc+sd-jwt' as const, vct, claims: disclosable, cryptographic_holder_binding: true },
    ]
    const result = DcqlQuery.query(query, held(String(claims.vct)))
    assert.equal(result.can_be_satisfied, true, JSON.stringify(result.credential_matches))
    // A credential of another type is not matched by its vct.
    const other = DcqlQuery.query(query, held(`${front.origin}/vct/another-schema`))
    assert.equal(other.can_be_satisfied, false)
  })
})
