/**
 * An mDL issued over OpenID4VCI 1.0 (Appendix A.2) to a standard wallet (test/helpers/oid4vc-wallet:
 * @openid4vc/openid4vci's client and jose only) over a real HTTPS front: the spec's offer with a
 * tx_code, the pre-authorized code, an ES256 key proof, the base64url IssuerSigned in the credential
 * response. @auth0/mdl checks what the wallet received: wrapped in a DeviceResponse signed with the
 * wallet's proof key, its Verifier (trusting only the IACA the issuer publishes) accepts it, so the
 * MSO's device key is the proof key. The metadata's mdoc configuration is read by the library's own
 * parser; a key proof that is not P-256 is invalid_proof.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DeviceResponse, Verifier } from '@auth0/mdl'
import { Decoder, encode } from 'cbor-x'
import * as jose from 'jose'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import type { WalletKey } from '../helpers/oid4vc-wallet/wallet-keys.js'
import type { Json } from '../helpers/oid4vci-checks.js'
import type { TestApp } from '../helpers/test-app.js'
import {
  asMdoc,
  MDL_DOCTYPE as MDL,
  MDL_NAMESPACE as NAMESPACE,
  sampleLicence as licence,
} from '../helpers/mdl-sample.js'

const cbor = new Decoder({ mapsAsObjects: false })

/** @auth0/mdl's DeviceResponse of `elements`, device-signed with `key`, verified trusting only `iacaPem`. */
async function presentAndVerify(issuerSigned: string, key: WalletKey, iacaPem: string, elements: string[]) {
  const transcript = Buffer.from(encode(['oid4vci-mdoc-test', 'nonce-1']))
  const presented = await DeviceResponse.from(asMdoc(Buffer.from(issuerSigned, 'base64url')))
    .usingPresentationDefinition({
      id: 'mdl',
      input_descriptors: [
        {
          id: MDL,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: {
            limit_disclosure: 'required',
            fields: elements.map((e) => ({ path: [`$['${NAMESPACE}']['${e}']`], intent_to_retain: false })),
          },
        },
      ],
    })
    .usingSessionTranscriptBytes(transcript)
    .authenticateWithSignature(key.privateJwk as Record<string, unknown>, 'ES256')
    .sign()
  return new Verifier([iacaPem]).verify(presented.encode(), { encodedSessionTranscript: transcript })
}

