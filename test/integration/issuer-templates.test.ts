import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

describe('issuer templates', () => {
  let t: TestApp
  const issuer = new DidClient()
  const rival = new DidClient()
  let token: string
  let rivalToken: string
  let schemaId: string
  let rivalSchemaId: string
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, tok: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: bearer(tok),
      ...(payload === undefined ? {} : { payload: payload as object }),
    })
  const schema = {
    name: 'Membership',
    version: '1',
    attributes: [
      { name: 'level', data_type: 'string', required: true },
      { name: 'since', data_type: 'date' },
    ],
  }

  before(async () => {
    t = await createTestApp()
    token = await issuer.login(t.app)
    rivalToken = await rival.login(t.app)
    await call('POST', '/api/issuer', token, { name: 'Club' })
    await call('POST', '/api/issuer', rivalToken, { name: 'Rival club' })
    schemaId = (await call('POST', `/api/issuer/${issuer.did}/schemas`, token, schema)).json().schema.id
    rivalSchemaId = (await call('POST', `/api/issuer/${rival.did}/schemas`, rivalToken, schema)).json().schema.id
  })
  after(() => t.close())
  const base = () => `/api/issuer/${issuer.did}/templates`

  it('creates, reads, lists, updates and deletes a template', async () => {
    const created = await call('POST', base(), token, {
      name: 'Gold',
      credential_type: 'MembershipCredential',
      schema_id: schemaId,
      fixed_attributes: { level: 'gold' },
      validity_days: 365,
    })
    assert.equal(created.statusCode, 201, created.body)
    const template = created.json().template
    assert.deepEqual(template.fixed_attributes, { level: 'gold' })
    assert.equal(template.validity_days, 365)
    assert.equal((await call('GET', `${base()}/${template.id}`, token)).json().template.name, 'Gold')
    assert.equal((await call('GET', base(), token)).json().count, 1)
    const updated = await call('PUT', `${base()}/${template.id}`, token, {
      fixed_attributes: { level: 'silver', since: '2020-01-01' },
    })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.deepEqual(updated.json().template.fixed_attributes, { level: 'silver', since: '2020-01-01' })
    assert.equal((await call('DELETE', `${base()}/${template.id}`, token)).statusCode, 200)
    assert.equal((await call('GET', `${base()}/${template.id}`, token)).statusCode, 404)
  })

  it('checks fixed attributes against the schema, and the schema belongs to the issuer', async () => {
    const wrongType = await call('POST', base(), token, {
      name: 'x',
      credential_type: 'T',
      schema_id: schemaId,
      fixed_attributes: { since: 'yesterday' },
    })
    assert.equal(wrongType.statusCode, 400)
    assert.match(wrongType.json().message, /since/)
    const unknown = await call('POST', base(), token, {
      name: 'x',
      credential_type: 'T',
      schema_id: schemaId,
      fixed_attributes: { colour: 'red' },
    })
    assert.equal(unknown.statusCode, 400)
    assert.match(unknown.json().message, /colour/)
    assert.equal(
      (await call('POST', base(), token, { name: 'x', credential_type: 'T', schema_id: rivalSchemaId })).statusCode,
      404,
    )
    assert.equal((await call('POST', base(), token, { name: 'x', credential_type: 'T' })).statusCode, 400)
    assert.equal(
      (await call('POST', base(), token, { name: 'x', credential_type: 'T', schema_id: schemaId, validity_days: 0 }))
        .statusCode,
      400,
    )
  })

  it('keeps other issuers out (404 under their DID, 403 under ours) and refuses deleting a schema in use (409)', async () => {
    const template = (
      await call('POST', base(), token, { name: 'Basic', credential_type: 'T', schema_id: schemaId })
    ).json().template
    assert.equal((await call('GET', `/api/issuer/${rival.did}/templates/${template.id}`, rivalToken)).statusCode, 404)
    assert.equal(
      (await call('DELETE', `/api/issuer/${rival.did}/templates/${template.id}`, rivalToken)).statusCode,
      404,
    )
    assert.equal((await call('GET', `${base()}/${template.id}`, rivalToken)).statusCode, 403)
    const refused = await call('DELETE', `/api/issuer/${issuer.did}/schemas/${schemaId}`, token)
    assert.equal(refused.statusCode, 409)
    assert.match(refused.json().message, /in use/)
    assert.equal((await call('GET', `/api/issuer/${issuer.did}/schemas/${schemaId}`, token)).statusCode, 200)
  })
})
