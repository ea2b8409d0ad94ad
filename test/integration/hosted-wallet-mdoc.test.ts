/**
 * The hosted wallet and mDLs (ISO/IEC 18013-5 `mso_mdoc`): a holder of one instance previews an
 * mDL offer of another (doctype and `[namespace, element]` claims); accepting it needs a P-256
 * authentication key, which the issuer's configuration asks for (ES256 proofs only), so a holder
 * whose DID has only Ed25519 keys is refused before anything is redeemed, unless it names a P-256
 * `device_key` it keeps, which the mDL is then bound to. An mDL whose Document Signer chains to a
 * root not trusted here (another instance's) is refused at receipt. Import of an mDL issued
 * by this service verifies it against the hosted IACA roots and lists its doctype and elements; a
 * tampered element is the documented 422 `signature`, an mDL of a Document Signer not trusted here `issuer`.
 */
import assert from 'node:assert/strict'
import { createPrivateKey, sign, type JsonWebKey } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { bearer, DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeTwoInstances, openTwoInstances } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { generateWalletKey, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import type { TestApp } from '../helpers/test-app.js'
import { MDL_DOCTYPE as MDL, MDL_NAMESPACE as NAMESPACE, sampleLicence as licence } from '../helpers/mdl-sample.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

/** A compact JWS over a prepared signing input (RFC 7515 §5.1; ES256 signatures are r‖s, RFC 7518 §3.4). */
function signInput(key: WalletKey, signingInput: string): string {
  const privateKey = createPrivateKey({ key: key.privateJwk as JsonWebKey, format: 'jwk' })
  const signature = sign('sha256', Buffer.from(signingInput), { key: privateKey, dsaEncoding: 'ieee-p1363' })
  return `${signingInput}.${signature.toString('base64url')}`
}

const asHolder = (
  app: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  holder: DidClient,
  token: string,
  payload?: Json,
) =>
  app.inject({ method, url, headers: { ...bearer(token), 'x-user-did': holder.did }, ...(payload ? { payload } : {}) })

/** An issuer on `app` with the ISO mDL preset schema and country DE: its schema id. */
async function mdlIssuer(app: FastifyInstance, issuer: IssuerActor, name: string): Promise<string> {
  await issuer.setUp(app, name)
  const updated = await callAs(app, 'PUT', `/api/issuer/${issuer.did}/update`, issuer.token, { country: 'DE' })
  assert.equal(updated.statusCode, 200, updated.body)
  const preset = (await app.inject({ method: 'GET', url: '/api/schema-presets' }))
    .json()
    .presets.find((p: Json) => p.id === MDL)
  return issuer.schema(app, preset.schema)
}

async function issueMdl(
  app: FastifyInstance,
  issuer: IssuerActor,
  schemaId: string,
  subject: WalletKey,
): Promise<string> {
  const res = await callAs(app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
    credential_type: 'DrivingLicence',
    schema_id: schemaId,
    subject_did: subject.did,
    attributes: licence,
    format: 'mso_mdoc',
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().credential.jwt
}

describe('the hosted wallet with mDLs (mso_mdoc)', () => {
  let homeFront: HttpsFront
  let foreignFront: HttpsFront
  let home: TestApp
  let foreign: TestApp
  const foreignIssuer = new IssuerActor()
  const homeIssuer = new IssuerActor()
  const holder = new DidClient()
  let holderToken: string
  let foreignSchema: string
  let homeSchema: string
  let deviceKey: WalletKey

  before(async () => {
    ;({ homeFront, foreignFront, home, foreign } = await openTwoInstances())
    foreignSchema = await mdlIssuer(foreign.app, foreignIssuer, 'Kraftfahrt-Bundesamt')
    homeSchema = await mdlIssuer(home.app, homeIssuer, 'Stadt Musterstadt')
    holderToken = await holder.login(home.app)
    deviceKey = await generateWalletKey('ES256')
  })
  after(() => closeTwoInstances({ homeFront, foreignFront, home, foreign }))

  const mdlOffer = async (app = foreign.app, issuer = foreignIssuer, schemaId = foreignSchema) => {
    const res = await callAs(app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: schemaId,
      attributes: licence,
      format: 'mso_mdoc',
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }

  it('previews an mDL offer: its doctype and its elements as [namespace, element] claims', async () => {
    const created = await mdlOffer()
    const res = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/offers/preview`, holder, holderToken, {
      offer_uri: created.credential_offer_uri,
    })
    assert.equal(res.statusCode, 200, res.body)
    const configuration = (res.json().credential_configurations as Json[])[0]!
    assert.equal(configuration.format, 'mso_mdoc')
    assert.equal(configuration.credential_type, MDL)
    const paths = (configuration.claims as Json[]).map((c) => c.path)
    assert.ok(
      paths.some((p) => p[0] === NAMESPACE && p[1] === 'family_name'),
      JSON.stringify(paths),
    )
    assert.ok(paths.every((p) => p.length === 2 && p[0] === NAMESPACE))
  })

  it('refuses to accept an mDL offer for a holder without a P-256 key (the issuer takes ES256 proofs only); the offer stays unspent', async () => {
    const created = await mdlOffer()
    const res = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/offers/accept`, holder, holderToken, {
      offer_uri: created.credential_offer_uri,
    })
    assert.equal(res.statusCode, 422, res.body)
    assert.match(res.json().message, /no authentication key for ES256\b/)
    const offers = (
      await callAs(foreign.app, 'GET', `/api/issuer/${foreignIssuer.did}/offers`, foreignIssuer.token)
    ).json().data as Json[]
    assert.equal(offers.find((o) => o.id === created.offer.id)?.uses, 0)
  })

  it('accepts an mDL offer bound to a P-256 device_key the holder keeps: the proof carries that key, the mDL binds it, and the wallet keeps it', async () => {
    const created = await mdlOffer(home.app, homeIssuer, homeSchema)
    const prepared = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/offers/accept`, holder, holderToken, {
      offer_uri: created.credential_offer_uri,
      device_key: deviceKey.publicJwk,
    })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const proof = prepared.json().proof as Json
    assert.equal(proof.header.alg, 'ES256')
    assert.deepEqual(proof.header.jwk, deviceKey.publicJwk)
    assert.equal(proof.header.kid, undefined)

    // A proof signed by another key is refused, and the session stays open for the right one.
    const url = `/api/wallet/${holder.did}/offers/accept/${prepared.json().session_id}`
    const stranger = await generateWalletKey('ES256')
    const wrong = await asHolder(home.app, 'POST', url, holder, holderToken, {
      proof_jwt: signInput(stranger, proof.signing_input),
    })
    assert.equal(wrong.statusCode, 400, wrong.body)
    assert.match(wrong.json().message, /proof_jwt is refused/)

    const done = await asHolder(home.app, 'POST', url, holder, holderToken, {
      proof_jwt: signInput(deviceKey, proof.signing_input),
    })
    assert.equal(done.statusCode, 201, done.body)
    const kept = done.json().credentials[0] as Json
    assert.equal(kept.credential_type, MDL)
    assert.equal(kept.credential_data.family_name, 'Mustermann')
    // full-dates read back as written (RFC 8943), at the top and inside driving_privileges.
    assert.equal(kept.credential_data.birth_date, '1990-08-12')
    assert.equal(kept.credential_data.driving_privileges[0].issue_date, '2008-05-01')
    // The MSO's deviceKeyInfo holds the device key's coordinates (ISO/IEC 18013-5 §9.1.2.4).
    const mso = Buffer.from(kept.jwt, 'base64url')
    assert.ok(mso.includes(Buffer.from(String(deviceKey.publicJwk.x), 'base64url')))
    assert.ok(mso.includes(Buffer.from(String(deviceKey.publicJwk.y), 'base64url')))
  })

  it('refuses at receipt an mDL whose Document Signer chains to a root this service does not trust (422 issuer), and keeps nothing', async () => {
    const created = await mdlOffer()
    const prepared = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/offers/accept`, holder, holderToken, {
      offer_uri: created.credential_offer_uri,
      device_key: deviceKey.publicJwk,
    })
    assert.equal(prepared.statusCode, 201, prepared.body)
    const before = (
      await asHolder(home.app, 'GET', `/api/wallet/${holder.did}/credentials`, holder, holderToken)
    ).json()
    const done = await asHolder(
      home.app,
      'POST',
      `/api/wallet/${holder.did}/offers/accept/${prepared.json().session_id}`,
      holder,
      holderToken,
      { proof_jwt: signInput(deviceKey, prepared.json().proof.signing_input) },
    )
    assert.equal(done.statusCode, 422, done.body)
    assert.equal(done.json().details.reason, 'issuer')
    const after = (await asHolder(home.app, 'GET', `/api/wallet/${holder.did}/credentials`, holder, holderToken)).json()
    assert.equal(after.data.length, before.data.length)
  })

  it('refuses a device_key off the curve (400) and one an issuer that binds to DIDs only cannot take (422)', async () => {
    const created = await mdlOffer()
    const off = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/offers/accept`, holder, holderToken, {
      offer_uri: created.credential_offer_uri,
      device_key: { ...deviceKey.publicJwk, y: deviceKey.publicJwk.x },
    })
    assert.equal(off.statusCode, 400, off.body)
    assert.match(off.json().message, /device_key is not a point of P-256/)

    const extra = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/offers/accept`, holder, holderToken, {
      offer_uri: created.credential_offer_uri,
      device_key: { ...deviceKey.publicJwk, d: 'AAAA' },
    })
    assert.equal(extra.statusCode, 400, extra.body)

    const sdJwtOffer = await callAs(
      foreign.app,
      'POST',
      `/api/issuer/${foreignIssuer.did}/offers`,
      foreignIssuer.token,
      {
        credential_type: 'DrivingLicence',
        schema_id: foreignSchema,
        attributes: licence,
        format: 'jwt_vc_json',
      },
    )
    assert.equal(sdJwtOffer.statusCode, 201, sdJwtOffer.body)
    const didOnly = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/offers/accept`, holder, holderToken, {
      offer_uri: sdJwtOffer.json().credential_offer_uri,
      device_key: deviceKey.publicJwk,
    })
    assert.equal(didOnly.statusCode, 422, didOnly.body)
    assert.match(didOnly.json().message, /binds this credential to DIDs only/)
  })

  it('imports an mDL issued here: verified against the hosted IACA roots, listed with its doctype and elements', async () => {
    const mdl = await issueMdl(home.app, homeIssuer, homeSchema, deviceKey)
    const res = await asHolder(home.app, 'POST', `/api/wallet/${holder.did}/credentials/import`, holder, holderToken, {
      credential_jwt: mdl,
    })
    assert.equal(res.statusCode, 201, res.body)
    const kept = res.json().credential as Json
    assert.equal(kept.credential_type, MDL)
    assert.equal(kept.credential_data.family_name, 'Mustermann')
    assert.equal(kept.credential_data.age_over_18, true)

    const listed = await asHolder(home.app, 'GET', `/api/wallet/${holder.did}/credentials`, holder, holderToken)
    assert.equal(listed.statusCode, 200, listed.body)
    const entry = (listed.json().data as Json[]).find((c) => c.id === kept.id)
    assert.ok(entry, 'listed')
    assert.equal(entry.credential_type, MDL)
    assert.equal(entry.credential_data.given_name, 'Erika')
  })

  it('refuses a tampered mDL (422 signature) and one whose Document Signer this service does not trust (422 issuer)', async () => {
    const mdl = await issueMdl(home.app, homeIssuer, homeSchema, deviceKey)
    const bytes = Buffer.from(mdl, 'base64url')
    const at = bytes.indexOf(Buffer.from('Mustermann'))
    assert.ok(at > 0)
    bytes.write('Nustermann', at)
    const tampered = await asHolder(
      home.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/import`,
      holder,
      holderToken,
      {
        credential_jwt: bytes.toString('base64url'),
      },
    )
    assert.equal(tampered.statusCode, 422, tampered.body)
    assert.equal(tampered.json().details.reason, 'signature')

    const elsewhere = await issueMdl(foreign.app, foreignIssuer, foreignSchema, deviceKey)
    const untrusted = await asHolder(
      home.app,
      'POST',
      `/api/wallet/${holder.did}/credentials/import`,
      holder,
      holderToken,
      {
        credential_jwt: elsewhere,
      },
    )
    assert.equal(untrusted.statusCode, 422, untrusted.body)
    assert.equal(untrusted.json().details.reason, 'issuer')
  })
})
