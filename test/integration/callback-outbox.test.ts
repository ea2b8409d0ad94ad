/**
 * The callback outbox end to end. Real parts: the database (PGlite or PostgreSQL, per the
 * runner), the key store, the guarded POST over real sockets to a node:http receiver on
 * 127.0.0.1 (hence allowPrivate true, except where refusal is the point), the app's JWKS route
 * fetched over HTTP, jose verifying independently of the signer. Time: a ManualClock for every
 * stored and compared timestamp; back-off is passed by moving it, never by sleeping.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRemoteJWKSet, flattenedVerify } from 'jose'
import { sql } from 'kysely'
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js'
import { createGuardedPost, type HttpPost } from '../../src/adapters/http-out/guarded-post.js'
import { DbKeyStore } from '../../src/modules/keys/key-store.js'
import {
  createCallbackOutbox,
  type CallbackOutbox,
  type CallbackOutboxOptions,
} from '../../src/modules/callbacks/callback-outbox.js'
import * as repo from '../../src/modules/callbacks/callback-outbox.repository.js'
import type { CallbackPort } from '../../src/modules/presentation/presentation-ports.js'
import { ADMIN_KEY, createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js'

interface Delivery {
  path: string
  headers: http.IncomingHttpHeaders
  body: Buffer
}

type Behaviour = (n: number) => number | 'hang' | { delayMs: number; status: number }

/** A webhook receiver: records every delivery per path; each path answers as told. */
class Receiver {
  readonly deliveries: Delivery[] = []
  private readonly behaviours = new Map<string, Behaviour>()
  private server: http.Server | undefined
  port = 0

  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0]!
        this.deliveries.push({ path, headers: req.headers, body: Buffer.concat(chunks) })
        const answer = (this.behaviours.get(path) ?? (() => 200))(this.on(path).length)
        if (answer === 'hang') return
        if (typeof answer === 'number') res.writeHead(answer).end('ok')
        else setTimeout(() => res.writeHead(answer.status).end('ok'), answer.delayMs)
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve))
    this.port = (this.server.address() as AddressInfo).port
    return this
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`
  }

  answer(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour)
  }

  on(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path)
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise((resolve) => this.server?.close(resolve))
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await sleep(10)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A second connection pool on the same database, as a second instance would have (PostgreSQL).
 * PGlite is one in-process connection: there the second "instance" shares the handle.
 */
async function secondHandle(first: DatabaseHandle): Promise<DatabaseHandle | undefined> {
  if (TEST_ENGINE !== 'postgres') return undefined
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(first.db)
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
  url.pathname = `/${rows[0]!.name}`
  return openDatabase({ databaseUrl: url.toString(), poolSize: 5 })
}

async function freePort(): Promise<number> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('callback outbox', () => {
  let database: DatabaseHandle
  let keys: DbKeyStore
  const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'))
  let receiver: Receiver

  const row = (eventId: string) =>
    database.db.selectFrom('callback_outbox').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow()
  const enqueueCommitted = (
    outbox: Pick<CallbackOutbox, 'enqueue'>,
    url: string,
    data: Record<string, unknown> = { presentation_id: 'p-1' },
  ) => database.db.transaction().execute((trx) => outbox.enqueue(trx, { url, type: 'presentation.verified', data }))

  before(async () => {
    database = await createTestDatabase()
    keys = new DbKeyStore(database.db, new Uint8Array(randomBytes(32)), () => clock.now())
    receiver = await new Receiver().start()
  })
  after(async () => {
    await receiver.stop()
    await database.close()
  })

  describe('registered in the app', () => {
    let t: TestApp
    let base: string
    let closed = false
    let firstDelivery: Delivery
    const appRow = (url: string) =>
      t.deps.database.db.selectFrom('callback_outbox').select('id').where('url', '=', url).execute()
    const enqueueInApp = (url: string, data: Record<string, unknown> = { presentation_id: 'p-1' }) =>
      t.deps.database.db
        .transaction()
        .execute((trx) => t.app.callbacks.enqueue(trx, { url, type: 'presentation.verified', data }))
    before(async () => {
      // The app's own registration (app.ts), configured as an operator would: private
      // receivers allowed because the receiver is on 127.0.0.1, a short poll.
      t = await createTestApp({ clock, env: { CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_POLL_MS: '20' } })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    })
    after(async () => {
      if (!closed) await t.close()
    })

    it('delivers a committed event once, signed so that it verifies against the JWKS fetched over HTTP', async () => {
      // What the presentation services are written against (checked by the compiler).
      const port: CallbackPort = t.app.callbacks
      assert.equal(typeof port.nudge, 'function')
      const data = { presentation_id: 'p-1', request_id: 'r-1', is_valid: true, errors: [] }
      const eventId = await enqueueInApp(receiver.url('/app'), data)
      t.app.callbacks.nudge()
      await waitFor('delivery', () => receiver.on('/app').length === 1)
      await waitFor('delivered state', async () => (await t.app.callbacks.status(eventId))?.status === 'delivered')
      await sleep(100) // several polls: nothing is sent twice
      assert.equal(receiver.on('/app').length, 1)

      const delivery = receiver.on('/app')[0]!
      firstDelivery = delivery
      assert.equal(delivery.headers['content-type'], 'application/json')
      assert.equal(delivery.headers['x-event-id'], eventId)
      assert.equal(delivery.headers['x-event-type'], 'presentation.verified')
      assert.deepEqual(JSON.parse(delivery.body.toString()), {
        id: eventId,
        type: 'presentation.verified',
        created_at: clock.now().toISOString(),
        data,
      })

      const jwks = createRemoteJWKSet(new URL(`${base}/api/callbacks/jwks`))
      const [protectedHeader, detached, signature] = String(delivery.headers['x-signature']).split('.')
      assert.equal(detached, '')
      const verified = await flattenedVerify(
        { protected: protectedHeader!, payload: delivery.body.toString('base64url'), signature: signature! },
        jwks,
        { algorithms: ['EdDSA'] },
      )
      assert.deepEqual(Buffer.from(verified.payload), delivery.body)
      assert.equal(verified.protectedHeader?.typ, 'callback+jws')
      assert.equal(verified.protectedHeader?.iat, Math.floor(clock.now().getTime() / 1000))
      // A body changed in transit fails.
      await assert.rejects(
        flattenedVerify(
          {
            protected: protectedHeader!,
            payload: Buffer.from(delivery.body.toString().replace('true', 'false')).toString('base64url'),
            signature: signature!,
          },
          jwks,
        ),
      )

      const state = await t.app.callbacks.status(eventId)
      assert.equal(state?.attempts, 1)
      assert.equal(state?.last_status, 200)
    })

    it('serves the JWKS publicly, without a token', async () => {
      const res = await fetch(`${base}/api/callbacks/jwks`)
      assert.equal(res.status, 200)
      assert.match(res.headers.get('content-type') ?? '', /^application\/jwk-set\+json/)
      const { keys: published } = (await res.json()) as { keys: Array<Record<string, string>> }
      assert.equal(published.length, 1)
      assert.deepEqual(Object.keys(published[0]!).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x'])
      assert.equal(published[0]!.kty, 'OKP')
      assert.equal(published[0]!.crv, 'Ed25519')
      assert.equal((await fetch(`${base}/api/callbacks/jwks`, { method: 'HEAD' })).status, 200)
    })

    it('never sends an event whose transaction rolled back', async () => {
      await assert.rejects(
        t.deps.database.db.transaction().execute(async (trx) => {
          await t.app.callbacks.enqueue(trx, {
            url: receiver.url('/rolled-back'),
            type: 'presentation.submitted',
            data: {},
          })
          throw new Error('the state change failed')
        }),
        /state change failed/,
      )
      t.app.callbacks.nudge()
      await sleep(150)
      assert.equal(receiver.on('/rolled-back').length, 0)
      assert.equal((await appRow(receiver.url('/rolled-back'))).length, 0)
    })

    it('signs with the new key after a rotation; what the retired key signed still verifies', async () => {
      const rotated = await t.app.inject({
        method: 'POST',
        url: '/api/admin/keys/rotate',
        headers: { 'x-admin-key': ADMIN_KEY },
        payload: { purpose: 'callback-signing' },
      })
      assert.equal(rotated.statusCode, 200, rotated.body)
      const { active, retired } = rotated.json() as { active: { kid: string }; retired: { kid: string } }
      const eventId = await enqueueInApp(receiver.url('/rotated'))
      t.app.callbacks.nudge()
      await waitFor('delivery', () => receiver.on('/rotated').length === 1)
      const delivery = receiver.on('/rotated')[0]!
      assert.equal(delivery.headers['x-event-id'], eventId)
      const jwks = createRemoteJWKSet(new URL(`${base}/api/callbacks/jwks`))
      for (const [d, kid] of [
        [delivery, active.kid],
        [firstDelivery, retired.kid],
      ] as const) {
        const [p, , s] = String(d.headers['x-signature']).split('.')
        const { protectedHeader } = await flattenedVerify(
          { protected: p!, payload: d.body.toString('base64url'), signature: s! },
          jwks,
        )
        assert.equal(protectedHeader?.kid, kid)
      }
    })

    it('stops the dispatcher when the app closes', async () => {
      const { dispatcher } = t.app.callbacks
      assert.equal(dispatcher.state.running, true)
      await t.close()
      closed = true
      assert.deepEqual(dispatcher.state, { running: false, polling: false, inFlight: 0 })
    })
  })

  describe('dispatcher', () => {
    const started: CallbackOutbox[] = []
    const outbox = (options: Partial<CallbackOutboxOptions> = {}): CallbackOutbox => {
      const created = createCallbackOutbox({
        db: database.db,
        keys,
        clock,
        allowPrivate: true,
        timeoutMs: 1000,
        pollMs: 20,
        ...options,
      })
      created.start()
      started.push(created)
      return created
    }
    afterEach(async () => {
      await Promise.all(started.splice(0).map((o) => o.stop()))
    })

    it('retries a 500 with back-off and delivers on the 200 that follows', async () => {
      receiver.answer('/flaky', (n) => (n === 1 ? 500 : 200))
      const callbacks = outbox()
      const eventId = await enqueueCommitted(callbacks, receiver.url('/flaky'))
      callbacks.nudge()
      await waitFor('failed first attempt', async () => (await row(eventId)).last_status === 500)
      const failed = await row(eventId)
      assert.equal(failed.status, 'pending')
      assert.equal(failed.attempts, 1)
      assert.equal(failed.last_error, 'HTTP 500')
      assert.equal(failed.locked_until, null)
      const delay = new Date(failed.next_attempt_at).getTime() - clock.now().getTime()
      assert.ok(delay >= 1000 && delay <= 2000, `first retry after ${delay} ms`)

      await sleep(100) // not due yet: polls send nothing
      assert.equal(receiver.on('/flaky').length, 1)

      clock.advance(delay)
      callbacks.nudge()
      await waitFor('delivery on retry', async () => (await row(eventId)).status === 'delivered')
      const done = await row(eventId)
      assert.equal(done.attempts, 2)
      assert.equal(done.last_error, null)
      assert.equal(new Date(done.delivered_at!).getTime(), clock.now().getTime())
      const [first, second] = receiver.on('/flaky')
      assert.deepEqual(second!.body, first!.body, 'every attempt sends the same bytes')
      assert.equal(second!.headers['x-event-id'], eventId)
      assert.deepEqual([first!.headers['x-delivery-attempt'], second!.headers['x-delivery-attempt']], ['1', '2'])
    })

    it('delivers once a receiver that was down comes back', async () => {
      const down = new Receiver()
      const port = await freePort()
      const callbacks = outbox()
      const eventId = await enqueueCommitted(callbacks, `http://127.0.0.1:${port}/back`)
      callbacks.nudge()
      await waitFor(
        'failed attempt',
        async () => (await row(eventId)).attempts === 1 && (await row(eventId)).last_error !== null,
      )
      assert.match((await row(eventId)).last_error!, /unreachable \(ECONNREFUSED\)/)
      assert.equal((await row(eventId)).status, 'pending')

      await down.start(port)
      try {
        clock.advance(2000)
        callbacks.nudge()
        await waitFor('delivery', async () => (await row(eventId)).status === 'delivered')
        assert.equal(down.on('/back').length, 1)
        assert.equal((await row(eventId)).attempts, 2)
      } finally {
        await down.stop()
      }
    })

    it('marks an event dead after the last attempt and stops sending it', async () => {
      receiver.answer('/broken', () => 503)
      const callbacks = outbox({ maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 4000 })
      const eventId = await enqueueCommitted(callbacks, receiver.url('/broken'))
      for (let attempt = 1; attempt <= 3; attempt++) {
        callbacks.nudge()
        await waitFor(`attempt ${attempt} recorded`, async () => {
          const r = await row(eventId)
          return r.attempts === attempt && r.locked_until === null && r.last_status === 503
        })
        clock.advance(4000)
      }
      const dead = await row(eventId)
      assert.equal(dead.status, 'dead')
      assert.equal(dead.last_error, 'HTTP 503')
      assert.equal(dead.delivered_at, null)
      callbacks.nudge()
      await sleep(100)
      assert.equal(receiver.on('/broken').length, 3)
    })

    it('refuses a private address at once when private targets are off, and does not retry', async () => {
      const callbacks = outbox({ allowPrivate: false })
      const literal = await enqueueCommitted(callbacks, receiver.url('/private?token=SECRET'))
      const named = await enqueueCommitted(callbacks, receiver.url('/private', 'localhost'))
      callbacks.nudge()
      for (const eventId of [literal, named]) {
        await waitFor('refusal', async () => (await row(eventId)).status === 'dead')
        const r = await row(eventId)
        assert.equal(r.attempts, 1)
        assert.match(r.last_error!, /^permanent failure, not retried: .*loopback.*refused/)
        assert.ok(!r.last_error!.includes('SECRET'))
      }
      assert.equal(receiver.on('/private').length, 0)
    })

    it('shares the work between two dispatchers on one database: each event delivered exactly once', async () => {
      receiver.answer('/shared', () => ({ delayMs: 5, status: 200 }))
      const sentBy = { a: 0, b: 0 }
      const counting = (name: 'a' | 'b'): HttpPost => {
        const post = createGuardedPost({ allowPrivate: true, timeoutMs: 2000 })
        return (url, body, headers) => {
          sentBy[name]++
          return post(url, body, headers)
        }
      }
      const other = await secondHandle(database)
      try {
        const a = outbox({ post: counting('a'), maxInFlight: 4 })
        const b = outbox({ post: counting('b'), maxInFlight: 4, ...(other ? { db: other.db } : {}) })
        const ids = await database.db.transaction().execute(async (trx) => {
          const out: string[] = []
          for (let i = 0; i < 60; i++)
            out.push(
              await a.enqueue(trx, { url: receiver.url('/shared'), type: 'presentation.submitted', data: { i } }),
            )
          return out
        })
        a.nudge()
        b.nudge()
        await waitFor(
          'all delivered',
          async () => {
            const left = await database.db
              .selectFrom('callback_outbox')
              .select('id')
              .where('event_id', 'in', ids)
              .where('status', '<>', 'delivered')
              .execute()
            return left.length === 0
          },
          15_000,
        )
        const received = receiver.on('/shared').map((d) => String(d.headers['x-event-id']))
        assert.equal(received.length, 60)
        assert.deepEqual(new Set(received), new Set(ids))
        assert.equal(sentBy.a + sentBy.b, 60)
        assert.ok(sentBy.a > 0 && sentBy.b > 0, `both took part (a ${sentBy.a}, b ${sentBy.b})`)
        const attempts = await database.db
          .selectFrom('callback_outbox')
          .select('attempts')
          .where('event_id', 'in', ids)
          .execute()
        assert.ok(attempts.every((r) => r.attempts === 1))
        await Promise.all(started.splice(0).map((o) => o.stop()))
      } finally {
        await other?.close()
      }
    })

    it('never hands one row to two concurrent claims (FOR UPDATE SKIP LOCKED)', async () => {
      const other = await secondHandle(database)
      try {
        const ids = await database.db.transaction().execute(async (trx) => {
          const out: string[] = []
          for (let i = 0; i < 50; i++)
            out.push(
              await createCallbackOutbox({ db: database.db, keys, clock, allowPrivate: true, timeoutMs: 1000 }).enqueue(
                trx,
                { url: receiver.url('/claims'), type: 'presentation.submitted', data: { i } },
              ),
            )
          return out
        })
        const now = clock.now()
        const claim = (db: DatabaseHandle['db']) =>
          repo.claimDue(db, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 5 })
        const racing = await Promise.all(
          Array.from({ length: 20 }, (_, i) => claim(i % 2 && other ? other.db : database.db)),
        )
        const first = racing.flat().map((c) => c.event_id)
        assert.equal(new Set(first).size, first.length, 'no row claimed twice')
        // Whatever the race skipped is still there for the next claim, and nothing more.
        const rest = (
          await repo.claimDue(database.db, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 100 })
        ).map((c) => c.event_id)
        assert.deepEqual(new Set([...first, ...rest]), new Set(ids))
        assert.equal(first.length + rest.length, 50)
        await database.db
          .updateTable('callback_outbox')
          .set({ status: 'delivered', locked_until: null })
          .where('event_id', 'in', ids)
          .execute()
      } finally {
        await other?.close()
      }
    })

    it('re-delivers a claim whose lease expired (an instance that crashed mid-send)', async () => {
      const callbacks = outbox()
      await callbacks.stop() // the "crashed" instance below claims first
      const eventId = await enqueueCommitted(callbacks, receiver.url('/crash'))
      const now = clock.now()
      const claimed = await repo.claimDue(database.db, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 10 })
      assert.deepEqual(
        claimed.map((c) => c.event_id),
        [eventId],
      )

      const survivor = outbox()
      survivor.nudge()
      await sleep(100)
      assert.equal(receiver.on('/crash').length, 0, 'a live lease is respected')

      clock.advance(60_000)
      survivor.nudge()
      await waitFor('re-delivery', async () => (await row(eventId)).status === 'delivered')
      assert.equal(receiver.on('/crash').length, 1)
      assert.equal((await row(eventId)).attempts, 2)

      // The crashed instance's late bookkeeping is fenced off by the attempt count.
      await repo.markFailed(database.db, claimed[0]!, { error: 'HTTP 500', httpStatus: 500, retryAt: clock.now() })
      assert.equal((await row(eventId)).status, 'delivered')
    })

    it('stops cleanly: the send in flight finishes and is recorded, then nothing runs', async () => {
      receiver.answer('/slow', () => ({ delayMs: 200, status: 200 }))
      const callbacks = outbox()
      const eventId = await enqueueCommitted(callbacks, receiver.url('/slow'))
      callbacks.nudge()
      await waitFor('send in flight', () => receiver.on('/slow').length === 1)
      assert.equal(callbacks.dispatcher.state.inFlight, 1)
      await callbacks.stop()
      assert.deepEqual(callbacks.dispatcher.state, { running: false, polling: false, inFlight: 0 })
      assert.equal((await row(eventId)).status, 'delivered')

      const later = await enqueueCommitted(callbacks, receiver.url('/after-stop'))
      callbacks.nudge()
      await sleep(100)
      assert.equal(receiver.on('/after-stop').length, 0)
      assert.equal((await row(later)).attempts, 0)
      // Still there for the next start: nothing is lost.
      callbacks.start()
      await waitFor('delivery after restart', async () => (await row(later)).status === 'delivered')
      await callbacks.stop()
    })
  })
})
