/**
 * The hosted wallet and mDLs (ISO/IEC 18013-5 `mso_mdoc`): a holder of one instance previews an
 * mDL offer of another (doctype and `[namespace, element]` claims); accepting it needs a P-256
 * authentication key, which the issuer's configuration asks for (ES256 proofs only), so a holder
 * whose DID has only Ed25519 keys is refused before anything is redeemed. Import of an mDL issued
 * by this service verifies it against the hosted IACA roots and lists its doctype and elements; a
 * tampered element is the documented 422 `signature`, an mDL of a Document Signer not trusted here `issuer`.
 */
import assert from 'node:assert/strict'
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

  const mdlOffer = async () => {
    const res = await callAs(foreign.app, 'POST', `/api/issuer/${foreignIssuer.did}/offers`, foreignIssuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: foreignSchema,
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