describe('an mDL over OpenID4VCI 1.0, received by a standard wallet and verified by @auth0/mdl', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string
  let iacaPem: string

  before(async () => {
    ;({ front, t } = await openHttpsIssuer(issuer, 'Kraftfahrt-Bundesamt', {
      name: 'Placeholder',
      version: '1',
      attributes: [{ name: 'x', data_type: 'string' }],
      anonymous_credentials: false,
    }))
    const updated = await callAs(t.app, 'PUT', `/api/issuer/${issuer.did}/update`, issuer.token, { country: 'DE' })
    assert.equal(updated.statusCode, 200, updated.body)
    const preset = (await t.app.inject({ method: 'GET', url: '/api/schema-presets' }))
      .json()
      .presets.find((p: Json) => p.id === MDL)
    schemaId = await issuer.schema(t.app, preset.schema)
    const listed = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    iacaPem = listed.json().certificates.find((c: Json) => c.use === 'iaca' && c.status !== 'retired').pem
  })
  after(() => closeHttpsIssuer({ front, t }))

  const offer = (body: Json = {}) =>
    makeOffer(
      t,
      issuer,
      { credential_type: 'DrivingLicence', schema_id: schemaId, attributes: licence, format: 'mso_mdoc' },
      body,
    )

  it('serves an Appendix A.2 configuration the library parses: doctype, cose_key, COSE ES256, [namespace, element] claims, ES256 proofs', async () => {
    const created = await offer()
    assert.equal(created.credential_configuration_id, `${schemaId}.mso_mdoc`)
    const wallet = await IssuanceWallet.create(['ES256'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    assert.equal(resolved.metadata.originalDraftVersion, 'V1')
    // Known to the library: parsed by its mso_mdoc schema (a malformed one would be left out).
    const known = resolved.metadata.knownCredentialConfigurations[resolved.configurationId] as Json
    assert.ok(known, 'the library knows the mdoc configuration')
    assert.equal(known.format, 'mso_mdoc')
    assert.equal(known.doctype, MDL)
    assert.deepEqual(known.cryptographic_binding_methods_supported, ['cose_key'])
    assert.deepEqual(known.credential_signing_alg_values_supported, [-7])
    assert.deepEqual(known.proof_types_supported, { jwt: { proof_signing_alg_values_supported: ['ES256'] } })
    const paths = (known.credential_metadata.claims as Json[]).map((c) => c.path)
    assert.ok(paths.some((p) => p[0] === NAMESPACE && p[1] === 'family_name'))
    assert.ok(paths.every((p) => p.length === 2 && p[0] === NAMESPACE))
  })

  it('issues the mDL after the tx_code to the ES256 proof key: @auth0/mdl verifies it device-signed with that key', async () => {
    const created = await offer({ tx_code: { length: 6, input_mode: 'numeric' } })
    assert.match(created.tx_code, /^\d{6}$/)
    const wallet = await IssuanceWallet.create(['ES256'])
    const { answer } = await wallet.receive(created.credential_offer_uri, { txCode: created.tx_code })
    assert.ok(answer.ok, JSON.stringify(answer))
    const credentials = answer.credentialResponse.credentials as Json[]
    assert.equal(credentials.length, 1)
    const received = credentials[0]!.credential
    assert.equal(typeof received, 'string')
    assert.match(received, /^[A-Za-z0-9_-]+$/, 'base64url (Appendix A.2.4)')

    const verified = await presentAndVerify(received, wallet.keys[0]!, iacaPem, ['family_name', 'age_over_18'])
    const document = verified.documents[0]!
    assert.equal(document.docType, MDL)
    const disclosed = Object.fromEntries(
      document.issuerSigned.nameSpaces[NAMESPACE]!.map((item) => [item.elementIdentifier, item.elementValue]),
    )
    assert.deepEqual(disclosed, { family_name: 'Mustermann', age_over_18: true })

    // Signed with another key, the device signature does not verify: the device key is the proof key.
    const other = await IssuanceWallet.create(['ES256'])
    await assert.rejects(presentAndVerify(received, other.keys[0]!, iacaPem, ['family_name']))
  })

  it('refuses an EdDSA key proof for an mdoc with invalid_proof saying it must be P-256, and issues nothing', async () => {
    const created = await offer()
    const wallet = await IssuanceWallet.create(['EdDSA'])
    const resolved = await wallet.resolve(created.credential_offer_uri)
    const token = await wallet.token(resolved)
    // The library's client would not sign an EdDSA proof for this configuration: it is told the metadata allows it.
    const widen = (configurations: Json) => ({
      ...configurations,
      [resolved.configurationId]: {
        ...configurations[resolved.configurationId],
        proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256', 'EdDSA'] } },
      },
    })
    const lax = {
      ...resolved,
      metadata: {
        ...resolved.metadata,
        knownCredentialConfigurations: widen(resolved.metadata.knownCredentialConfigurations),
        credentialIssuer: {
          ...resolved.metadata.credentialIssuer,
          credential_configurations_supported: widen(
            resolved.metadata.credentialIssuer.credential_configurations_supported,
          ),
        },
      },
    } as typeof resolved
    const proofs = await wallet.proofs(lax, await wallet.nonce(resolved))
    const answer = await wallet.credentials(resolved, token, proofs).catch((e: Json) => e.response)
    const body = (answer?.credentialErrorResponseResult?.data ?? answer?.credentialErrorResponseResult) as Json
    assert.ok(body, JSON.stringify(answer))
    assert.equal(body.error, 'invalid_proof')
    assert.match(body.error_description, /P-256/)
    // The grant was not spent: an ES256 proof from a wallet redeeming the same token works.
    const p256 = await IssuanceWallet.create(['ES256'])
    const retry = await p256.proofs(resolved, await p256.nonce(resolved))
    const second = await wallet.credentials(resolved, token, retry)
    assert.ok(second.ok, JSON.stringify(second))
    const listed = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/offers`, issuer.token)).json().data as Json[]
    assert.equal(listed.find((o) => o.id === created.offer.id)!.uses, 1)
    const issued = (second.credentialResponse.credentials as Json[])[0]!.credential as string
    const mso = cbor.decode(
      cbor.decode(
        Buffer.from(cbor.decode(Buffer.from(issued, 'base64url')).get('issuerAuth')[2] as Uint8Array).subarray(2),
      ),
    )
    const deviceKey: Map<number, Uint8Array> = mso.get('deviceKeyInfo').get('deviceKey')
    assert.equal(
      await jose.calculateJwkThumbprint({
        kty: 'EC',
        crv: 'P-256',
        x: Buffer.from(deviceKey.get(-2)!).toString('base64url'),
        y: Buffer.from(deviceKey.get(-3)!).toString('base64url'),
      }),
      await jose.calculateJwkThumbprint(p256.keys[0]!.publicJwk as jose.JWK),
    )
  })
})
