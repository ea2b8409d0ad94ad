/**
 * What OpenID4VCI 1.0 issuance refuses, through the standard test wallet over HTTPS: spent,
 * unknown or mixed nonces, proofs for another audience or stale, tokens without the DPoP proof
 * the offer requires, configurations the token does not cover, used-up, expired and other
 * issuers' offers, another holder's key, malformed messages (never a 5xx), races on a code and a
 * nonce, and an issuance the service refuses.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { IssuanceWallet, type Resolved, type TokenResult } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { errorOf, postForm, type Json } from '../helpers/oid4vci-checks.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import type { TestApp } from '../helpers/test-app.js'

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
  anonymous_credentials: false,
}

describe('OpenID4VCI issuance: what is refused', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => ({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Club', SCHEMA)))
  after(() => closeHttpsIssuer({ front, t }))

  const offer = (body: Json = {}) =>
    makeOffer(
      t,
      issuer,
      { credential_type: 'Membership', schema_id: schemaId, attributes: { member: 'Ada', level: 3 } },
      body,
    )

  it('a tx_code cannot be guessed by retrying: after five wrong ones the pre-authorized code is spent, even for the right one', async () => {
    const created = await offer({ format: 'dc+sd-jwt', tx_code: true })
    const wallet = await IssuanceWallet.create(['ES256'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    const wrong = created.tx_code === '000000' ? '111111' : '000000'
    for (let i = 0; i < 4; i++)
      assert.equal(await errorOf(wallet.token(resolved, { dpop: false, txCode: wrong })), 'invalid_grant')
    // Four wrong ones: the code still stands for the right one (in another wallet's hands, it would not).
    const other = await offer({ format: 'dc+sd-jwt', tx_code: true })
    const otherResolved = await wallet.resolve(other.credential_offer_uri)
    for (let i = 0; i < 4; i++)
      await errorOf(
        wallet.token(otherResolved, { dpop: false, txCode: other.tx_code === '000000' ? '111111' : '000000' }),
      )
    assert.ok((await wallet.token(otherResolved, { dpop: false, txCode: other.tx_code })).response.access_token)
    // The fifth wrong one spends it: the right tx_code comes too late.
    assert.equal(await errorOf(wallet.token(resolved, { dpop: false, txCode: wrong })), 'invalid_grant')
    assert.equal(await errorOf(wallet.token(resolved, { dpop: false, txCode: created.tx_code })), 'invalid_grant')
  })

  it('refuses a replayed, unknown or mixed c_nonce (invalid_nonce), a proof for another audience or a stale one (invalid_proof)', async () => {
    const first = await IssuanceWallet.create(['ES256'])
    const used = await first.receive((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
    assert.ok(used.answer.ok)
    const wallet = await IssuanceWallet.create(['ES256', 'ES256'])
    const resolved = await wallet.resolve((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
    const token = await wallet.token(resolved)
    assert.equal(
      await errorOf(wallet.credentials(resolved, token, await wallet.proofs(resolved, 'not-a-nonce-of-this-issuer'))),
      'invalid_nonce',
    )
    const a = await wallet.nonce(resolved)
    const b = await wallet.nonce(resolved)
    const mixed = [
      ...(await wallet.proofs(resolved, a, { keys: [wallet.keys[0]!] })),
      ...(await wallet.proofs(resolved, b, { keys: [wallet.keys[1]!] })),
    ]
    assert.equal(await errorOf(wallet.credentials(resolved, token, mixed)), 'invalid_nonce')
    assert.equal(
      await errorOf(
        wallet.credentials(
          resolved,
          token,
          await wallet.proofs(resolved, a, { audience: 'https://elsewhere.example/issuers/x' }),
        ),
      ),
      'invalid_proof',
    )
    assert.equal(
      await errorOf(
        wallet.credentials(
          resolved,
          token,
          await wallet.proofs(resolved, a, { issuedAt: new Date(Date.now() - 3_600_000) }),
        ),
      ),
      'invalid_proof',
    )
    // None of the refusals spent the token's request or the nonce: the right request still works, once.
    const proofs = await wallet.proofs(resolved, a)
    assert.ok((await wallet.credentials(resolved, token, proofs)).ok)
    assert.equal(await errorOf(wallet.credentials(resolved, token, proofs)), 'invalid_token')
    // A refused request stored nothing (a credential and the spending commit together): the first
    // wallet's one and the two copies of this batch, nothing else.
    const issued = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials?limit=100`, issuer.token)).json()
      .data as Json[]
    assert.equal(issued.length, 3)
    // Its nonce is spent now: another token cannot use it.
    const other = await IssuanceWallet.create(['ES256'])
    const otherResolved = await other.resolve((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
    const otherToken = await other.token(otherResolved)
    assert.equal(
      await errorOf(other.credentials(otherResolved, otherToken, await other.proofs(otherResolved, a))),
      'invalid_nonce',
    )
  })

  it('requires DPoP when the offer asks: no token without a proof, no credential without one for a DPoP-bound token', async () => {
    const created = await offer({ format: 'dc+sd-jwt', dpop_required: true })
    const wallet = await IssuanceWallet.create(['ES256'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    assert.equal(await errorOf(wallet.token(resolved, { dpop: false })), 'invalid_dpop_proof')
    const token = await wallet.token(resolved)
    assert.equal(token.response.token_type, 'DPoP')
    const proofs = await wallet.proofs(resolved, await wallet.nonce(resolved))
    // The DPoP-bound token presented as a bearer token.
    const bare: TokenResult = { accessToken: token.accessToken, response: token.response }
    const refused = await fetch(resolved.metadata.credentialIssuer.credential_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bare.accessToken}` },
      body: JSON.stringify({ credential_configuration_id: resolved.configurationId, proofs: { jwt: proofs } }),
    })
    assert.equal(refused.status, 401)
    assert.equal(((await refused.json()) as Json).error, 'invalid_dpop_proof')
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_dpop_proof/)
    // A DPoP proof by another key than the one the token is bound to.
    const otherKey: TokenResult = {
      ...token,
      dpop: { ...token.dpop!, signer: { method: 'jwk', alg: 'ES256', publicJwk: wallet.keys[0]!.publicJwk } },
    }
    assert.equal(await errorOf(wallet.credentials(resolved, otherKey, proofs)), 'invalid_dpop_proof')
    assert.ok((await wallet.credentials(resolved, token, proofs)).ok)
  })

  it('answers unknown_credential_configuration, and refuses a configuration the token does not cover', async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    const wallet = await IssuanceWallet.create(['ES256'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    const token = await wallet.token(resolved, { dpop: false })
    const proofs = await wallet.proofs(resolved, await wallet.nonce(resolved))
    const ask = (configuration: string) =>
      fetch(resolved.metadata.credentialIssuer.credential_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token.accessToken}` },
        body: JSON.stringify({ credential_configuration_id: configuration, proofs: { jwt: proofs } }),
      })
    const unknown = await ask(`${schemaId}.mso_mdoc`)
    assert.equal(unknown.status, 400)
    assert.equal(((await unknown.json()) as Json).error, 'unknown_credential_configuration')
    const other = await ask(`${schemaId}.jwt_vc_json`)
    assert.equal(other.status, 400)
    assert.equal(((await other.json()) as Json).error, 'invalid_credential_request')
    assert.ok((await wallet.credentials(resolved, token, proofs)).ok)
  })

  it("refuses an offer used up through the spec's route, an expired one, and another issuer's code or token", async () => {
    // Used up: its one use taken by a holder's credential request (the spec's route).
    const usedUp = await offer({ format: 'dc+sd-jwt', max_uses: 1 })
    const holder = new DidClient()
    const holderToken = await holder.login(t.app)
    const request = await t.app.inject({
      method: 'POST',
      url: '/api/wallet/credential-request',
      headers: { authorization: `Bearer ${holderToken}`, 'x-user-did': holder.did },
      payload: { issuer_did: issuer.did, offer_id: usedUp.offer.id },
    })
    assert.equal(request.statusCode, 201, request.body)
    const wallet = await IssuanceWallet.create(['ES256'])
    assert.equal(await errorOf(wallet.token(await wallet.resolve(usedUp.credential_offer_uri))), 'invalid_grant')

    // Expired between the offer and the token request.
    // Room for a loaded machine to resolve it first; then wait until the expiry has passed.
    const expiresAt = Date.now() + 8000
    const expiring = await offer({ format: 'dc+sd-jwt', expires_at: new Date(expiresAt).toISOString() })
    const expiringResolved = await wallet.resolve(expiring.credential_offer_uri)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 200))
    assert.equal(await errorOf(wallet.token(expiringResolved)), 'invalid_grant')
    const gone = await fetch(decodeURIComponent(expiring.credential_offer_uri.split('credential_offer_uri=')[1]))
    assert.equal(gone.status, 404)

    // Another issuer: its token endpoint does not know this issuer's code; its credential endpoint refuses this issuer's token.
    const other = new IssuerActor()
    await other.setUp(t.app, 'Other club')
    const otherSchema = await other.schema(t.app, SCHEMA)
    const otherOffer = (
      await callAs(t.app, 'POST', `/api/issuer/${other.did}/offers`, other.token, {
        credential_type: 'Membership',
        schema_id: otherSchema,
        attributes: { member: 'Bo' },
        format: 'dc+sd-jwt',
      })
    ).json() as Json
    const otherResolved = await wallet.resolve(otherOffer.credential_offer_uri)
    const mine = await wallet.resolve((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
    const crossed: Resolved = { ...mine, metadata: otherResolved.metadata }
    assert.equal(await errorOf(wallet.token(crossed)), 'invalid_grant')
    const token = await wallet.token(mine)
    const proofs = await wallet.proofs(otherResolved, await wallet.nonce(otherResolved))
    assert.equal(
      await errorOf(wallet.credentials({ ...otherResolved }, token, proofs, otherResolved.configurationId)),
      'invalid_token',
    )
  })

  it('binds an offer with a subject to that holder: a proof by another key is refused', async () => {
    const holder = new DidClient()
    const created = await offer({ format: 'jwt_vc_json', subject_did: holder.did })
    const stranger = await IssuanceWallet.create(['EdDSA'])
    const resolved = await stranger.resolve(created.credential_offer_uri)
    const token = await stranger.token(resolved)
    assert.equal(
      await errorOf(
        stranger.credentials(
          resolved,
          token,
          await stranger.proofs(resolved, await stranger.nonce(resolved), { useDid: true }),
        ),
      ),
      'invalid_proof',
    )
  })

  it('answers malformed protocol messages with a 4xx and an OAuth error, never a 5xx', async () => {
    const wallet = await IssuanceWallet.create(['ES256'])
    const resolved = await wallet.resolve((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
    const token = await wallet.token(resolved)
    const {
      credential_endpoint: credentialUrl,
      deferred_credential_endpoint: deferredUrl,
      notification_endpoint: notificationUrl,
    } = resolved.metadata.credentialIssuer
    const tokenUrl = resolved.metadata.authorizationServers[0]!.token_endpoint!
    const json = (url: string, body: unknown, headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
    const request = { credential_configuration_id: resolved.configurationId, proofs: { jwt: ['a.b.c'] } }
    const attempts: Array<[string, Promise<Response>]> = [
      ['garbage DPoP token', json(credentialUrl, request, { authorization: 'DPoP abc' })],
      ['garbage scheme', json(credentialUrl, request, { authorization: 'Basic abc' })],
      ['DPoP token without a proof', json(credentialUrl, request, { authorization: `DPoP ${token.accessToken}` })],
      [
        'DPoP token with a garbage proof',
        json(credentialUrl, request, { authorization: `DPoP ${token.accessToken}`, dpop: 'x.y.z' }),
      ],
      ['deferred without a token', json(deferredUrl!, { transaction_id: 'x' }, {})],
      [
        'notification without a token',
        json(notificationUrl!, { notification_id: 'x', event: 'credential_accepted' }, {}),
      ],
      ['token: unknown grant', postForm(tokenUrl, { grant_type: 'password', username: 'a', password: 'b' })],
      ['token: no grant type', postForm(tokenUrl, {})],
      [
        'token: garbage DPoP',
        postForm(
          tokenUrl,
          { grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': 'x' },
          { dpop: 'x.y.z' },
        ),
      ],
      [
        'token: code without PKCE',
        postForm(tokenUrl, { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://w.example/cb' }),
      ],
    ]
    for (const [what, pending] of attempts) {
      const res = await pending
      const body = (await res.json()) as Json
      assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${JSON.stringify(body)}`)
      assert.equal(typeof body.error, 'string', `${what}: ${JSON.stringify(body)}`)
    }
    // Garbage key proofs with the real token: invalid_proof, and the token's request is still there.
    const garbage = await wallet.credentials(resolved, token, ['a.b.c']).then(
      () => 'ok',
      async (e) => ((await (e as Json).response.response.json()) as Json).error,
    )
    assert.ok(['invalid_proof', 'invalid_nonce'].includes(garbage), garbage)
    assert.ok(
      (await wallet.credentials(resolved, token, await wallet.proofs(resolved, await wallet.nonce(resolved)))).ok,
    )
  })

  it('spends a pre-authorized code and a c_nonce once under concurrent requests', async () => {
    const created = await offer({ format: 'dc+sd-jwt' })
    const wallet = await IssuanceWallet.create(['ES256'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    const code = resolved.offer.grants!['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code']
    const tokenUrl = resolved.metadata.authorizationServers[0]!.token_endpoint!
    const racers = await Promise.all(
      Array.from({ length: 6 }, () =>
        postForm(tokenUrl, {
          grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
          'pre-authorized_code': code,
        }),
      ),
    )
    assert.deepEqual(racers.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400])
    const listed = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json().data as Json[]
    assert.equal(listed.find((o) => o.id === created.offer.id)!.uses, 1)

    // Two tokens racing with one nonce: one credential.
    const runs = await Promise.all(
      [0, 1].map(async () => {
        const w = await IssuanceWallet.create(['ES256'])
        const r = await w.resolve((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
        return { w, r, token: await w.token(r, { dpop: false }) }
      }),
    )
    const nonce = await wallet.nonce(resolved)
    const answers = await Promise.all(
      runs.map(async ({ w, r, token }) =>
        w.credentials(r, token, await w.proofs(r, nonce)).then(
          () => 'ok',
          (e) => errorOf(Promise.reject(e)),
        ),
      ),
    )
    assert.deepEqual(answers.sort(), ['invalid_nonce', 'ok'])
  })

  it('issues the other requests of a group commit when one is refused, and a refused request spends nothing', async () => {
    const runs = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const w = await IssuanceWallet.create(['ES256'])
        const r = await w.resolve((await offer({ format: 'dc+sd-jwt' })).credential_offer_uri)
        return { w, r, token: await w.token(r, { dpop: false }) }
      }),
    )
    // The first two share one c_nonce, so one of them is refused; all five go at once.
    const shared = await runs[0]!.w.nonce(runs[0]!.r)
    const proofs = await Promise.all(runs.map(async ({ w, r }, i) => w.proofs(r, i < 2 ? shared : await w.nonce(r))))
    const answers = await Promise.all(
      runs.map(({ w, r, token }, i) =>
        w.credentials(r, token, proofs[i]!).then(
          () => 'ok',
          (e) => errorOf(Promise.reject(e)),
        ),
      ),
    )
    assert.deepEqual([...answers].sort(), ['invalid_nonce', 'ok', 'ok', 'ok', 'ok'])
    const owners = new Set(
      (
        (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials?limit=100`, issuer.token)).json()
          .data as Json[]
      ).map((c) => c.owner_did),
    )
    runs.forEach(({ w }, i) =>
      assert.equal(owners.has(w.keys[0]!.did), answers[i] === 'ok', `wallet ${i}: ${answers[i]}`),
    )
    // The refused request left its access token unused: with a fresh nonce it gets its credential.
    const refused = runs[answers.indexOf('invalid_nonce')]!
    const again = await refused.w.credentials(
      refused.r,
      refused.token,
      await refused.w.proofs(refused.r, await refused.w.nonce(refused.r)),
    )
    assert.equal((again.credentialResponse.credentials as Json[]).length, 1)
  })

  it('answers credential_request_denied when the issuance refuses the offer (schema changed since), storing nothing', async () => {
    const schema = await issuer.schema(t.app, { ...SCHEMA, name: 'Changing' })
    const created = (
      await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
        credential_type: 'Membership',
        schema_id: schema,
        attributes: { member: 'Di' },
        format: 'dc+sd-jwt',
      })
    ).json() as Json
    const changed = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/schemas/${schema}`, issuer.token, {
      attributes: [...SCHEMA.attributes, { name: 'since', data_type: 'date', required: true }],
    })
    assert.equal(changed.statusCode, 200, changed.body)
    const wallet = await IssuanceWallet.create(['ES256'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    const token = await wallet.token(resolved)
    assert.equal(
      await errorOf(wallet.credentials(resolved, token, await wallet.proofs(resolved, await wallet.nonce(resolved)))),
      'credential_request_denied',
    )
    // Nothing was stored, so the token's request was given back: it is refused for the same reason, not as used.
    assert.equal(
      await errorOf(wallet.credentials(resolved, token, await wallet.proofs(resolved, await wallet.nonce(resolved)))),
      'credential_request_denied',
    )
    const issued = (
      await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials?schema_id=${schema}`, issuer.token)
    ).json().data as Json[]
    assert.equal(issued.filter((c) => c.schema_id === schema).length, 0)
  })
})
