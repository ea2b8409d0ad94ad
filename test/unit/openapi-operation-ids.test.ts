import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { finishOpenApiDocument, operationIdFor } from '../../src/plugins/openapi-document.js'

describe('OpenAPI operationIds from method and path', () => {
  it('takes the method and the path words, without /api, a parameter only where it ends the path', () => {
    assert.equal(operationIdFor('post', '/api/issuer/{did}/issue'), 'postIssuerIssue')
    assert.equal(operationIdFor('get', '/api/issuer/{did}/schemas/{schema_id}'), 'getIssuerSchemasBySchemaId')
    assert.equal(operationIdFor('delete', '/api/issuer/{did}/schemas/{schema_id}'), 'deleteIssuerSchemasBySchemaId')
    assert.equal(
      operationIdFor('get', '/api/blockchain/credential/check/{did}/{credential_hash}'),
      'getBlockchainCredentialCheckByDidAndCredentialHash',
    )
    assert.equal(
      operationIdFor('get', '/.well-known/openid-credential-issuer/issuers/{web_id}'),
      'getWellKnownOpenidCredentialIssuerIssuersByWebId',
    )
    assert.equal(operationIdFor('get', '/issuers/{id}/did.json'), 'getIssuersDidJson')
    assert.equal(operationIdFor('get', '/api'), 'get')
    // Only a whole first segment "api" is the prefix.
    assert.equal(operationIdFor('get', '/apiary/{hive}'), 'getApiaryByHive')
  })

  it('keeps an explicit operationId and fills in the others', () => {
    const doc = { paths: { '/api/a/{id}': { get: { operationId: 'readA' }, put: {} }, '/api/b': { post: {} } } }
    finishOpenApiDocument(doc)
    assert.deepEqual(doc.paths['/api/a/{id}'], { get: { operationId: 'readA' }, put: { operationId: 'putAById' } })
    assert.deepEqual(doc.paths['/api/b'], { post: { operationId: 'postB' } })
  })

  it('refuses two operations with one id, naming both', () => {
    const derived = { paths: { '/api/one-two': { get: {} }, '/api/oneTwo': { get: {} } } }
    assert.throws(
      () => finishOpenApiDocument(derived),
      /GET \/api\/oneTwo and GET \/api\/one-two would share the operationId getOneTwo/,
    )
    const explicit = { paths: { '/api/x': { get: { operationId: 'postY' } }, '/api/y': { post: {} } } }
    assert.throws(() => finishOpenApiDocument(explicit), /share the operationId postY/)
  })
})
