/**
 * The SDK's retries of creating POSTs against the real service: an answer lost after the service
 * committed, a 503 from a proxy, and an explicit key the caller resends itself each end with one
 * credential, counted by the issuer's listing. Routes without Idempotency-Key are never resent.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  createServiceClient,
  generateHolderKey,
  takesIdempotencyKey,
  type HolderKey,
  type ServiceClient,
} from '@credential-service/sdk'
import { startService, type LiveService } from './support/live-service.js'

const SCHEMA = {
  name: 'Badge',
  version: '1.0',
  attributes: [{ name: 'given_name', data_type: 'string' as const, required: true }],
}

/** What a fetch double saw: each request's method, path and Idempotency-Key. */
interface Seen {
  method: string
  path: string
  key: string | null
}

describe('SDK retries with an Idempotency-Key', () => {
  let svc: LiveService
  let issuerKey: HolderKey
  let holderDid: string
  let session: ServiceClient['session']
  let schemaId: string

  before(async () => {
    svc = await startService()
    issuerKey = await generateHolderKey()
    const setup = createServiceClient({ baseUrl: svc.baseUrl })
    session = await setup.login(issuerKey)
    await setup.api.POST('/api/issuer', { body: { name: 'Retry University' } })
    schemaId = (
      await setup.api.POST('/api/issuer/{did}/schemas', { params: { path: { did: issuerKey.did } }, body: SCHEMA })
    ).data!.schema.id
    holderDid = (await generateHolderKey()).did
  })
  after(() => svc?.close())

  /** A client whose fetch goes to the real service through `fault`, recording what it sends. */
  const clientWith = (
    fault: (request: Request, real: () => Promise<Response>, attempt: number) => Promise<Response>,
    retry?: { retries?: number },
  ) => {
    const seen: Seen[] = []
    const client = createServiceClient({
      baseUrl: svc.baseUrl,
      session,
      retry: { delayMs: 10, ...retry },
      fetch: (request) => {
        seen.push({
          method: request.method,
          path: new URL(request.url).pathname,
          key: request.headers.get('idempotency-key'),
        })
        return fault(request, () => fetch(request), seen.length)
      },
    })
    return { client, seen }
  }
  const issue = (client: ServiceClient, name: string, key?: string) =>
    client.api.POST('/api/issuer/{did}/issue', {
      params: { path: { did: issuerKey.did }, ...(key ? { header: { 'idempotency-key': key } } : {}) },
      body: { credential_type: 'Badge', schema_id: schemaId, subject_did: holderDid, attributes: { given_name: name } },
    })
  /** The issuer's credentials, by its listing. */
  const issuedIds = async (): Promise<string[]> => {
    const { data } = await createServiceClient({ baseUrl: svc.baseUrl, session }).api.GET(
      '/api/issuer/{did}/credentials',
      { params: { path: { did: issuerKey.did }, query: { limit: 100 } } },
    )
    return data!.data.map((c) => c.id)
  }

  it('an answer lost after the service committed: the retry answers the same credential, and one exists', async () => {
    const before = await issuedIds()
    // The first attempt reaches the service and commits; its answer never arrives.
    const { client, seen } = clientWith(async (_request, real, attempt) => {
      const response = await real()
      if (attempt === 1) throw new TypeError('fetch failed: connection reset')
      return response
    })
    const { data } = await issue(client, 'Lost')
    const after = await issuedIds()
    assert.equal(after.length, before.length + 1)
    assert.ok(after.includes(data!.credential.id))
    assert.equal(seen.length, 2)
    assert.match(seen[0]!.key ?? '', /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/)
    assert.equal(seen[1]!.key, seen[0]!.key)
  })

  it('a 503 from in front of the service is retried with the same key', async () => {
    const before = await issuedIds()
    const { client, seen } = clientWith(async (_request, real, attempt) =>
      attempt === 1
        ? new Response('{"message":"upstream unavailable"}', {
            status: 503,
            headers: { 'content-type': 'application/json' },
          })
        : real(),
    )
    const { data } = await issue(client, 'Unavailable')
    assert.equal((await issuedIds()).length, before.length + 1)
    assert.ok(data!.credential.id)
    assert.equal(seen[1]!.key, seen[0]!.key)
  })

  it('with retries off, a lost answer is an error; resending with the same explicit key answers the one credential', async () => {
    const before = await issuedIds()
    const key = `"${crypto.randomUUID()}"`
    const { client, seen } = clientWith(
      async (_request, real, attempt) => {
        const response = await real()
        if (attempt === 1) throw new TypeError('fetch failed')
        return response
      },
      { retries: 0 },
    )
    await assert.rejects(issue(client, 'Explicit', key), TypeError)
    const { data } = await issue(client, 'Explicit', key)
    const after = await issuedIds()
    assert.equal(after.length, before.length + 1)
    assert.ok(after.includes(data!.credential.id))
    assert.deepEqual(
      seen.map((s) => s.key),
      [key, key],
    )
  })

  it('a route without Idempotency-Key is sent once, with no key', async () => {
    const { client, seen } = clientWith(async () => {
      throw new TypeError('fetch failed')
    })
    await assert.rejects(client.api.POST('/api/auth/challenge', { body: { did: issuerKey.did } }), TypeError)
    assert.deepEqual(seen, [{ method: 'POST', path: '/api/auth/challenge', key: null }])
  })

  it('knows the keyed routes by their path templates, under a base path too', () => {
    assert.equal(takesIdempotencyKey('/api/issuer/did%3Akey%3Az6MkExample/issue'), true)
    assert.equal(takesIdempotencyKey('/gateway/api/issuer/did%3Akey%3Az6MkExample/issue'), true)
    assert.equal(takesIdempotencyKey('/api/issuer/did%3Akey%3Az6MkExample/credentials/c1/revoke'), false)
    assert.equal(takesIdempotencyKey('/api/auth/challenge'), false)
  })
})
