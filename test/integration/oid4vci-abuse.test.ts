/**
 * The OpenID4VCI endpoints as an attacker works them over HTTP (inject, an https
 * PUBLIC_BASE_URL), with hand-made proofs (jose): keys sent with their private part, one issuer's
 * tokens and nonces at another, another grant's transaction_id, notifications repeated.
 */
import assert from 'node:assert/strict'
import { createHash, randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { KyselyPlugin } from 'kysely'
import * as jose from 'jose'
import { buildApp } from '../../src/app.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { makeOffer } from '../helpers/https-issuer.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const BASE = 'https://issuer.test'
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'
const SCHEMA = {
  name: 'Ticket',
  version: '1',
  attributes: [{ name: 'seat', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

async function newKey() {
  const pair = await jose.generateKeyPair('ES256', { extractable: true })
  const { kty, crv, x, y, d } = await jose.exportJWK(pair.privateKey)
  return {
    privateKey: pair.privateKey,
    jwk: { kty, crv, x, y } as jose.JWK,
    privateJwk: { kty, crv, x, y, d } as jose.JWK,
  }
}
type Key = Awaited<ReturnType<typeof newKey>>

const now = () => Math.floor(Date.now() / 1000)
const dpopProof = (key: Key, htu: string, extra: Json = {}, jwk: jose.JWK = key.jwk) =>
  new jose.SignJWT({
    htm: 'POST',
    htu,
    iat: now(),
    jti: randomUUID(),
    ...extra,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .sign(key.privateKey)
const keyProof = (key: Key, aud: string, nonce: string, jwk: jose.JWK = key.jwk) =>
  new jose.SignJWT({ aud, iat: now(), nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk })
    .sign(key.privateKey)
const ath = (token: string) => createHash('sha256').update(token).digest('base64url')

describe('OpenID4VCI endpoints under attack', () => {
  let t: TestApp
  const alice = new IssuerActor()
  const bob = new IssuerActor()
  const schemas: Record<string, string> = {}

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } })
    for (const [name, actor] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      await actor.setUp(t.app, `Issuer ${name}`)
      schemas[name] = await actor.schema(t.app, SCHEMA)
    }
  })
  after(() => t.close())

  const path = (url: string) => url.slice(BASE.length)
  const offer = async (who: IssuerActor, body: Json = {}) => {
    const created = await makeOffer(
      t,
      who,
      {
        credential_type: 'Ticket',
        schema_id: schemas[who === alice ? 'alice' : 'bob'],
        format: 'dc+sd-jwt',
        attributes: { seat: '12A' },
      },
      body,
    )
    const issuer = created.credential_offer.credential_issuer as string
    return {
      issuer,
      configurationId: created.credential_configuration_id as string,
      code: created.credential_offer.grants[PRE_AUTHORIZED]['pre-authorized_code'] as string,
      at: (name: string) => `${issuer}/oid4vci/${name}`,
    }
  }
  type Offer = Awaited<ReturnType<typeof offer>>
  const postToken = (o: Offer, dpop: string) =>
    t.app.inject({
      method: 'POST',
      url: path(o.at('token')),
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop },
      payload: new URLSearchParams({ grant_type: PRE_AUTHORIZED, 'pre-authorized_code': o.code }).toString(),
    })
  /** A DPoP server nonce of the issuer of `o`, from its nonce endpoint's DPoP-Nonce header. */
  const serverNonce = async (o: Offer) =>
    (await t.app.inject({ method: 'POST', url: path(o.at('nonce')) })).headers['dpop-nonce'] as string
  const cNonce = async (o: Offer) =>
    (await t.app.inject({ method: 'POST', url: path(o.at('nonce')) })).json().c_nonce as string
  const boundToken = async (o: Offer, key: Key) => {
    const res = await postToken(o, await dpopProof(key, o.at('token'), { nonce: await serverNonce(o) }))
    assert.equal(res.statusCode, 200, res.body)
    return res.json().access_token as string
  }
  const postResource = async (o: Offer, endpoint: string, key: Key, token: string, body: Json) =>
    t.app.inject({
      method: 'POST',
      url: path(o.at(endpoint)),
      headers: {
        authorization: `DPoP ${token}`,
        dpop: await dpopProof(key, o.at(endpoint), { nonce: await serverNonce(o), ath: ath(token) }),
      },
      payload: body,
    })

  it('refuses a DPoP proof whose jwk carries the private key (RFC 9449 §4.3 check 7)', async () => {
    const o = await offer(alice)
    const key = await newKey()
    const res = await postToken(o, await dpopProof(key, o.at('token'), { nonce: await serverNonce(o) }, key.privateJwk))
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().error, 'invalid_dpop_proof')
    assert.ok(!res.body.includes(String(key.privateJwk.d)), 'the answer does not echo the private key')
  })

  it('refuses a key proof whose jwk carries the private key (OID4VCI 1.0 F.1)', async () => {
    const o = await offer(alice)
    const key = await newKey()
    const token = await boundToken(o, key)
    const holder = await newKey()
    const res = await postResource(o, 'credential', key, token, {
      credential_configuration_id: o.configurationId,
      proofs: { jwt: [await keyProof(holder, o.issuer, await cNonce(o), holder.privateJwk)] },
    })
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().error, 'invalid_proof')
  })

  it("refuses one issuer's access token and DPoP nonce at another issuer", async () => {
    const a = await offer(alice)
    const b = await offer(bob)
    const key = await newKey()
    const token = await boundToken(a, key)
    const res = await postResource(b, 'credential', key, token, {
      credential_configuration_id: b.configurationId,
      proofs: { jwt: [await keyProof(key, b.issuer, await cNonce(b))] },
    })
    assert.equal(res.statusCode, 401, res.body)
    assert.equal(res.json().error, 'invalid_token')
    const foreignNonce = await postToken(b, await dpopProof(key, b.at('token'), { nonce: await serverNonce(a) }))
    assert.equal(foreignNonce.statusCode, 400, foreignNonce.body)
    assert.equal(foreignNonce.json().error, 'use_dpop_nonce')
  })

  it("refuses another grant's transaction_id at the deferred endpoint", async () => {
    const key = await newKey()
    const deferred = await offer(alice, { requires_approval: true })
    const token = await boundToken(deferred, key)
    const pending = await postResource(deferred, 'credential', key, token, {
      credential_configuration_id: deferred.configurationId,
      proofs: { jwt: [await keyProof(key, deferred.issuer, await cNonce(deferred))] },
    })
    assert.equal(pending.statusCode, 202, pending.body)
    const other = await offer(alice, { requires_approval: true })
    const otherKey = await newKey()
    const otherToken = await boundToken(other, otherKey)
    const res = await postResource(other, 'deferred-credential', otherKey, otherToken, {
      transaction_id: pending.json().transaction_id,
    })
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().error, 'invalid_transaction_id')
  })

  it('records a notification event once per credential: repeating it answers 204 and writes nothing more', async () => {
    const o = await offer(alice)
    const key = await newKey()
    const token = await boundToken(o, key)
    const issued = await postResource(o, 'credential', key, token, {
      credential_configuration_id: o.configurationId,
      proofs: { jwt: [await keyProof(key, o.issuer, await cNonce(o))] },
    })
    assert.equal(issued.statusCode, 200, issued.body)
    const notificationId = issued.json().notification_id as string
    for (let i = 0; i < 5; i++) {
      const res = await postResource(o, 'notification', key, token, {
        notification_id: notificationId,
        event: 'credential_accepted',
        event_description: 'x'.repeat(300),
      })
      assert.equal(res.statusCode, 204, res.body)
    }
    assert.equal(
      (
        await postResource(o, 'notification', key, token, {
          notification_id: notificationId,
          event: 'credential_deleted',
        })
      ).statusCode,
      204,
    )
    const rows = await t.deps.database.db
      .selectFrom('wallet_activities')
      .select('type')
      .where('type', 'in', ['credential_accepted', 'credential_deleted'])
      .where('details', '@>', JSON.stringify({ source: 'openid4vci_notification' }) as never)
      .execute()
    assert.deepEqual(rows.map((r) => r.type).sort(), ['credential_accepted', 'credential_deleted'])
  })

  it('does not rebuild the issuer context for credential requests without a valid token naming unknown configurations', async () => {
    // A second instance on the same database whose queries are counted (a Kysely plugin).
    let queries = 0
    const counting: KyselyPlugin = {
      transformQuery: (args) => ((queries += 1), args.node),
      transformResult: async (args) => args.result,
    }
    const counted = await buildApp(t.config, {
      ...t.deps,
      database: { ...t.deps.database, db: t.deps.database.db.withPlugin(counting), close: async () => undefined },
    })
    await counted.ready()
    try {
      const o = await offer(alice)
      const warm = await counted.inject({
        method: 'GET',
        url: path(`${BASE}/.well-known/openid-credential-issuer${new URL(o.issuer).pathname}`),
      })
      assert.equal(warm.statusCode, 200)
      queries = 0
      for (let i = 0; i < 10; i++) {
        const res = await counted.inject({
          method: 'POST',
          url: path(o.at('credential')),
          headers: { authorization: 'Bearer not-a-token' },
          payload: { credential_configuration_id: `made-up-${i}.dc+sd-jwt`, proofs: { jwt: ['a.b.c'] } },
        })
        assert.equal(res.statusCode, 401, res.body)
      }
      // Each rebuild reads the profile, the schemas and the key: a few queries. None is owed to a stranger.
      assert.ok(queries < 10, `${queries} queries for 10 refused requests`)
    } finally {
      await counted.close()
    }
  })
})
