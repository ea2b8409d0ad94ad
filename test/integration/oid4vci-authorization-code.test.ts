/**
 * OpenID4VCI 1.0 authorization code flow (test/helpers/oid4vc-wallet): an offer without a
 * pre-authorized code carries `issuer_state`; the wallet's authorization request (PKCE S256) is
 * answered, in JSON, with a challenge the holder signs with its DID key (the service's sign-in);
 * the single-use code and its verifier give the access token; the credential is bound to a key of
 * the DID that signed in.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as jose from 'jose'
import { DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import { errorOf, walletKeyOf, type Json } from '../helpers/oid4vci-checks.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import type { TestApp } from '../helpers/test-app.js'

const SCHEMA = {
  name: 'Library card',
  version: '1',
  attributes: [{ name: 'card_number', data_type: 'string', required: true }],
  anonymous_credentials: false,
}
const REDIRECT = 'https://wallet.example/callback'

describe('OpenID4VCI authorization code flow', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string
  const logged: string[] = []

  before(
    async () =>
      ({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Library', SCHEMA, {
        env: { LOG_LEVEL: 'info' },
        logSink: { write: (line) => logged.push(line) },
      })),
  )
  after(() => closeHttpsIssuer({ front, t }))

  const offer = (body: Json = {}) =>
    makeOffer(
      t,
      issuer,
      {
        credential_type: 'LibraryCard',
        schema_id: schemaId,
        attributes: { card_number: '42' },
        format: 'jwt_vc_json',
        pre_authorized: false,
      },
      body,
    )

  /** The user agent: opens the authorization URL for JSON, has the holder sign the challenge, follows to the redirect. */
  const signIn = async (url: string, holder: DidClient): Promise<URL> => {
    const withDid = new URL(url)
    withDid.searchParams.set('did', holder.did)
    const step1 = await fetch(withDid, { headers: { accept: 'application/json' } })
    assert.equal(step1.status, 200, await step1.clone().text())
    const { challenge } = (await step1.json()) as Json
    const step2 = await fetch(`${url.split('?')[0]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        ...Object.fromEntries(new URL(url).searchParams),
        did: holder.did,
        challenge,
        signature: holder.sign(challenge),
      }),
    })
    assert.equal(step2.status, 200, await step2.clone().text())
    return new URL(((await step2.json()) as Json).redirect_uri)
  }

  it('issues to the DID that signed in, after PKCE and a single-use code', async () => {
    const created = await offer()
    assert.equal(created.credential_offer.grants.authorization_code.issuer_state.length > 20, true)
    assert.equal(created.credential_offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'], undefined)
    const holder = new DidClient()
    const wallet = await IssuanceWallet.withKeys([walletKeyOf(holder)])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    const request = await wallet.authorizationRequest(resolved, REDIRECT)
    // The wallet pushed its request (RFC 9126: the metadata announces the endpoint): the URL carries only its reference.
    assert.match(request.url, /request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3A/)
    const redirect = await signIn(request.url, holder)
    assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT)
    assert.equal(redirect.searchParams.get('iss'), resolved.offer.credential_issuer)
    const code = redirect.searchParams.get('code')!

    assert.equal(
      await errorOf(
        wallet.tokenFromCode(resolved, code, 'a-wrong-verifier-a-wrong-verifier-a-wrong-verifier', REDIRECT),
      ),
      'invalid_grant',
    )
    const token = await wallet.tokenFromCode(resolved, code, request.codeVerifier, REDIRECT)
    assert.equal(token.response.token_type, 'DPoP')
    assert.equal(await errorOf(wallet.tokenFromCode(resolved, code, request.codeVerifier, REDIRECT)), 'invalid_grant')

    // A key of another DID is refused; the holder's own did:key is served.
    const stranger = await IssuanceWallet.create(['EdDSA'])
    const nonce = await wallet.nonce(resolved)
    assert.equal(
      await errorOf(wallet.credentials(resolved, token, await stranger.proofs(resolved, nonce, { useDid: true }))),
      'invalid_proof',
    )
    const answer = await wallet.credentials(resolved, token, await wallet.proofs(resolved, nonce, { useDid: true }))
    const jwt = (answer.credentialResponse.credentials as Json[])[0]!.credential as string
    assert.equal(jose.decodeJwt(jwt).sub, holder.did)
    // The offer's secrets and the code never reach the log; the authorization request was logged.
    const issuerState = resolved.offer.grants!.authorization_code!.issuer_state!
    const handle = decodeURIComponent(created.credential_offer_uri.split('credential_offer_uri=')[1]).split('/').at(-1)!
    assert.ok(
      logged.some((line) => line.includes('/oid4vci/authorize')),
      'requests are logged',
    )
    for (const secret of [issuerState, handle, code])
      assert.equal(logged.filter((line) => line.includes(secret)).length, 0, 'a secret in the log')
  })

  it('refuses an unknown issuer_state, a request without PKCE, and a browser asking for HTML', async () => {
    const created = await offer()
    const wallet = await IssuanceWallet.create(['EdDSA'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    // A direct authorization request (the wallet's own goes through PAR): its parameters are in the URL to tamper with.
    const url = `${resolved.offer.credential_issuer}/oid4vci/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: 'test-wallet',
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      issuer_state: resolved.offer.grants!.authorization_code!.issuer_state!,
      scope: resolved.configurationId,
    })}`
    const tamper = (name: string, value: string | null) => {
      const u = new URL(url)
      if (value === null) u.searchParams.delete(name)
      else u.searchParams.set(name, value)
      u.searchParams.set('did', new DidClient().did)
      return u
    }
    for (const [name, value] of [
      ['issuer_state', 'made-up'],
      ['code_challenge', null],
      ['code_challenge_method', 'plain'],
    ] as const) {
      const res = await fetch(tamper(name, value), { headers: { accept: 'application/json' } })
      assert.equal(res.status, 400, `${name}: ${res.status}`)
      assert.equal(((await res.json()) as Json).error, 'invalid_request')
    }
    assert.equal((await fetch(tamper('state', 's'), { headers: { accept: 'text/html' } })).status, 400)
  })
})
