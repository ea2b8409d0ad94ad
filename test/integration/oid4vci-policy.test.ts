/**
 * An issuer's OpenID4VCI policy (docs/openid4vci.md "Issuer policy"): set and read over HTTP, with
 * step-up when the profile requires it; what the metadata announces; DPoP required per issuer and
 * its server nonces waived. The wallet side is test/helpers/haip-wallet.ts (jose only).
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { IssuerActor, callAs } from '../helpers/issuer-setup.js'
import { makeOffer } from '../helpers/https-issuer.js'
import { dpopProof, newKey, type Json } from '../helpers/haip-wallet.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

const BASE = 'https://issuer.test'
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'
const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder', data_type: 'string', required: true }],
  anonymous_credentials: false,
}
const OPEN = {
  par_required: false,
  dpop_required: false,
  dpop_nonce_required: true,
  wallet_attestation_required: false,
  key_attestation_required: false,
  trusted_wallet_providers: [],
  credential_response_encryption: 'none',
}

describe('OpenID4VCI issuer policy', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } })
    await issuer.setUp(t.app, 'Pass office')
    schemaId = await issuer.schema(t.app, SCHEMA)
  })
  after(() => t.close())

  const url = () => `/api/issuer/${issuer.did}/oid4vci-policy`
  const put = (body: Json, token = issuer.token) => callAs(t.app, 'PUT', url(), token, body)
  const offer = async () => {
    const created = await makeOffer(t, issuer, {
      credential_type: 'Pass',
      schema_id: schemaId,
      format: 'jwt_vc_json',
      attributes: { holder: 'Ada' },
    })
    const issuerUrl = created.credential_offer.credential_issuer as string
    return {
      issuerUrl,
      path: issuerUrl.slice(BASE.length),
      code: created.credential_offer.grants[PRE_AUTHORIZED]['pre-authorized_code'] as string,
    }
  }
  const get = async (path: string) => {
    const res = await t.app.inject({ method: 'GET', url: path })
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as Json
  }
  const metadata = async (issuerPath: string) => ({
    as: await get(`/.well-known/oauth-authorization-server${issuerPath}`),
    ci: await get(`/.well-known/openid-credential-issuer${issuerPath}`),
  })
  const token = (o: { path: string; code: string }, proof?: string) =>
    t.app.inject({
      method: 'POST',
      url: `${o.path}/oid4vci/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(proof ? { dpop: proof } : {}) },
      payload: new URLSearchParams({ grant_type: PRE_AUTHORIZED, 'pre-authorized_code': o.code }).toString(),
    })

  it("answers today's behaviour until set; the metadata announces no PAR requirement, no attestations, no encryption", async () => {
    const res = await callAs(t.app, 'GET', url(), issuer.token)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().policy, OPEN)
    const { as, ci } = await metadata((await offer()).path)
    assert.equal(as.require_pushed_authorization_requests, false)
    assert.equal(as.pushed_authorization_request_endpoint, `${BASE}${(await offer()).path}/oid4vci/par`)
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['none'])
    assert.equal(ci.credential_response_encryption, undefined)
    for (const configuration of Object.values(ci.credential_configurations_supported) as Json[])
      assert.equal(configuration.proof_types_supported.jwt.key_attestations_required, undefined)
  })

  it('sets a policy that the authorization server and credential issuer metadata announce at once', async () => {
    const provider = await newKey()
    const policy = {
      ...OPEN,
      par_required: true,
      wallet_attestation_required: true,
      key_attestation_required: true,
      trusted_wallet_providers: [{ jwk: provider.jwk }],
      credential_response_encryption: 'required',
    }
    const res = await put(policy)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().policy, policy)
    assert.deepEqual((await callAs(t.app, 'GET', url(), issuer.token)).json().policy, policy)
    const { as, ci } = await metadata((await offer()).path)
    assert.equal(as.require_pushed_authorization_requests, true)
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['attest_jwt_client_auth'])
    assert.deepEqual(as.client_attestation_signing_alg_values_supported, ['ES256'])
    assert.deepEqual(ci.credential_response_encryption, {
      alg_values_supported: ['ECDH-ES'],
      enc_values_supported: ['A128GCM', 'A256GCM'],
      encryption_required: true,
    })
    for (const configuration of Object.values(ci.credential_configurations_supported) as Json[]) {
      assert.deepEqual(configuration.proof_types_supported.jwt.key_attestations_required, {})
    }
    // Optional encryption and attestations accepted but not required.
    const optional = await put({
      ...policy,
      wallet_attestation_required: false,
      credential_response_encryption: 'optional',
    })
    assert.equal(optional.statusCode, 200, optional.body)
    const again = await metadata((await offer()).path)
    assert.deepEqual(again.as.token_endpoint_auth_methods_supported, ['none', 'attest_jwt_client_auth'])
    assert.equal(again.ci.credential_response_encryption.encryption_required, false)
    assert.equal((await put(OPEN)).statusCode, 200)
  })

  it('refuses attestations required without a trusted provider, a private or non-P-256 key, a bad certificate, unknown members', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const privateJwk = privateKey.export({ format: 'jwk' })
    const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' })
    for (const [what, body] of [
      ['wallet attestation, no provider', { ...OPEN, wallet_attestation_required: true }],
      ['key attestation, no provider', { ...OPEN, key_attestation_required: true }],
      ['private key', { ...OPEN, trusted_wallet_providers: [{ jwk: privateJwk }] }],
      ['Ed25519 key', { ...OPEN, trusted_wallet_providers: [{ jwk: ed }] }],
      [
        'bad PEM',
        {
          ...OPEN,
          trusted_wallet_providers: [
            { certificate_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' },
          ],
        },
      ],
      ['unknown encryption', { ...OPEN, credential_response_encryption: 'sometimes' }],
      ['missing member', { ...OPEN, par_required: undefined }],
    ] as const) {
      const res = await put(body as Json)
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`)
    }
    assert.deepEqual((await callAs(t.app, 'GET', url(), issuer.token)).json().policy, OPEN, 'nothing was stored')
  })

  it('refuses anyone but the issuer, and without a fresh step-up when the profile requires it', async () => {
    assert.equal((await put(OPEN, '')).statusCode, 401)
    const other = await new IssuerActor().setUp(t.app, 'Other')
    assert.equal((await callAs(t.app, 'PUT', url(), other.token, OPEN)).statusCode, 403)
    assert.equal((await callAs(t.app, 'GET', url(), other.token)).statusCode, 403)
    const strict = await new IssuerActor().setUp(t.app, 'Strict')
    const set = await callAs(t.app, 'POST', `/api/issuer/${strict.did}/set-auth`, strict.token, {
      ...(await strict.proof(t.app, strict.did, 'step-up')),
      require_step_up: true,
    })
    assert.equal(set.statusCode, 200, set.body)
    const strictUrl = `/api/issuer/${strict.did}/oid4vci-policy`
    const refused = await callAs(t.app, 'PUT', strictUrl, strict.token, { ...OPEN, par_required: true })
    assert.equal(refused.statusCode, 401, refused.body)
    assert.match(refused.json().message, /step-up/)
    const stepUp = await callAs(
      t.app,
      'POST',
      `/api/issuer/${strict.did}/authenticate`,
      strict.token,
      await strict.proof(t.app, strict.did, 'step-up'),
    )
    assert.equal(stepUp.statusCode, 200, stepUp.body)
    const done = await callAs(t.app, 'PUT', strictUrl, strict.token, { ...OPEN, par_required: true })
    assert.equal(done.statusCode, 200, done.body)
  })

  it('dpop_required refuses a token request without DPoP; dpop_nonce_required false takes a proof without a server nonce', async () => {
    const key = await newKey()
    // Today's behaviour: a bearer token without DPoP; a proof without the server nonce refused.
    const bearer = await token(await offer())
    assert.equal(bearer.statusCode, 200, bearer.body)
    assert.equal(bearer.json().token_type, 'Bearer')
    const o = await offer()
    const noNonce = await token(o, await dpopProof(key, { htu: `${o.issuerUrl}/oid4vci/token` }))
    assert.equal(noNonce.json().error, 'use_dpop_nonce')

    assert.equal((await put({ ...OPEN, dpop_required: true, dpop_nonce_required: false })).statusCode, 200)
    const refused = await token(await offer())
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(refused.json().error, 'invalid_dpop_proof')
    const waived = await token(o, await dpopProof(key, { htu: `${o.issuerUrl}/oid4vci/token` }))
    assert.equal(waived.statusCode, 200, waived.body)
    assert.equal(waived.json().token_type, 'DPoP')
    // A nonce it does carry is still checked.
    const p = await offer()
    const madeUp = await token(p, await dpopProof(key, { htu: `${p.issuerUrl}/oid4vci/token`, nonce: 'made-up' }))
    assert.equal(madeUp.json().error, 'use_dpop_nonce')
    assert.equal((await put(OPEN)).statusCode, 200)
  })
})
