/**
 * A credential from another issuer whose clock runs ahead (its nbf and iat a little in this
 * service's future) is imported within CLOCK_SKEW_SECONDS and refused beyond it: the wallet's
 * import reads the setting (RFC 7519 §4.1.5-6).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { foreignCredential } from '../helpers/wallet-fixtures.js'

describe('importing a credential from an issuer whose clock runs ahead', () => {
  let lenient: TestApp
  let strict: TestApp
  const issuer = new DidClient()
  const holder = new DidClient()

  before(async () => {
    lenient = await createTestApp()
    strict = await createTestApp({ env: { CLOCK_SKEW_SECONDS: '10' } })
  })
  after(async () => {
    await lenient.close()
    await strict.close()
  })

  const importInto = async (t: TestApp, aheadSeconds: number) => {
    const token = await holder.login(t.app)
    const jwt = foreignCredential(issuer, { subject: holder.did, nbf: Math.floor(Date.now() / 1000) + aheadSeconds })
    return t.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/credentials/import`,
      headers: bearer(token),
      payload: { credential_jwt: jwt },
    })
  }

  it('30 s ahead: imported with the default 60 s, refused as not valid yet with CLOCK_SKEW_SECONDS=10', async () => {
    const imported = await importInto(lenient, 30)
    assert.equal(imported.statusCode, 201, imported.body)
    const refused = await importInto(strict, 30)
    assert.equal(refused.statusCode, 422, refused.body)
    assert.equal(refused.json().details.reason, 'not_yet_valid')
  })

  it('2 s ahead is imported under either setting; 10 minutes ahead under neither', async () => {
    assert.equal((await importInto(strict, 2)).statusCode, 201)
    for (const t of [lenient, strict]) assert.equal((await importInto(t, 600)).json().details?.reason, 'not_yet_valid')
  })
})
