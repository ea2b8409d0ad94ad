/**
 * One standard wallet, two services (issue 24): the wallet, written only with @openid4vc/*,
 * dcql and @sd-jwt (test/helpers/oid4vc-wallet), receives an SD-JWT VC from a second instance
 * acting as a foreign issuer, then presents it to the first instance's verifier, which resolves
 * the foreign issuer's keys and status list over HTTPS the standard way (JWT VC Issuer Metadata,
 * Token Status List) and gives its verdict as the HTTP status. Revoked at the foreign issuer, the
 * same credential is then refused.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import type { HttpsFront } from '../helpers/https-front.js'
import { closeTwoInstances, openTwoInstances } from '../helpers/https-issuer.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { IssuanceWallet } from '../helpers/oid4vc-wallet/issuance-wallet.js'
import { PresentationWallet } from '../helpers/oid4vc-wallet/presentation-wallet.js'
import type { TestApp } from '../helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Resident',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'family_name', data_type: 'string', required: true },
  ],
  anonymous_credentials: false,
}

describe('a standard wallet between two service instances', () => {
  let homeFront: HttpsFront
  let foreignFront: HttpsFront
  let home: TestApp
  let foreign: TestApp
  const issuer = new IssuerActor()
  const verifier = new DidClient()
  let verifierToken: string
  let schemaId: string

  before(async () => {
    // The verifier's instance reads the foreign issuer's metadata and status list on loopback.
    ;({ homeFront, foreignFront, home, foreign } = await openTwoInstances())
    await issuer.setUp(foreign.app, 'Foreign town hall')
    schemaId = await issuer.schema(foreign.app, SCHEMA)
    verifierToken = await verifier.login(home.app)
  })
  after(() => closeTwoInstances({ homeFront, foreignFront, home, foreign }))

  const request = async () => {
    const res = await callAs(home.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'ResidentCheck',
      purpose: 'Check residence',
      // An SD-JWT VC type of another issuer is named by its vct (docs/openid4vp.md "DCQL mapping").
      required_credentials: [
        {
          credential_type: 'Resident',
          schema_id: `${foreignFront.origin}/vct/${encodeURIComponent(schemaId)}`,
          required_attributes: ['given_name'],
        },
      ],
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json() as Json
  }

  it('receives from the foreign issuer (tx_code, DPoP), presents to the home verifier (accepted), and is refused once revoked there', async () => {
    const offered = await callAs(foreign.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, {
      credential_type: 'Resident',
      schema_id: schemaId,
      format: 'dc+sd-jwt',
      tx_code: true,
      attributes: { given_name: 'Erika', family_name: 'Mustermann' },
    })
    assert.equal(offered.statusCode, 201, offered.body)
    const wallet = await IssuanceWallet.create(['ES256'])
    const { answer } = await wallet.receive(offered.json().credential_offer_uri, {
      txCode: offered.json().tx_code,
      dpop: true,
    })
    const credential = (answer.credentialResponse.credentials as Array<{ credential: string }>)[0]!.credential
    assert.ok(
      new URL(JSON.parse(Buffer.from(credential.split('.')[1]!, 'base64url').toString()).iss).origin ===
        foreignFront.origin,
      'issued by the foreign instance',
    )

    const first = await request()
    const accepted = await new PresentationWallet(wallet.keys[0]!, [credential]).answer(first.authorization_request_uri)
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body))
    const recorded = (
      await callAs(home.app, 'GET', `/api/verifier/requests/${first.request.id}`, verifierToken)
    ).json() as Json
    assert.equal(recorded.request.status, 'verified')

    // The foreign issuer revokes it; the home verifier reads the foreign status list again and refuses.
    const issued = (await callAs(foreign.app, 'GET', `/api/issuer/${issuer.did}/credentials`, issuer.token)).json()
      .data as Json[]
    const revoked = await callAs(
      foreign.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${issued[0]!.id}/revoke`,
      issuer.token,
      { reason: 'moved away' },
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    const second = await request()
    const refused = await new PresentationWallet(wallet.keys[0]!, [credential]).answer(second.authorization_request_uri)
    assert.equal(refused.status, 400, JSON.stringify(refused.body))
    assert.match(String(refused.body.error_description), /revoked/)
  })
})
