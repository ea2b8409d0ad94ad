/**
 * The verifier's view of a request (`GET /api/verifier/requests/:id`) reads the request and the
 * holders' answers as of one moment. A holder's decline of a request addressed to it commits both
 * its answer and the request's `rejected` status; a view that read them at two moments could show
 * the answer beside a request still `pending` (a waiting client then reports a decline of an open
 * request). Here the decline is started while the view is between its two reads, held there by a
 * pause on the request's row read (a Kysely plugin on the app's database handle).
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import { type SelectQueryNode, TableNode } from 'kysely'
import { DidClient } from '../helpers/did-client.js'
import { callAs } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

/** Whether a query is a SELECT from presentation_requests (the view's first read). */
function readsRequests(node: { kind: string }): boolean {
  if (node.kind !== 'SelectQueryNode') return false
  const from = (node as SelectQueryNode).from?.froms[0]
  return from !== undefined && TableNode.is(from) && from.table.identifier.name === 'presentation_requests'
}

describe(`the verifier's view of a request is one snapshot (${TEST_ENGINE})`, () => {
  let t: TestApp
  /** Set to run once when the next read of presentation_requests has its rows. */
  let onRequestRead: (() => Promise<void>) | null = null
  /** The queries (by Kysely's query id) that read presentation_requests. */
  const requestReads = new WeakSet<object>()

  before(async () => {
    t = await createTestApp({
      wrapDatabase: (database) => ({
        ...database,
        db: database.db.withPlugin({
          transformQuery: (args) => {
            if (readsRequests(args.node)) requestReads.add(args.queryId)
            return args.node
          },
          transformResult: async (args) => {
            const hook = onRequestRead
            if (hook && requestReads.has(args.queryId)) {
              onRequestRead = null
              await hook()
            }
            return args.result
          },
        }),
      }),
    })
  })
  after(() => t.close())

  const party = async () => {
    const client = new DidClient()
    return { did: client.did, token: await client.login(t.app) }
  }

  it('a decline committed between the two reads shows in both the status and the answers, or in neither', async () => {
    const holder = await party()
    const verifier = await party()
    const created = await callAs(t.app, 'POST', '/api/verifier/requests', verifier.token, {
      verifier_did: verifier.did,
      holder_did: holder.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [{ credential_type: 'UniversityDegree' }],
      purpose: 'Hiring',
    })
    assert.equal(created.statusCode, 201, created.body)
    const requestId = created.json().request.id
    const inbox = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holder.token, {
      request_id: requestId,
    })
    assert.equal(inbox.statusCode, 201, inbox.body)

    let decline: Promise<{ statusCode: number; body: string }> | undefined
    onRequestRead = async () => {
      decline = callAs(t.app, 'POST', `/api/wallet/presentation-requests/${requestId}/reject`, holder.token, {
        reason: 'Not now',
      })
      // Until the decline has committed, when nothing holds it back (PostgreSQL; the two reads
      // unguarded). PGlite runs one transaction at a time, so there a guarded view holds the
      // decline back: the wait then ends after its bound and the view reads before the decline.
      await Promise.race([decline, sleep(2_000)])
    }
    const view = await callAs(t.app, 'GET', `/api/verifier/requests/${requestId}`, verifier.token)
    assert.equal(view.statusCode, 200, view.body)
    assert.ok(decline, 'the decline was started during the view')
    const declined = await decline
    assert.equal(declined.statusCode, 200, declined.body)

    const seen = view.json()
    const answered = seen.answers.some((a: { status: string }) => a.status === 'rejected')
    assert.equal(
      seen.request.status === 'rejected',
      answered,
      `request ${seen.request.status}, answers ${JSON.stringify(seen.answers)}`,
    )

    const later = (await callAs(t.app, 'GET', `/api/verifier/requests/${requestId}`, verifier.token)).json()
    assert.equal(later.request.status, 'rejected')
    assert.deepEqual(
      later.answers.map((a: { status: string; reason: string | null }) => [a.status, a.reason]),
      [['rejected', 'Not now']],
    )
  })
})
