/**
 * Credo 0.6 as an outside holder agent receives an mDL over OpenID4VCI 1.0: its OpenID4VCI holder
 * redeems the pre-authorized offer with a jwk key proof by a P-256 key its KMS made, then verifies
 * the mdoc itself (@animo-id/mdoc through Credo's MdocApi: issuer signature, the Document Signer
 * chain up to the IACA root it is told to trust, digests) before answering a record.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Agent, Kms } from '@credo-ts/core'
import { agentDependencies, NodeInMemoryKeyManagementStorage, NodeKeyManagementService } from '@credo-ts/node'
import { OpenId4VcModule } from '@credo-ts/openid4vc'
import { MemoryStorageModule } from '../helpers/credo-storage.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import type { TestApp } from '../helpers/test-app.js'
import { MDL_DOCTYPE as MDL, MDL_NAMESPACE as NAMESPACE, sampleLicence as licence } from '../helpers/mdl-sample.js'

// Decoded JSON read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

function credoAgent() {
  // @credo-ts/node's alpha brings its own copy of @credo-ts/core: its KMS is Core's interface.
  const kms = new NodeKeyManagementService(
    new NodeInMemoryKeyManagementStorage(),
  ) as unknown as Kms.KeyManagementService
  return new Agent({
    config: {},
    dependencies: agentDependencies,
    modules: {
      storage: new MemoryStorageModule(),
      kms: new Kms.KeyManagementModule({ backends: [kms] }),
      openid4vc: new OpenId4VcModule(),
    },
  })
}

describe('Credo 0.6 holder receives an mDL over OpenID4VCI', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  let schemaId: string
  let agent: ReturnType<typeof credoAgent>

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
    agent = credoAgent()
    await agent.initialize()
  })
  after(async () => {
    await agent?.shutdown()
    await closeHttpsIssuer({ front, t })
  })

  it('redeems the offer with a P-256 jwk proof and verifies the mDL against the issuer’s IACA root', async () => {
    const listed = await t.app.inject({ method: 'GET', url: `/api/issuer/${issuer.did}/certificates` })
    const iaca = listed.json().certificates.find((c: Json) => c.use === 'iaca' && c.status !== 'retired')
    agent.x509.config.addTrustedCertificate(iaca.pem)

    const created = await makeOffer(t, issuer, {
      credential_type: 'DrivingLicence',
      schema_id: schemaId,
      attributes: licence,
      format: 'mso_mdoc',
    })
    const key = await agent.kms.createKey({ type: { kty: 'EC', crv: 'P-256' } })
    const publicJwk = Kms.PublicJwk.fromPublicJwk(key.publicJwk)
    const holder = agent.openid4vc.holder
    const resolvedCredentialOffer = await holder.resolveCredentialOffer(created.credential_offer_uri)
    const token = await holder.requestToken({ resolvedCredentialOffer })
    const response = await holder
      .requestCredentials({
        resolvedCredentialOffer,
        ...token,
        credentialBindingResolver: () => ({ method: 'jwk', keys: [publicJwk] }),
      })
      .catch((error: unknown) => {
        throw new Error(`Credo refused: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
      })
    const record = response.credentials[0]?.record
    assert.ok(record, 'Credo answered a record')
    assert.equal(record.type, 'MdocRecord')
    const mdoc = (record as Json).firstCredential
    assert.equal(mdoc.docType, MDL)
    assert.equal(mdoc.issuerSignedNamespaces[NAMESPACE].family_name, 'Mustermann')
    assert.equal(mdoc.deviceKey.fingerprint, publicJwk.fingerprint, 'the device key is the proof key')
  })

  it('refuses the mDL when it is not told to trust the issuer’s IACA root (its verification is a real one)', async () => {
    const untrusting = credoAgent()
    await untrusting.initialize()
    try {
      const created = await makeOffer(t, issuer, {
        credential_type: 'DrivingLicence',
        schema_id: schemaId,
        attributes: licence,
        format: 'mso_mdoc',
      })
      const key = await untrusting.kms.createKey({ type: { kty: 'EC', crv: 'P-256' } })
      const publicJwk = Kms.PublicJwk.fromPublicJwk(key.publicJwk)
      const holder = untrusting.openid4vc.holder
      const resolvedCredentialOffer = await holder.resolveCredentialOffer(created.credential_offer_uri)
      const token = await holder.requestToken({ resolvedCredentialOffer })
      await assert.rejects(
        holder.requestCredentials({
          resolvedCredentialOffer,
          ...token,
          credentialBindingResolver: () => ({ method: 'jwk', keys: [publicJwk] }),
        }),
      )
    } finally {
      await untrusting.shutdown()
    }
  })
})
