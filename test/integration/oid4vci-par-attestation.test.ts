/**
 * Pushed authorization requests (RFC 9126) and wallet attestation as client authentication
 * (draft-ietf-oauth-attestation-based-client-auth) under an issuer policy that requires both: the
 * wallet and its provider are test/helpers/haip-wallet.ts (jose only), the provider's CA chain is
 * made with @peculiar/x509 (mdoc-test-chain.ts). Refusals: a direct authorization request, no,
 * untrusted, expired or wrongly bound attestations, a replayed PoP, a reused or unknown request_uri.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes, X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { attestationPop, newKey, walletAttestation, type Json, type Key } from '../helpers/haip-wallet.js'
import { makeOffer } from '../helpers/https-issuer.js'
import { IssuerActor, callAs } from '../helpers/issuer-setup.js'
import { makeTestChain } from '../helpers/mdoc-test-chain.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

const BASE = 'https://issuer.test'
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'
const CLIENT_ID = 'haip-wallet'
const REDIRECT = 'https://wallet.example/callback'
const SCHEMA = {
  name: 'Library card',
  version: '1',
  attributes: [{ name: 'card_number', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

describe('PAR and wallet attestation required by the issuer policy', () => {
  let t: TestApp
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()
  let schemaId: string
  let provider: Key
  let instance: Key
  let caPem: string
  let leaf: { der: Uint8Array; key: Key }

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE }, clock })
    await issuer.setUp(t.app, 'Library')
    schemaId = await issuer.schema(t.app, SCHEMA)
    provider = await newKey()
    instance = await newKey()
    const chain = await makeTestChain()
    caPem = new X509Certificate(chain.iacaDer).toString()
    leaf = { der: chain.dsDer, key: { privateKey: chain.dsPrivateKey, jwk: {} } }
    const set = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/oid4vci-policy`, issuer.token, {
      par_required: true,
      dpop_required: false,
      dpop_nonce_required: true,
      wallet_attestation_required: true,
      key_attestation_required: false,
      trusted_wallet_providers: [{ jwk: provider.jwk }, { certificate_pem: caPem }],
      credential_response_encryption: 'none',
    })
    assert.equal(set.statusCode, 200, set.body)
  })
  after(() => t.close())

  const offer = async (preAuthorized = false) => {
    const created = await makeOffer(t, issuer, {
      credential_type: 'LibraryCard',
      schema_id: schemaId,
      attributes: { card_number: '42' },
      format: 'jwt_vc_json',
      pre_authorized: preAuthorized,
    })
    const issuerUrl = created.credential_offer.credential_issuer as string
    return {
      issuerUrl,
      path: issuerUrl.slice(BASE.length),
      configurationId: created.credential_configuration_id as string,
      issuerState: created.credential_offer.grants.authorization_code?.issuer_state as string,
      code: created.credential_offer.grants[PRE_AUTHORIZED]?.['pre-authorized_code'] as string,
    }
  }
  type Offer = Awaited<ReturnType<typeof offer>>

  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url')
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
  }
  const authorizationParams = (o: Offer, challenge: string) => ({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    issuer_state: o.issuerState,
    scope: o.configurationId,
  })
  const attestationHeaders = async (o: Offer, options: { attestation?: string; pop?: string } = {}) => ({
    'oauth-client-attestation': options.attestation ?? (await walletAttestation(provider, instance)),
    'oauth-client-attestation-pop': options.pop ?? (await attestationPop(instance, o.issuerUrl)),
  })
  const form = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(body).toString(),
    })
  const push = (o: Offer, body: Record<string, string>, headers: Record<string, string> = {}) =>
    form(`${o.path}/oid4vci/par`, body, headers)
  const expectError = (
    res: { statusCode: number; body: string; json(): Json },
    status: number,
    error: string,
    what: string,
  ) => {
    assert.equal(res.statusCode, status, `${what}: ${res.body}`)
    assert.equal(res.json().error, error, what)
  }

  it('announces PAR and attestation client authentication as required', async () => {
    const o = await offer()
    const as = (await t.app.inject({ method: 'GET', url: `/.well-known/oauth-authorization-server${o.path}` })).json()
    assert.equal(as.require_pushed_authorization_requests, true)
    assert.equal(as.pushed_authorization_request_endpoint, `${o.issuerUrl}/oid4vci/par`)
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['attest_jwt_client_auth'])
  })

  it('issues a code through a pushed request of an attested wallet; the request_uri is single use', async () => {
    const o = await offer()
    const { verifier, challenge } = pkce()
    const pushed = await push(o, authorizationParams(o, challenge), await attestationHeaders(o))
    assert.equal(pushed.statusCode, 201, pushed.body)
    const requestUri = pushed.json().request_uri as string
    assert.match(requestUri, /^urn:ietf:params:oauth:request_uri:/)
    assert.ok(pushed.json().expires_in > 0 && pushed.json().expires_in <= 600)

    const holder = new DidClient()
    const step1 = await t.app.inject({
      method: 'GET',
      url: `${o.path}/oid4vci/authorize?${new URLSearchParams({ client_id: CLIENT_ID, request_uri: requestUri, did: holder.did })}`,
      headers: { accept: 'application/json' },
    })
    assert.equal(step1.statusCode, 200, step1.body)
    const signIn = async () =>
      t.app.inject({
        method: 'POST',
        url: `${o.path}/oid4vci/authorize`,
        headers: { accept: 'application/json' },
        payload: {
          client_id: CLIENT_ID,
          request_uri: requestUri,
          did: holder.did,
          challenge: step1.json().challenge,
          signature: holder.sign(step1.json().challenge),
        },
      })
    const step2 = await signIn()
    assert.equal(step2.statusCode, 200, step2.body)
    const redirect = new URL(step2.json().redirect_uri)
    assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT)
    const code = redirect.searchParams.get('code')!
    expectError(await signIn(), 400, 'invalid_request_uri', 'the request_uri a second time')

    const tokenBody = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: CLIENT_ID,
    }
    expectError(
      await form(`${o.path}/oid4vci/token`, tokenBody),
      401,
      'invalid_client',
      'a token request without attestation',
    )
    const token = await form(`${o.path}/oid4vci/token`, tokenBody, await attestationHeaders(o))
    assert.equal(token.statusCode, 200, token.body)
    assert.equal(typeof token.json().access_token, 'string')
  })

  it('refuses a direct authorization request, an unknown request_uri, and one of another client', async () => {
    const o = await offer()
    const { challenge } = pkce()
    const direct = await t.app.inject({
      method: 'GET',
      url: `${o.path}/oid4vci/authorize?${new URLSearchParams({ ...authorizationParams(o, challenge), did: new DidClient().did })}`,
      headers: { accept: 'application/json' },
    })
    expectError(direct, 400, 'invalid_request', 'a request not pushed')
    assert.match(direct.json().error_description, /pushed authorization requests/)
    const authorize = (params: Record<string, string>) =>
      t.app.inject({
        method: 'GET',
        url: `${o.path}/oid4vci/authorize?${new URLSearchParams({ ...params, did: new DidClient().did })}`,
        headers: { accept: 'application/json' },
      })
    expectError(
      await authorize({ client_id: CLIENT_ID, request_uri: 'urn:ietf:params:oauth:request_uri:made-up' }),
      400,
      'invalid_request_uri',
      'a made-up request_uri',
    )
    const pushed = await push(o, authorizationParams(o, challenge), await attestationHeaders(o))
    assert.equal(pushed.statusCode, 201, pushed.body)
    expectError(
      await authorize({ client_id: 'another-wallet', request_uri: pushed.json().request_uri }),
      400,
      'invalid_request',
      'the request_uri of another client',
    )
  })

  it('refuses at PAR, with invalid_client, no attestation, an untrusted or expired one, a PoP by another key, a replayed PoP', async () => {
    const o = await offer()
    const params = authorizationParams(o, pkce().challenge)
    const stranger = await newKey()
    const refusals: Array<[string, Record<string, string>]> = [
      ['no attestation', {}],
      ['an attestation without its PoP', { 'oauth-client-attestation': await walletAttestation(provider, instance) }],
      [
        'an untrusted provider',
        await attestationHeaders(o, { attestation: await walletAttestation(stranger, instance) }),
      ],
      [
        'an expired attestation',
        await attestationHeaders(o, {
          attestation: await walletAttestation(provider, instance, { exp: Math.floor(Date.now() / 1000) - 60 }),
        }),
      ],
      [
        'a PoP by another key than cnf',
        await attestationHeaders(o, { pop: await attestationPop(stranger, o.issuerUrl) }),
      ],
      [
        'a PoP for another server',
        await attestationHeaders(o, { pop: await attestationPop(instance, 'https://elsewhere.example') }),
      ],
      [
        'another client_id than the attestation',
        await attestationHeaders(o, { pop: await attestationPop(instance, o.issuerUrl, { clientId: 'x' }) }),
      ],
    ]
    for (const [what, headers] of refusals) expectError(await push(o, params, headers), 401, 'invalid_client', what)
    const headers = await attestationHeaders(o)
    assert.equal((await push(o, params, headers)).statusCode, 201)
    expectError(await push(o, params, headers), 401, 'invalid_client', 'a replayed PoP')
  })

  it('refuses a request_uri past its lifetime (RFC 9126 §2.2: short-lived)', async () => {
    const o = await offer()
    const pushed = await push(o, authorizationParams(o, pkce().challenge), await attestationHeaders(o))
    assert.equal(pushed.statusCode, 201, pushed.body)
    clock.advance((pushed.json().expires_in + 1) * 1000)
    const late = await t.app.inject({
      method: 'GET',
      url: `${o.path}/oid4vci/authorize?${new URLSearchParams({ client_id: CLIENT_ID, request_uri: pushed.json().request_uri, did: new DidClient().did })}`,
      headers: { accept: 'application/json' },
    })
    expectError(late, 400, 'invalid_request_uri', 'an expired request_uri')
  })

  it('takes an attestation signed by a provider certificate chaining to the trusted CA; refuses a chain to another CA', async () => {
    const o = await offer(true)
    const x5c = [Buffer.from(leaf.der).toString('base64')]
    const token = (headers: Record<string, string>) =>
      form(`${o.path}/oid4vci/token`, { grant_type: PRE_AUTHORIZED, 'pre-authorized_code': o.code }, headers)
    const other = await makeTestChain()
    const foreign = await walletAttestation({ privateKey: other.dsPrivateKey, jwk: {} }, instance, {
      x5c: [Buffer.from(other.dsDer).toString('base64')],
    })
    expectError(
      await token(await attestationHeaders(o, { attestation: foreign })),
      401,
      'invalid_client',
      'a chain to another CA',
    )
    const answer = await token(
      await attestationHeaders(o, { attestation: await walletAttestation(leaf.key, instance, { x5c }) }),
    )
    assert.equal(answer.statusCode, 200, answer.body)
  })
})
