/**
 * DPoP proofs as an attacker sends them (RFC 9449), built by hand with jose and posted over HTTP
 * (inject, an https PUBLIC_BASE_URL): proofs dated long ago or ahead (§4.3 check 11), a proof
 * replayed by its `jti` (§11.1), proofs without or with a stale server nonce (§8, §9), at the token
 * endpoint and at the protected endpoints; and two instances on one database sharing the nonces
 * and the `jti`s. The clock is a ManualClock: "stale" is the clock moved, never a wait.
 */
import assert from 'node:assert/strict'
import { createHash, randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import * as jose from 'jose'
import { buildApp } from '../../src/app.js'
import { DPOP_NONCE_TTL_S } from '../../src/modules/openid4vc/issuer/oid4vci-dpop.js'
import { ACCESS_TOKEN_TTL_S } from '../../src/modules/openid4vc/issuer/oid4vci-token.service.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { makeOffer } from '../helpers/https-issuer.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const BASE = 'https://issuer.test'
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'
const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'holder', data_type: 'string', required: true }],
  anonymous_credentials: false,
}
const YEAR_S = 365 * 86_400

interface Key {
  privateKey: Awaited<ReturnType<typeof jose.generateKeyPair>>['privateKey']
  jwk: jose.JWK
}

async function newKey(): Promise<Key> {
  const pair = await jose.generateKeyPair('ES256', { extractable: true })
  const { kty, crv, x, y } = await jose.exportJWK(pair.publicKey)
  return { privateKey: pair.privateKey, jwk: { kty, crv, x, y } }
}

/** A DPoP proof (RFC 9449 §4.2) with the given claims over the defaults. */
async function dpopProof(
  key: Key,
  claims: { htu: string; iat: number; jti?: string; nonce?: string; accessToken?: string; htm?: string },
): Promise<string> {
  const payload: Json = { htm: claims.htm ?? 'POST', htu: claims.htu, iat: claims.iat, jti: claims.jti ?? randomUUID() }
  if (claims.nonce !== undefined) payload.nonce = claims.nonce
  if (claims.accessToken) payload.ath = createHash('sha256').update(claims.accessToken).digest('base64url')
  return new jose.SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey)
}

/** A jwt key proof (OID4VCI 1.0 Appendix F.1) for `nonce`. */
async function keyProof(key: Key, audience: string, nonce: string, iat: number): Promise<string> {
  return new jose.SignJWT({ aud: audience, iat, nonce })
    .setProtectedHeader({
      alg: 'ES256',
      typ: 'openid4vci-proof+jwt',
      jwk: key.jwk,
    })
    .sign(key.privateKey)
}

