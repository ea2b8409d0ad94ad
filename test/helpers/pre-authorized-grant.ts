/** A pre-authorized offer of the service redeemed for a bearer token at its token endpoint (OID4VCI 1.0 §6.1), through app.inject. */
import assert from 'node:assert/strict'
import { makeOffer } from './https-issuer.js'
import type { IssuerActor } from './issuer-setup.js'
import type { TestApp } from './test-app.js'

const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'

export interface Grant {
  issuerUrl: string
  /** The credential issuer's path on the app (its URL without `base`). */
  path: string
  configurationId: string
  accessToken: string
}

export async function preAuthorizedGrant(
  t: TestApp,
  issuer: IssuerActor,
  o: { base: string; schemaId: string; format: string },
): Promise<Grant> {
  const created = await makeOffer(t, issuer, {
    credential_type: 'Pass',
    schema_id: o.schemaId,
    format: o.format,
    attributes: { holder: 'Ada' },
  })
  const issuerUrl = created.credential_offer.credential_issuer as string
  const path = issuerUrl.slice(o.base.length)
  const token = await t.app.inject({
    method: 'POST',
    url: `${path}/oid4vci/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: PRE_AUTHORIZED,
      'pre-authorized_code': created.credential_offer.grants[PRE_AUTHORIZED]['pre-authorized_code'],
    }).toString(),
  })
  assert.equal(token.statusCode, 200, token.body)
  return {
    issuerUrl,
    path,
    configurationId: created.credential_configuration_id as string,
    accessToken: token.json().access_token as string,
  }
}
