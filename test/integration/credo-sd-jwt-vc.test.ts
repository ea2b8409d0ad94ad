/**
 * Credo 0.6 as an outside holder agent receives an SD-JWT VC of the default issuer (a did:web hosted
 * here, `iss` its https identifier) over OpenID4VCI 1.0. Credo resolves an https `iss` only through
 * `x5c` (SD-JWT VC §3.5): it checks the leaf chains to an IACA it is told to trust and that the
 * leaf's SAN names `iss`, verifies the signature with the leaf's key, then stores the record.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Agent, Kms } from '@credo-ts/core'
import { agentDependencies, NodeInMemoryKeyManagementStorage, NodeKeyManagementService } from '@credo-ts/node'
import { OpenId4VcModule } from '@credo-ts/openid4vc'
import * as jose from 'jose'
import { MemoryStorageModule } from '../helpers/credo-storage.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeHttpsIssuer, makeOffer, openHttpsIssuer } from '../helpers/https-issuer.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import type { TestApp } from '../helpers/test-app.js'

// Decoded JSON read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Membership',
  version: '1',
  attributes: [
    { name: 'member', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
  anonymous_credentials: false,
}

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
type CredoAgent = ReturnType<typeof credoAgent>

describe('Credo 0.6 holder receives an SD-JWT VC of the default issuer (x5c)', () => {
  let front: HttpsFront
  let t: TestApp
  const issuer = new IssuerActor()
  const other = new IssuerActor()
  let schemaId: string
  let agent: CredoAgent

  const iacaOf = async (did: string): Promise<string> => {
    const listed = await t.app.inject({ method: 'GET', url: `/api/issuer/${did}/certificates` })
    assert.equal(listed.statusCode, 200, listed.body)
    return listed.json().certificates.find((c: Json) => c.use === 'iaca' && c.status === 'active').pem
  }

  /** The pre-authorized flow as a Credo wallet runs it, a P-256 key of its KMS bound by a jwk proof. */
  const redeem = async (holder: CredoAgent) => {
    const created = await makeOffer(t, issuer, {
      credential_type: 'Membership',
      schema_id: schemaId,
      attributes: { member: 'Ada', level: 3 },
      format: 'dc+sd-jwt',
    })
    const key = await holder.kms.createKey({ type: { kty: 'EC', crv: 'P-256' } })
    const publicJwk = Kms.PublicJwk.fromPublicJwk(key.publicJwk)
    const openid = holder.openid4vc.holder
    const resolvedCredentialOffer = await openid.resolveCredentialOffer(created.credential_offer_uri)
    const token = await openid.requestToken({ resolvedCredentialOffer })
    const response = await openid.requestCredentials({
      resolvedCredentialOffer,
      ...token,
      credentialBindingResolver: () => ({ method: 'jwk', keys: [publicJwk] }),
    })
    return { response, publicJwk }
  }

  before(async () => {
    ;({ front, t, schemaId } = await openHttpsIssuer(issuer, 'Club', SCHEMA))
    await other.setUp(t.app, 'Other Club')
    agent = credoAgent()
    await agent.initialize()
    agent.x509.config.addTrustedCertificate(await iacaOf(issuer.did))
  })
  after(async () => {
    await agent?.shutdown()
    await closeHttpsIssuer({ front, t })
  })

  it('verifies the credential against the trusted IACA through x5c and stores it', async () => {
    const { response, publicJwk } = await redeem(agent).catch((error: unknown) => {
      throw new Error(`Credo refused: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    })
    const record = response.credentials[0]?.record
    assert.ok(record, 'Credo answered a record')
    assert.equal(record.type, 'SdJwtVcRecord')
    const stored = await agent.sdJwtVc.store({ record: record as never })
    const [held] = await agent.sdJwtVc.getAll()
    assert.equal(held?.id, stored.id)
    const credential = held!.firstCredential
    assert.equal(credential.prettyClaims.member, 'Ada')
    assert.equal(
      credential.prettyClaims.iss,
      `${front.origin}/issuers/${(credential.payload.iss as string).split('/issuers/')[1]}`,
    )
    assert.ok(Array.isArray(credential.header.x5c), 'the credential carries x5c')
    assert.deepEqual((credential.payload.cnf as Json).jwk.x, publicJwk.toJson().x, 'bound to the proof key')
  })

  it('refuses the credential when it is not told to trust the issuer’s IACA', async () => {
    const untrusting = credoAgent()
    await untrusting.initialize()
    try {
      await assert.rejects(redeem(untrusting), /trusted certificates|certificate chain/i)
    } finally {
      await untrusting.shutdown()
    }
  })

  it('refuses one signed by the issuer’s certified key that names another issuer of this host as iss', async () => {
    // What a forger holding one issuer's key could make: its leaf names its own identifier only.
    const identity = (await t.app.identities.identity(issuer.did))!
    const signer = await t.app.identities.jwsSigner(identity, 'P-256')
    const otherIss = (await t.app.identities.jwsSigner((await t.app.identities.identity(other.did))!, 'P-256'))
      .httpsIssuer!
    assert.equal(new URL(otherIss).host, new URL(signer.httpsIssuer!).host, 'both issuers share the host')
    const sign = (iss: string) =>
      new jose.CompactSign(
        new TextEncoder().encode(JSON.stringify({ iss, vct: 'https://example.org/membership', iat: 1_700_000_000 })),
      )
        .setProtectedHeader({ alg: 'ES256', typ: 'dc+sd-jwt', x5c: signer.x5c! })
        .sign(signer.privateKey)
    const own = await agent.sdJwtVc.verify({ compactSdJwtVc: `${await sign(signer.httpsIssuer!)}~` })
    assert.equal(own.isValid, true, own.isValid ? '' : own.error.message)
    const forged = await agent.sdJwtVc.verify({ compactSdJwtVc: `${await sign(otherIss)}~` })
    assert.equal(forged.isValid, false)
    assert.match(forged.isValid ? '' : forged.error.message, /SAN/)
  })
})