describe('DPoP proofs that age, replay and carry server nonces (RFC 9449)', () => {
  let t: TestApp
  let second: FastifyInstance
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()
  let schemaId: string
  const now = () => Math.floor(clock.now().getTime() / 1000)

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE }, clock })
    await issuer.setUp(t.app, 'Pass office')
    schemaId = await issuer.schema(t.app, SCHEMA)
    // A second instance of the service on the same database and master key (a load balancer's view).
    second = await buildApp(t.config, { ...t.deps, database: { ...t.deps.database, close: async () => undefined } })
    await second.ready()
  })
  after(async () => {
    await second.close()
    await t.close()
  })

  /** A new offer: its pre-authorized code and the issuer's endpoints. */
  const offer = async (body: Json = {}) => {
    const created = await makeOffer(
      t,
      issuer,
      { credential_type: 'Pass', schema_id: schemaId, format: 'dc+sd-jwt', attributes: { holder: 'Ada' } },
      body,
    )
    const issuerUrl = created.credential_offer.credential_issuer as string
    const code = created.credential_offer.grants[PRE_AUTHORIZED]['pre-authorized_code'] as string
    const at = (name: string) => `${issuerUrl}/oid4vci/${name}`
    return {
      issuerUrl,
      code,
      configurationId: created.credential_configuration_id as string,
      token: at('token'),
      nonce: at('nonce'),
      credential: at('credential'),
      notification: at('notification'),
    }
  }
  type Offer = Awaited<ReturnType<typeof offer>>

  const path = (url: string) => url.slice(BASE.length)
  const postToken = (app: FastifyInstance, o: Offer, proof?: string) =>
    app.inject({
      method: 'POST',
      url: path(o.token),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(proof ? { dpop: proof } : {}) },
      payload: new URLSearchParams({ grant_type: PRE_AUTHORIZED, 'pre-authorized_code': o.code }).toString(),
    })
  const postResource = (app: FastifyInstance, url: string, accessToken: string, proof: string, body: Json) =>
    app.inject({
      method: 'POST',
      url: path(url),
      headers: { authorization: `DPoP ${accessToken}`, dpop: proof },
      payload: body,
    })

  /** A server nonce, as a wallet learns it: from the use_dpop_nonce refusal of a proof without one. */
  const serverNonce = async (app: FastifyInstance, o: Offer, key: Key): Promise<string> => {
    const res = await postToken(app, o, await dpopProof(key, { htu: o.token, iat: now() }))
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().error, 'use_dpop_nonce')
    const nonce = res.headers['dpop-nonce']
    assert.equal(typeof nonce, 'string', 'the refusal carries a DPoP-Nonce header')
    return nonce as string
  }

  /** A DPoP-bound access token for a new offer (the nonce dance done right). */
  const boundToken = async (key: Key) => {
    const o = await offer()
    const nonce = await serverNonce(t.app, o, key)
    const res = await postToken(t.app, o, await dpopProof(key, { htu: o.token, iat: now(), nonce }))
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().token_type, 'DPoP')
    return { o, accessToken: res.json().access_token as string, nonce: res.headers['dpop-nonce'] as string }
  }

  const credentialBody = async (o: Offer, holder: Key) => {
    const cNonce = (await t.app.inject({ method: 'POST', url: path(o.nonce) })).json().c_nonce as string
    return {
      credential_configuration_id: o.configurationId,
      proofs: { jwt: [await keyProof(holder, o.issuerUrl, cNonce, now())] },
    }
  }

  describe('token endpoint', () => {
    it('answers a proof without a nonce with use_dpop_nonce and a DPoP-Nonce; with it, a token and a fresh DPoP-Nonce', async () => {
      const o = await offer()
      const key = await newKey()
      const nonce = await serverNonce(t.app, o, key)
      const res = await postToken(t.app, o, await dpopProof(key, { htu: o.token, iat: now(), nonce }))
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(
        typeof res.headers['dpop-nonce'],
        'string',
        'a successful answer carries the next nonce (RFC 9449 §8.2)',
      )
    })

    it('refuses a made-up nonce and a stale one with use_dpop_nonce (and a new DPoP-Nonce)', async () => {
      const o = await offer()
      const key = await newKey()
      const madeUp = await postToken(
        t.app,
        o,
        await dpopProof(key, { htu: o.token, iat: now(), nonce: 'not-a-nonce-of-this-issuer' }),
      )
      assert.equal(madeUp.statusCode, 400, madeUp.body)
      assert.equal(madeUp.json().error, 'use_dpop_nonce')
      assert.ok(madeUp.headers['dpop-nonce'])
      const nonce = await serverNonce(t.app, o, key)
      clock.advance((DPOP_NONCE_TTL_S + 1) * 1000)
      const stale = await postToken(t.app, o, await dpopProof(key, { htu: o.token, iat: now(), nonce }))
      assert.equal(stale.statusCode, 400, stale.body)
      assert.equal(stale.json().error, 'use_dpop_nonce')
      assert.notEqual(stale.headers['dpop-nonce'], nonce)
    })

    it('refuses a proof issued a year ago, or a year ahead, as invalid_dpop_proof (iat window)', async () => {
      const o = await offer()
      const key = await newKey()
      const nonce = await serverNonce(t.app, o, key)
      for (const iat of [now() - YEAR_S, now() + YEAR_S, now() - 3600, now() + 600]) {
        const res = await postToken(t.app, o, await dpopProof(key, { htu: o.token, iat, nonce }))
        assert.equal(res.statusCode, 400, res.body)
        assert.equal(res.json().error, 'invalid_dpop_proof')
        assert.match(res.json().error_description, /iat/)
      }
      // The code stands: a fresh proof redeems it.
      assert.equal(
        (await postToken(t.app, o, await dpopProof(key, { htu: o.token, iat: now(), nonce }))).statusCode,
        200,
      )
    })

    it('refuses a proof replayed by its jti, on this instance and on another one', async () => {
      const key = await newKey()
      const first = await offer()
      const nonce = await serverNonce(t.app, first, key)
      const proof = await dpopProof(key, { htu: first.token, iat: now(), nonce })
      assert.equal((await postToken(t.app, first, proof)).statusCode, 200)
      for (const app of [t.app, second]) {
        const res = await postToken(app, await offer(), proof)
        assert.equal(res.statusCode, 400, res.body)
        assert.equal(res.json().error, 'invalid_dpop_proof')
        assert.match(res.json().error_description, /jti|replay|used/i)
      }
    })

    it('accepts on one instance the nonce another instance gave', async () => {
      const o = await offer()
      const key = await newKey()
      const nonce = await serverNonce(second, o, key)
      const res = await postToken(t.app, o, await dpopProof(key, { htu: o.token, iat: now(), nonce }))
      assert.equal(res.statusCode, 200, res.body)
    })
  })

  describe('protected endpoints (credential, notification)', () => {
    it('answers a credential request whose proof has no nonce with 401 use_dpop_nonce, then issues with it', async () => {
      const key = await newKey()
      const { o, accessToken, nonce } = await boundToken(key)
      const body = await credentialBody(o, await newKey())
      const refused = await postResource(
        t.app,
        o.credential,
        accessToken,
        await dpopProof(key, { htu: o.credential, iat: now(), accessToken }),
        body,
      )
      assert.equal(refused.statusCode, 401, refused.body)
      assert.match(String(refused.headers['www-authenticate']), /^DPoP error="use_dpop_nonce"/)
      assert.ok(refused.headers['dpop-nonce'])
      // The token response's nonce is good at the credential endpoint of the same issuer.
      const issued = await postResource(
        t.app,
        o.credential,
        accessToken,
        await dpopProof(key, { htu: o.credential, iat: now(), accessToken, nonce }),
        body,
      )
      assert.equal(issued.statusCode, 200, issued.body)
      assert.ok(issued.headers['dpop-nonce'], 'a successful answer carries the next nonce (RFC 9449 §9)')
    })

    it('refuses an old or a future proof at the credential endpoint (401 invalid_dpop_proof)', async () => {
      const key = await newKey()
      const { o, accessToken, nonce } = await boundToken(key)
      const body = await credentialBody(o, await newKey())
      for (const iat of [now() - YEAR_S, now() + YEAR_S]) {
        const res = await postResource(
          t.app,
          o.credential,
          accessToken,
          await dpopProof(key, { htu: o.credential, iat, accessToken, nonce }),
          body,
        )
        assert.equal(res.statusCode, 401, res.body)
        assert.equal(res.json().error, 'invalid_dpop_proof')
        assert.match(String(res.headers['www-authenticate']), /^DPoP error="invalid_dpop_proof"/)
      }
    })

    it('refuses a captured proof replayed at the credential endpoint, here and on another instance', async () => {
      const key = await newKey()
      const { o, accessToken, nonce } = await boundToken(key)
      const proof = await dpopProof(key, { htu: o.credential, iat: now(), accessToken, nonce })
      // The first request fails on its key proof (the grant stands); its DPoP proof is spent all the same.
      const bad = await postResource(t.app, o.credential, accessToken, proof, {
        credential_configuration_id: o.configurationId,
        proofs: { jwt: ['a.b.c'] },
      })
      assert.equal(bad.statusCode, 400, bad.body)
      const body = await credentialBody(o, await newKey())
      for (const app of [t.app, second]) {
        const res = await postResource(app, o.credential, accessToken, proof, body)
        assert.equal(res.statusCode, 401, res.body)
        assert.equal(res.json().error, 'invalid_dpop_proof')
      }
      // A fresh proof of the same key gets the credential.
      const fresh = await postResource(
        second,
        o.credential,
        accessToken,
        await dpopProof(key, { htu: o.credential, iat: now(), accessToken, nonce }),
        body,
      )
      assert.equal(fresh.statusCode, 200, fresh.body)
    })

    it('checks the notification endpoint the same way: a replayed proof and a stale nonce are refused', async () => {
      const key = await newKey()
      const { o, accessToken, nonce } = await boundToken(key)
      const issued = await postResource(
        t.app,
        o.credential,
        accessToken,
        await dpopProof(key, { htu: o.credential, iat: now(), accessToken, nonce }),
        await credentialBody(o, await newKey()),
      )
      assert.equal(issued.statusCode, 200, issued.body)
      const notification = { notification_id: issued.json().notification_id, event: 'credential_accepted' }
      const proof = await dpopProof(key, {
        htu: o.notification,
        iat: now(),
        accessToken,
        nonce: issued.headers['dpop-nonce'] as string,
      })
      assert.equal((await postResource(t.app, o.notification, accessToken, proof, notification)).statusCode, 204)
      const replayed = await postResource(second, o.notification, accessToken, proof, notification)
      assert.equal(replayed.statusCode, 401, replayed.body)
      assert.equal(replayed.json().error, 'invalid_dpop_proof')
      // Past the nonce's life, within the access token's.
      assert.ok(DPOP_NONCE_TTL_S + 1 < ACCESS_TOKEN_TTL_S)
      clock.advance((DPOP_NONCE_TTL_S + 1) * 1000)
      const stale = await postResource(
        t.app,
        o.notification,
        accessToken,
        await dpopProof(key, { htu: o.notification, iat: now(), accessToken, nonce }),
        notification,
      )
      assert.equal(stale.statusCode, 401, stale.body)
      assert.match(String(stale.headers['www-authenticate']), /use_dpop_nonce/)
    })
  })
})

