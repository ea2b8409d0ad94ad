/**
 * An mDL issued through the spec's issue route (`format: "mso_mdoc"`) from the ready-made ISO mDL
 * schema, checked by an independent implementation: @auth0/mdl's Verifier, trusting only the IACA
 * root the issuer's public certificate listing shows, verifies the issuer signature, the DS chain,
 * the value digests and the device signature of a DeviceResponse @auth0/mdl builds from it with
 * the holder's key. Revoking through the spec's route shows in the CWT status list the MSO names,
 * read with cbor-x and @owf/token-status-list. The refusals: a schema without a doctype, a holder
 * without a P-256 key, a value of the wrong type.
 */
import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { DeviceResponse, Verifier } from '@auth0/mdl'
import { StatusList } from '@owf/token-status-list'
import { Decoder, encode } from 'cbor-x'
import * as jose from 'jose'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { generateWalletKey, type WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'
import {
  asMdoc,
  MDL_DOCTYPE as MDL,
  MDL_NAMESPACE as NAMESPACE,
  sampleLicence as licence,
} from '../helpers/mdl-sample.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const cbor = new Decoder({ mapsAsObjects: false })

describe(`an mDL through the spec's issue route, verified by @auth0/mdl (${TEST_ENGINE})`, () => {
  let t: TestApp
  const issuer = new IssuerActor()
  let holder: WalletKey
  let schemaId: string
  let credential: Json

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Kraftfahrt-Bundesamt')
    holder = await generateWalletKey('ES256')
  })
  after(() => t.close())

  it('refuses an mDL whose issuing_country is not the country of the issuer’s certificates, until the profile names it', async () => {
    const preset = (await t.app.inject({ method: 'GET', url: '/api/schema-presets' }))
      .json()
      .presets.find((p: Json) => p.id === MDL)
    const schema = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/schemas`, issuer.token, {
      ...preset.schema,
      version: '0.9',
    })
    assert.equal(schema.statusCode, 201, schema.body)
    const early = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: schema.json().schema.id,
      subject_did: holder.did,
      attributes: licence,
      format: 'mso_mdoc',
    })
    assert.equal(early.statusCode, 400, early.body)
    assert.match(early.json().message, /issuing_country "DE".*\(ZZ\)/)
    const updated = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/update`, issuer.token, { country: 'DE' })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.equal(updated.json().issuer.country, 'DE')
    const listed = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    const subjects = listed
      .json()
      .certificates.filter((c: Json) => c.status !== 'retired')
      .map((c: Json) => new X509Certificate(c.pem).subject)
    assert.ok(
      subjects.every((s: string) => s.includes('C=DE')),
      `the certificates in use name DE after the next use: ${subjects}`,
    )
  })
  after(() => t.close())

  it('offers the ISO mDL as a ready-made schema, which creates a schema naming its doctype', async () => {
    const presets = await t.app.inject({ method: 'GET', url: '/api/schema-presets' })
    assert.equal(presets.statusCode, 200, presets.body)
    const mdl = presets.json().presets.find((p: Json) => p.id === MDL)
    assert.ok(mdl, 'the mDL preset is listed')
    assert.equal(mdl.format, 'mso_mdoc')
    assert.ok(
      presets.json().presets.some((p: Json) => p.id === 'eu.europa.ec.eudi.pid.1'),
      'the EU PID preset is listed',
    )
    const created = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/schemas`, issuer.token, mdl.schema)
    assert.equal(created.statusCode, 201, created.body)
    assert.deepEqual(created.json().schema.mdoc, { doctype: MDL, namespace: NAMESPACE })
    schemaId = created.json().schema.id
  })

  it('issues an mDL that @auth0/mdl verifies against the IACA root the issuer publishes, with the holder’s device signature', async () => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: licence,
      format: 'mso_mdoc',
    })
    assert.equal(res.statusCode, 201, res.body)
    credential = res.json().credential

    const listed = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    assert.equal(listed.statusCode, 200, listed.body)
    const iaca = listed.json().certificates.find((c: Json) => c.use === 'iaca' && c.status !== 'retired')
    assert.ok(iaca, 'an IACA root is listed')

    const transcript = encode(['test-transcript', 'nonce-1'])
    const presented = await DeviceResponse.from(asMdoc(Buffer.from(credential.jwt, 'base64url')))
      .usingPresentationDefinition({
        id: 'age',
        input_descriptors: [
          {
            id: MDL,
            format: { mso_mdoc: { alg: ['ES256'] } },
            constraints: {
              limit_disclosure: 'required',
              fields: ['age_over_18', 'issuing_country'].map((e) => ({
                path: [`$['${NAMESPACE}']['${e}']`],
                intent_to_retain: false,
              })),
            },
          },
        ],
      })
      .usingSessionTranscriptBytes(Buffer.from(transcript))
      .authenticateWithSignature(holder.privateJwk as Record<string, unknown>, 'ES256')
      .sign()
    const verified = await new Verifier([iaca.pem]).verify(presented.encode(), {
      encodedSessionTranscript: Buffer.from(transcript),
    })
    const document = verified.documents[0]!
    assert.equal(document.docType, MDL)
    const disclosed = Object.fromEntries(
      document.issuerSigned.nameSpaces[NAMESPACE]!.map((item) => [item.elementIdentifier, item.elementValue]),
    )
    assert.deepEqual(disclosed, { age_over_18: true, issuing_country: 'DE' })

    // Another root: the chain does not verify.
    const otherIssuer = await new IssuerActor().setUp(t.app, 'Other')
    const other = (await t.app.inject({ method: 'GET', url: `/api/issuer/${otherIssuer.did}/certificates` }))
      .json()
      .certificates.find((c: Json) => c.use === 'iaca')
    assert.notEqual(new X509Certificate(other.pem).fingerprint256, new X509Certificate(iaca.pem).fingerprint256)
    await assert.rejects(
      new Verifier([other.pem]).verify(presented.encode(), { encodedSessionTranscript: Buffer.from(transcript) }),
    )
  })

  it('binds the MSO to the holder’s key and names a status list whose CWT form shows a revocation', async () => {
    const issuerSigned = cbor.decode(Buffer.from(credential.jwt, 'base64url'))
    const issuerAuth = issuerSigned.get('issuerAuth')
    // The payload is #6.24(bstr .cbor MSO) (ISO/IEC 18013-5 §9.1.2.4): past the tag's two bytes, the bstr holds the MSO.
    const payload = Buffer.from(issuerAuth[2] as Uint8Array)
    assert.equal(payload.subarray(0, 2).toString('hex'), 'd818')
    const mso = cbor.decode(cbor.decode(payload.subarray(2)))
    const deviceKey: Map<number, unknown> = mso.get('deviceKeyInfo').get('deviceKey')
    const thumbprint = await jose.calculateJwkThumbprint({
      kty: 'EC',
      crv: 'P-256',
      x: Buffer.from(deviceKey.get(-2) as Uint8Array).toString('base64url'),
      y: Buffer.from(deviceKey.get(-3) as Uint8Array).toString('base64url'),
    })
    assert.equal(thumbprint, await jose.calculateJwkThumbprint(holder.publicJwk as jose.JWK))
    const { idx, uri } = Object.fromEntries(mso.get('status').get('status_list')) as { idx: number; uri: string }

    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
      {
        reason: 'test',
      },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    const list = await t.app.inject({
      method: 'GET',
      url: new URL(uri).pathname,
      headers: { accept: 'application/statuslist+cwt' },
    })
    assert.equal(list.statusCode, 200, list.body)
    // COSE_Sign1 (tag 18, one byte): [protected, unprotected, payload, signature]; the payload is the CWT claims set.
    assert.equal(list.rawPayload[0], 0xd2)
    const claims: Map<number, unknown> = cbor.decode(cbor.decode(list.rawPayload.subarray(1))[2])
    const lst = (claims.get(65533) as Map<string, unknown>).get('lst') as Uint8Array
    const statuses = StatusList.decompressStatusListFromBytes(lst, 1)
    assert.equal(statuses.getStatus(idx), 1, 'revoked')
  })

  it('refuses an mdoc of a schema without a doctype, of a holder without a P-256 key, and a value of the wrong type', async () => {
    const plain = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/schemas`, issuer.token, {
      name: 'Plain',
      version: '1.0',
      attributes: [{ name: 'given_name', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    assert.equal(plain.statusCode, 201, plain.body)
    const noDoctype = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Plain',
      schema_id: plain.json().schema.id,
      subject_did: holder.did,
      attributes: { given_name: 'Erika' },
      format: 'mso_mdoc',
    })
    assert.equal(noDoctype.statusCode, 400, noDoctype.body)
    assert.match(noDoctype.json().message, /doctype/)

    const edHolder = new DidClient()
    const noP256 = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: schemaId,
      subject_did: edHolder.did,
      attributes: licence,
      format: 'mso_mdoc',
    })
    assert.equal(noP256.statusCode, 400, noP256.body)
    assert.match(noP256.json().message, /P-256/)

    const badDate = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'DrivingLicence',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { ...licence, birth_date: '12 August 1990' },
      format: 'mso_mdoc',
    })
    assert.equal(badDate.statusCode, 400, badDate.body)
  })
})
