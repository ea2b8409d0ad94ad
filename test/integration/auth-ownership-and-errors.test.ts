import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bearer, DidClient } from '../helpers/did-client.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

/**
 * The auth hook and the error handler are shared by every module; these probe routes stand in
 * for the module routes with a `:did` segment that later issues add (issuer, wallet, verifier).
 */
describe('auth hook: DID ownership, and the error handler', () => {
  let t: TestApp
  const alice = new DidClient()
  const bob = new DidClient()
  let aliceToken: string

  before(async () => {
    t = await createTestApp({
      extraRoutes: (app) => {
        app.get('/api/probe/:did/things', async (request) => ({
          success: true,
          did: (request.params as { did: string }).did,
        }))
        app.get('/api/probe/boom', async () => {
          throw new Error('database password is hunter2')
        })
      },
    })
    aliceToken = await alice.login(t.app)
  })
  after(() => t.close())

  it('lets the token owner act on its own :did', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/probe/${alice.did}/things`,
      headers: bearer(aliceToken),
    })
    assert.equal(res.statusCode, 200)
  })

  it('accepts a percent-encoded spelling of the same DID in the path', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/probe/${encodeURIComponent(alice.did)}/things`,
      headers: bearer(aliceToken),
    })
    assert.equal(res.statusCode, 200)
  })

  it('answers 403 when the path DID is someone else', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/probe/${bob.did}/things`, headers: bearer(aliceToken) })
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().success, false)
    assert.ok(res.json().message)
  })

  it('answers 403 when X-User-DID differs from the token, even with the right path', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/probe/${alice.did}/things`,
      headers: { ...bearer(aliceToken), 'x-user-did': bob.did },
    })
    assert.equal(res.statusCode, 403)
  })

  it('answers 401 (not 403) without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/probe/${bob.did}/things` })
    assert.equal(res.statusCode, 401)
  })

  it('answers unknown routes with a JSON 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nothing/here' })
    assert.equal(res.statusCode, 404)
    assert.equal(res.json().success, false)
    assert.equal(res.json().code, 'NOT_FOUND')
    assert.ok(res.json().message)
  })

  it('answers an unexpected error with a generic 500 that leaks nothing', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/probe/boom', headers: bearer(aliceToken) })
    assert.equal(res.statusCode, 500)
    assert.equal(res.json().message, 'Internal server error')
    assert.ok(!res.body.includes('hunter2'))
    assert.ok(!res.body.includes('stack'))
    assert.equal(res.json().request_id, res.headers['x-request-id'])
  })
})