describe('DPoP across origins (a browser wallet)', () => {
  let t: TestApp
  before(
    async () => (t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE, CORS_ORIGINS: 'https://wallet.example' } })),
  )
  after(() => t.close())

  it('lets the DPoP header in and the DPoP-Nonce and WWW-Authenticate headers out', async () => {
    const issuer = await new IssuerActor().setUp(t.app, 'Cross-origin issuer')
    const schemaId = await issuer.schema(t.app, SCHEMA)
    const created = await makeOffer(t, issuer, {
      credential_type: 'Pass',
      schema_id: schemaId,
      format: 'dc+sd-jwt',
      attributes: { holder: 'Ada' },
    })
    const tokenPath = new URL(`${created.credential_offer.credential_issuer}/oid4vci/token`).pathname
    const origin = { origin: 'https://wallet.example' }
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: tokenPath,
      headers: {
        ...origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'dpop, content-type',
      },
    })
    assert.match(String(preflight.headers['access-control-allow-headers']), /\bdpop\b/)
    const key = await newKey()
    const refused = await t.app.inject({
      method: 'POST',
      url: tokenPath,
      headers: {
        ...origin,
        'content-type': 'application/x-www-form-urlencoded',
        dpop: await dpopProof(key, { htu: `${BASE}${tokenPath}`, iat: Math.floor(Date.now() / 1000) }),
      },
      payload: new URLSearchParams({
        grant_type: PRE_AUTHORIZED,
        'pre-authorized_code': created.credential_offer.grants[PRE_AUTHORIZED]['pre-authorized_code'],
      }).toString(),
    })
    assert.equal(refused.json().error, 'use_dpop_nonce')
    const exposed = String(refused.headers['access-control-expose-headers']).split(/,\s*/)
    assert.ok(exposed.includes('dpop-nonce'), exposed.join())
    assert.ok(exposed.includes('www-authenticate'), exposed.join())
  })
})
