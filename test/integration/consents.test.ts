import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ConsentService } from '../../src/modules/consent/consent.service.js'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

// Real: the app over HTTP (app.inject), the database of the engine under test, the presentation
// flow. Swapped: the clock (a ManualClock starting at the real time, moved to expire consents).

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const ACCESS_LEVELS = ['read_only', 'read_write', 'full_access', 'one_time', 'write', 'delete']

describe(`consents (${TEST_ENGINE})`, () => {
  let t: TestApp
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  const stranger = new DidClient()
  let holderToken: string
  let verifierToken: string
  let strangerToken: string
  let schemaId: string

  before(async () => {
    t = await createTestApp({ clock })
    await issuer.setUp(t.app, 'Uni')
    schemaId = await issuer.schema(t.app, JWT_DEGREE_SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
    strangerToken = await stranger.login(t.app)
  })
  after(() => t.close())

  const later = (ms: number) => new Date(clock.now().getTime() + ms).toISOString()
  const grant = (body: Json, as: { did: string; token: string } = { did: holder.did, token: holderToken }) =>
    callAs(t.app, 'POST', `/api/wallet/${as.did}/consents`, as.token, body)
  const granted = async (body: Json, as?: { did: string; token: string }): Promise<Json> => {
    const res = await grant(body, as)
    assert.equal(res.statusCode, 201, res.body)
    return res.json().consent
  }
  const revoke = (id: string, did = holder.did, token = holderToken) =>
    callAs(t.app, 'POST', `/api/wallet/${did}/consents/${id}/revoke`, token)
  const list = (query = '', did = holder.did, token = holderToken) =>
    callAs(t.app, 'GET', `/api/wallet/${did}/consents${query}`, token)

  it('grants with the defaults applied and answers the spec shape', async () => {
    const res = await grant({ verifier_did: verifier.did, purpose: 'Job application' })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.success, true)
    const c = body.consent
    assert.match(c.id, /^consent-/)
    assert.equal(c.holder_did, holder.did)
    assert.equal(c.verifier_did, verifier.did)
    assert.equal(c.purpose, 'Job application')
    assert.deepEqual(c.data_categories, [])
    assert.equal(c.access_level, 'read_only')
    assert.equal(c.expiration_policy, 'indefinite')
    assert.equal(c.expires_at, null)
    assert.equal(c.revoked, false)
    assert.equal(c.revoked_at, null)
    assert.equal(c.expired, false)
    assert.equal(c.status, 'active')
    assert.equal(c.on_chain, false)
    assert.equal(c.blockchain_tx, '')
    assert.equal(c.used_by, null)
    assert.equal(c.created_at, clock.now().toISOString())
  })

  it('accepts every access level and expiration policy, and stores what was sent', async () => {
    for (const access_level of ACCESS_LEVELS) {
      assert.equal(
        (await granted({ verifier_did: verifier.did, purpose: 'p', access_level })).access_level,
        access_level,
      )
    }
    const fixed = await granted({
      verifier_did: verifier.did,
      purpose: 'Loan',
      data_categories: ['identity', 'income'],
      access_level: 'read_write',
      expiration_policy: 'fixed_date',
      expires_at: later(86_400_000),
    })
    assert.deepEqual(fixed.data_categories, ['identity', 'income'])
    assert.equal(fixed.expiration_policy, 'fixed_date')
    assert.equal(fixed.expires_at, later(86_400_000))
    assert.equal(fixed.expired, false)
    // Any ISO 8601 offset is accepted and stored as the same instant.
    const offset = new Date(clock.now().getTime() + 7_200_000)
    const withOffset = await granted({
      verifier_did: verifier.did,
      purpose: 'p',
      expiration_policy: 'fixed_date',
      expires_at: offset.toISOString().replace('Z', '+00:00'),
    })
    assert.equal(withOffset.expires_at, offset.toISOString())
    const once = await granted({ verifier_did: verifier.did, purpose: 'p', expiration_policy: 'one_time_use' })
    assert.equal(once.expiration_policy, 'one_time_use')
    assert.equal(once.expires_at, null)
    // The verifier DID is stored in canonical form (scheme and method lower-cased).
    assert.equal(
      (await granted({ verifier_did: verifier.did.replace('did:key:', 'DID:KEY:'), purpose: 'p' })).verifier_did,
      verifier.did,
    )
  })

  it('refuses every bad body with 400 and a message naming the problem', async () => {
    const ok = { verifier_did: verifier.did, purpose: 'p' }
    const cases: Array<[string, unknown, RegExp]> = [
      ['missing verifier_did', { purpose: 'p' }, /verifier_did/],
      ['missing purpose', { verifier_did: verifier.did }, /purpose/],
      ['empty body', {}, /required/],
      ['body is an array', [ok], /object/],
      ['verifier_did wrong type', { ...ok, verifier_did: 42 }, /verifier_did/],
      ['verifier_did not a DID', { ...ok, verifier_did: 'not-a-did-at-all' }, /DID/i],
      ['verifier_did too long', { ...ok, verifier_did: `did:key:z${'a'.repeat(2100)}` }, /verifier_did/],
      ['purpose wrong type', { ...ok, purpose: 5 }, /purpose/],
      ['purpose null', { ...ok, purpose: null }, /purpose/],
      ['purpose empty', { ...ok, purpose: '' }, /purpose/],
      ['purpose blank', { ...ok, purpose: '   ' }, /purpose/],
      ['purpose too long', { ...ok, purpose: 'x'.repeat(501) }, /purpose/],
      ['data_categories not an array', { ...ok, data_categories: 'identity' }, /data_categories/],
      ['data_categories item not a string', { ...ok, data_categories: [1] }, /data_categories/],
      ['data_categories item empty', { ...ok, data_categories: [''] }, /data_categories/],
      ['data_categories item too long', { ...ok, data_categories: ['x'.repeat(101)] }, /data_categories/],
      [
        'data_categories too many',
        { ...ok, data_categories: Array.from({ length: 51 }, (_, i) => `c${i}`) },
        /data_categories/,
      ],
      ['data_categories duplicates', { ...ok, data_categories: ['a', 'a'] }, /data_categories/],
      ['access_level unknown', { ...ok, access_level: 'admin' }, /access_level.*allowed values/],
      ['access_level wrong case', { ...ok, access_level: 'READ_ONLY' }, /access_level/],
      ['access_level wrong type', { ...ok, access_level: 1 }, /access_level/],
      ['expiration_policy unknown', { ...ok, expiration_policy: 'forever' }, /expiration_policy.*allowed values/],
      ['expiration_policy wrong type', { ...ok, expiration_policy: true }, /expiration_policy/],
      ['fixed_date without expires_at', { ...ok, expiration_policy: 'fixed_date' }, /expires_at is required/],
      ['expires_at in the past', { ...ok, expiration_policy: 'fixed_date', expires_at: later(-1000) }, /future/],
      ['expires_at now', { ...ok, expiration_policy: 'fixed_date', expires_at: clock.now().toISOString() }, /future/],
      ['expires_at not a date', { ...ok, expiration_policy: 'fixed_date', expires_at: 'tomorrow' }, /expires_at/],
      [
        'expires_at impossible date',
        { ...ok, expiration_policy: 'fixed_date', expires_at: '2030-13-01T00:00:00Z' },
        /expires_at/,
      ],
      [
        'expires_at without a time zone',
        { ...ok, expiration_policy: 'fixed_date', expires_at: '2030-01-01T00:00:00' },
        /expires_at/,
      ],
      ['expires_at wrong type', { ...ok, expiration_policy: 'fixed_date', expires_at: 1893456000 }, /expires_at/],
      ['expires_at with indefinite (default)', { ...ok, expires_at: later(60_000) }, /fixed_date/],
      [
        'expires_at with indefinite',
        { ...ok, expiration_policy: 'indefinite', expires_at: later(60_000) },
        /fixed_date/,
      ],
      [
        'expires_at with one_time_use',
        { ...ok, expiration_policy: 'one_time_use', expires_at: later(60_000) },
        /fixed_date/,
      ],
    ]
    for (const [name, body, expected] of cases) {
      const res = await grant(body as Json)
      assert.equal(res.statusCode, 400, `${name}: ${res.body}`)
      const error = res.json()
      assert.equal(error.success, false, name)
      assert.equal(error.code, 'VALIDATION_FAILED', name)
      assert.match(error.message, expected, `${name}: ${error.message}`)
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: `/api/wallet/${holder.did}/consents`,
      headers: { authorization: `Bearer ${holderToken}`, 'content-type': 'application/json' },
      payload: '{"purpose":',
    })
    assert.equal(notJson.statusCode, 400)
    // None of the refused bodies left a row behind.
    const rows = await t.deps.database.db
      .selectFrom('consents')
      .select('purpose')
      .where('holder_did', '=', holder.did)
      .execute()
    assert.ok(rows.every((r) => r.purpose.trim() !== '' && r.purpose.length <= 500))
  })

  it("lists the holder's consents only, paginated, filtered by verifier_did and status", async () => {
    const lister = new DidClient()
    const token = await lister.login(t.app)
    const as = { did: lister.did, token }
    const ids: string[] = []
    for (let i = 0; i < 5; i++)
      ids.push((await granted({ verifier_did: i < 3 ? verifier.did : stranger.did, purpose: `p${i}` }, as)).id)
    await granted({ verifier_did: verifier.did, purpose: 'not theirs' }) // another holder's

    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, lister.did, token)
      assert.equal(res.statusCode, 200, res.body)
      const page = res.json()
      assert.equal(page.success, true)
      assert.equal(page.count, page.data.length)
      assert.ok(page.count <= 2)
      for (const c of page.data) assert.equal(c.holder_did, lister.did)
      seen.push(...page.data.map((c: Json) => c.id))
      cursor = page.next_cursor
      pages++
    } while (cursor !== null && pages < 10)
    assert.equal(pages, 3)
    assert.deepEqual([...seen].sort(), [...ids].sort())
    assert.deepEqual(seen, [...seen].sort(), 'keyset order: by id')

    const all = (await list('', lister.did, token)).json()
    assert.equal(all.count, 5)
    assert.equal(all.next_cursor, null)
    const byVerifier = (await list(`?verifier_did=${encodeURIComponent(stranger.did)}`, lister.did, token)).json()
    assert.equal(byVerifier.count, 2)
    assert.ok(byVerifier.data.every((c: Json) => c.verifier_did === stranger.did))

    assert.equal((await revoke(ids[0]!, lister.did, token)).statusCode, 200)
    const revoked = (await list('?status=revoked', lister.did, token)).json()
    assert.deepEqual(
      revoked.data.map((c: Json) => c.id),
      [ids[0]],
    )
    assert.equal((await list('?status=active', lister.did, token)).json().count, 4)
    assert.equal((await list('?status=expired', lister.did, token)).json().count, 0)

    for (const bad of [
      '?limit=0',
      '?limit=201',
      '?limit=abc',
      '?status=gone',
      `?cursor=${'x'.repeat(101)}`,
      '?verifier_did=abc',
    ]) {
      const res = await list(bad, lister.did, token)
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`)
      assert.equal(typeof res.json().message, 'string')
    }
  })

  it('revokes, and revoking again answers 200 with the consent unchanged', async () => {
    const consent = await granted({ verifier_did: verifier.did, purpose: 'Revocable' })
    const first = await revoke(consent.id)
    assert.equal(first.statusCode, 200, first.body)
    assert.equal(first.json().success, true)
    assert.equal(first.json().message, 'Consent revoked')
    assert.equal(first.json().consent.revoked, true)
    assert.equal(first.json().consent.status, 'revoked')
    assert.equal(first.json().consent.revoked_at, clock.now().toISOString())
    clock.advance(1000)
    const second = await revoke(consent.id)
    assert.equal(second.statusCode, 200, second.body)
    assert.equal(second.json().message, 'Consent was already revoked')
    assert.equal(second.json().consent.revoked_at, first.json().consent.revoked_at, 'the first revocation time stays')
    const read = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/consents/${consent.id}`, holderToken)
    assert.equal(read.statusCode, 200)
    assert.equal(read.json().consent.revoked, true)
  })

  it("keeps other holders' consents out: 404 for their records, 403 for their DID, 401 without a token", async () => {
    const consent = await granted({ verifier_did: verifier.did, purpose: 'Mine' })
    // The stranger, acting on its own DID, cannot reach the holder's consent.
    assert.equal((await revoke(consent.id, stranger.did, strangerToken)).statusCode, 404)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${stranger.did}/consents/${consent.id}`, strangerToken)).statusCode,
      404,
    )
    assert.ok(!(await list('', stranger.did, strangerToken)).json().data.some((c: Json) => c.id === consent.id))
    // The verifier the consent is for does not own it either.
    assert.equal((await revoke(consent.id, verifier.did, verifierToken)).statusCode, 404)
    // Someone else's DID in the path.
    assert.equal((await revoke(consent.id, holder.did, strangerToken)).statusCode, 403)
    assert.equal((await list('', holder.did, strangerToken)).statusCode, 403)
    assert.equal(
      (await grant({ verifier_did: verifier.did, purpose: 'x' }, { did: holder.did, token: strangerToken })).statusCode,
      403,
    )
    const mismatchedHeader = await t.app.inject({
      method: 'GET',
      url: `/api/wallet/${holder.did}/consents`,
      headers: { authorization: `Bearer ${holderToken}`, 'x-user-did': stranger.did },
    })
    assert.equal(mismatchedHeader.statusCode, 403)
    // No token.
    assert.equal(
      (await grant({ verifier_did: verifier.did, purpose: 'x' }, { did: holder.did, token: '' })).statusCode,
      401,
    )
    assert.equal((await list('', holder.did, '')).statusCode, 401)
    assert.equal((await revoke(consent.id, holder.did, '')).statusCode, 401)
    // Unknown id.
    assert.equal((await revoke('consent-unknown')).statusCode, 404)
    // Still not revoked after all that.
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/consents/${consent.id}`, holderToken)).json().consent
        .revoked,
      false,
    )
  })

  it('computes expired from the policy and the clock', async () => {
    const fixed = await granted({
      verifier_did: verifier.did,
      purpose: 'Short',
      expiration_policy: 'fixed_date',
      expires_at: later(60_000),
    })
    const indefinite = await granted({ verifier_did: verifier.did, purpose: 'Long' })
    const read = async (id: string) =>
      (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/consents/${id}`, holderToken)).json().consent
    assert.equal((await read(fixed.id)).expired, false)
    clock.advance(59_999)
    assert.equal((await read(fixed.id)).expired, false)
    clock.advance(1)
    const expired = await read(fixed.id)
    assert.equal(expired.expired, true, 'expired at expires_at exactly')
    assert.equal(expired.status, 'expired')
    assert.equal(expired.revoked, false)
    assert.equal((await read(indefinite.id)).expired, false)
    const listed = (await list('?status=expired&limit=200')).json()
    assert.ok(listed.data.some((c: Json) => c.id === fixed.id))
    assert.ok(!listed.data.some((c: Json) => c.id === indefinite.id))
    // An expired consent can still be revoked (the withdrawal is recorded).
    const revoked = (await revoke(fixed.id)).json().consent
    assert.equal(revoked.revoked, true)
    assert.equal(revoked.expired, true)
  })

  it('holds the rules in the database too', async () => {
    const db = t.deps.database.db
    const base = {
      holder_did: holder.did,
      verifier_did: verifier.did,
      purpose: 'p',
      data_categories: '[]',
      access_level: 'read_only',
      expiration_policy: 'indefinite',
      expires_at: null,
      updated_at: clock.now(),
    }
    const bad: Array<[string, Json]> = [
      ['unknown access level', { access_level: 'admin' }],
      ['unknown policy', { expiration_policy: 'forever' }],
      ['fixed_date without a date', { expiration_policy: 'fixed_date' }],
      ['a date without fixed_date', { expires_at: clock.now() }],
      ['used but not one-time', { used_by: 'pres-1', used_at: clock.now() }],
      ['revoked without a time', { revoked: true }],
      ['categories not an array', { data_categories: '{}' }],
    ]
    for (const [name, change] of bad) {
      await assert.rejects(
        db
          .insertInto('consents')
          .values({ ...base, id: `consent-db-${name}`, ...change } as never)
          .execute(),
        name,
      )
    }
  })

  describe('the consent port', () => {
    const service = () => new ConsentService({ db: t.deps.database.db, clock })

    it('decides with a usable consent of the purpose if any (standing before one-time, then the newest), else the newest with its reason', async () => {
      const h = new DidClient()
      const v = new DidClient()
      const as = { did: h.did, token: await h.login(t.app) }
      const consents = service()
      const purpose = 'Hiring'
      assert.deepEqual(await consents.check(h.did, v.did, purpose, clock.now()), { valid: false })

      const once = await granted({ verifier_did: v.did, purpose, expiration_policy: 'one_time_use' }, as)
      clock.advance(10)
      const standing = await granted({ verifier_did: v.did, purpose }, as)
      let decided = await consents.check(h.did, v.did, purpose, clock.now())
      assert.equal(decided.valid, true)
      assert.equal(decided.consent?.id, standing.id, 'a standing consent before a one-time one')

      await revoke(standing.id, h.did, as.token)
      decided = await consents.check(h.did, v.did, purpose, clock.now())
      assert.equal(decided.valid, true)
      assert.equal(decided.consent?.id, once.id, 'a usable older consent before a revoked newer one')

      await revoke(once.id, h.did, as.token)
      decided = await consents.check(h.did, v.did, purpose, clock.now())
      assert.equal(decided.valid, false)
      assert.equal(decided.consent?.id, standing.id, 'none usable: the newest decides')
      assert.match(decided.reason!, /revoked/)

      clock.advance(10)
      const fixed = await granted(
        { verifier_did: v.did, purpose, expiration_policy: 'fixed_date', expires_at: later(1000) },
        as,
      )
      assert.equal((await consents.check(h.did, v.did, purpose, clock.now())).consent?.id, fixed.id)
      clock.advance(1000)
      decided = await consents.check(h.did, v.did, purpose, clock.now())
      assert.equal(decided.valid, false)
      assert.equal(decided.consent?.id, fixed.id)
      assert.match(decided.reason!, /expired/)
      // Another verifier's consent never decides for this one.
      assert.equal((await consents.check(h.did, verifier.did, purpose, clock.now())).consent, undefined)
    })

    it('decides per purpose: a consent for one purpose neither serves nor blocks another', async () => {
      const h = new DidClient()
      const v = new DidClient()
      const as = { did: h.did, token: await h.login(t.app) }
      const consents = service()
      const hiring = await granted({ verifier_did: v.did, purpose: 'Hiring' }, as)
      const audit = await granted({ verifier_did: v.did, purpose: 'Audit' }, as)
      await revoke(audit.id, h.did, as.token)

      const forHiring = await consents.check(h.did, v.did, 'Hiring', clock.now())
      assert.equal(forHiring.valid, true, 'the revoked Audit consent, newer, does not block Hiring')
      assert.equal(forHiring.consent?.id, hiring.id)
      const forAudit = await consents.check(h.did, v.did, 'Audit', clock.now())
      assert.equal(forAudit.valid, false, 'the Hiring consent does not serve Audit')
      assert.equal(forAudit.consent?.id, audit.id)
      assert.match(forAudit.reason!, /revoked/)
      assert.deepEqual(
        await consents.check(h.did, v.did, 'Marketing', clock.now()),
        { valid: false },
        'no consent for this purpose at all',
      )
      // Exact text, as the chain key: another spelling is another purpose.
      assert.deepEqual(await consents.check(h.did, v.did, 'hiring', clock.now()), { valid: false })
    })

    it('consumes a one-time consent once and nothing else', async () => {
      const consents = service()
      const db = t.deps.database.db
      const once = await granted({ verifier_did: verifier.did, purpose: 'once', expiration_policy: 'one_time_use' })
      const standing = await granted({ verifier_did: verifier.did, purpose: 'standing' })
      const revokedOnce = await granted({
        verifier_did: verifier.did,
        purpose: 'revoked once',
        expiration_policy: 'one_time_use',
      })
      await revoke(revokedOnce.id)
      const consume = (id: string, presentationId: string) =>
        db.transaction().execute((trx) => consents.consume(trx, id, presentationId, clock.now()))
      assert.equal(await consume(standing.id, 'pres-a'), false, 'not a one-time consent')
      assert.equal(await consume(revokedOnce.id, 'pres-a'), false, 'revoked')
      assert.equal(await consume('consent-unknown', 'pres-a'), false, 'unknown')
      assert.equal(await consume(once.id, 'pres-a'), true)
      assert.equal(await consume(once.id, 'pres-b'), false, 'already used')
      // Rolled back with the caller's transaction.
      const other = await granted({
        verifier_did: verifier.did,
        purpose: 'rolled back',
        expiration_policy: 'one_time_use',
      })
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          assert.equal(await consents.consume(trx, other.id, 'pres-c', clock.now()), true)
          throw new Error('abort')
        }),
      )
      assert.equal(
        (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/consents/${other.id}`, holderToken)).json().consent
          .used_by,
        null,
      )
      const used = (await callAs(t.app, 'GET', `/api/wallet/${holder.did}/consents/${once.id}`, holderToken)).json()
        .consent
      assert.equal(used.used_by, 'pres-a')
      assert.equal(used.expired, true)
      assert.equal(used.status, 'expired')
    })

    it('lets exactly one of N concurrent consume() calls win, and the database agrees', async () => {
      const consents = service()
      const db = t.deps.database.db
      const N = 12
      for (let round = 0; round < 3; round++) {
        const once = await granted({
          verifier_did: verifier.did,
          purpose: `race ${round}`,
          expiration_policy: 'one_time_use',
        })
        const results = await Promise.all(
          Array.from({ length: N }, (_, i) =>
            db.transaction().execute((trx) => consents.consume(trx, once.id, `pres-race-${round}-${i}`, clock.now())),
          ),
        )
        assert.equal(results.filter(Boolean).length, 1, `round ${round}: ${results.join(',')}`)
        const winner = `pres-race-${round}-${results.indexOf(true)}`
        const row = await db
          .selectFrom('consents')
          .select(['used_by', 'used_at'])
          .where('id', '=', once.id)
          .executeTakeFirstOrThrow()
        assert.equal(row.used_by, winner)
        assert.notEqual(row.used_at, null)
      }
    })
  })

  describe('through the presentation flow', () => {
    /** A fresh holder and verifier (consents decide per holder, verifier and purpose), with a credential for the holder. */
    const pair = async () => {
      const h = new DidClient()
      const v = new DidClient()
      const hToken = await h.login(t.app)
      const vToken = await v.login(t.app)
      const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'UniversityDegree',
        schema_id: schemaId,
        subject_did: h.did,
        attributes: { given_name: 'Ada', gpa: 3.5 },
      })
      assert.equal(issued.statusCode, 201, issued.body)
      const credential = { id: issued.json().credential.id as string, jwt: issued.json().credential.jwt as string }
      const grantConsent = (body: Json) =>
        granted({ verifier_did: v.did, purpose: 'Hiring', ...body }, { did: h.did, token: hToken })
      /** A request of the verifier answered by the holder: the presentation, submitted. */
      const present = async (): Promise<string> => {
        const created = await callAs(t.app, 'POST', '/api/verifier/requests', vToken, {
          verifier_did: v.did,
          presentation_type: 'DegreeCheck',
          required_credentials: [{ credential_type: 'UniversityDegree', issuer_did: issuer.did }],
          purpose: 'Hiring',
        })
        assert.equal(created.statusCode, 201, created.body)
        const request = created.json()
        assert.equal(
          (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', hToken, { request_id: request.request.id }))
            .statusCode,
          201,
        )
        // The VP's own validity follows the test clock, which the tests move.
        const iat = Math.floor(clock.now().getTime() / 1000)
        const vp = signPresentation(h, {
          aud: v.did,
          nonce: request.request.nonce,
          credentials: [credential.jwt],
          iat,
          exp: iat + 3600,
        })
        const approved = await callAs(
          t.app,
          'POST',
          `/api/wallet/presentation-requests/${request.request.id}/approve`,
          hToken,
          { credential_ids: [credential.id], presentation_jwt: vp },
        )
        assert.equal(approved.statusCode, 201, approved.body)
        return approved.json().presentation.id
      }
      const verify = async (presentationId: string): Promise<Json> => {
        const row = await t.deps.database.db
          .selectFrom('presentations')
          .select('presentation_jwt')
          .where('id', '=', presentationId)
          .executeTakeFirstOrThrow()
        const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentationId}/verify`, vToken, {
          presentation_jwt: row.presentation_jwt,
        })
        assert.equal(res.statusCode, 200, res.body)
        return res.json()
      }
      const readConsent = async (id: string) =>
        (await callAs(t.app, 'GET', `/api/wallet/${h.did}/consents/${id}`, hToken)).json().consent
      return { h, hToken, grantConsent, present, verify, readConsent }
    }

    it('verifies with a valid consent: consent_valid and auto_approved', async () => {
      const p = await pair()
      const consent = await p.grantConsent({})
      const result = await p.verify(await p.present())
      assert.deepEqual(result.verification_result.errors, [])
      assert.equal(result.verification_result.is_valid, true)
      assert.equal(result.consent_valid, true)
      assert.equal(result.auto_approved, true)
      const row = await t.deps.database.db
        .selectFrom('presentations')
        .select('consent_id')
        .where('id', '=', result.presentation.id)
        .executeTakeFirstOrThrow()
      assert.equal(row.consent_id, consent.id, 'the presentation records the consent that decided')
    })

    it('fails a presentation once its consent is revoked, with a readable error', async () => {
      const p = await pair()
      const consent = await p.grantConsent({})
      const presentation = await p.present()
      assert.equal((await p.verify(presentation)).verification_result.is_valid, true)
      assert.equal((await revoke(consent.id, p.h.did, p.hToken)).statusCode, 200)
      const result = await p.verify(presentation)
      assert.equal(result.verification_result.is_valid, false)
      assert.equal(result.status, 'failed')
      assert.equal(result.consent_valid, false)
      assert.ok(
        result.verification_result.errors.some((e: string) => /^consent: revoked by the holder/.test(e)),
        result.verification_result.errors.join('; '),
      )
    })

    it('fails a presentation after its fixed_date consent expired', async () => {
      const p = await pair()
      await p.grantConsent({ expiration_policy: 'fixed_date', expires_at: later(120_000) })
      const presentation = await p.present()
      assert.equal((await p.verify(presentation)).consent_valid, true)
      clock.advance(120_000)
      const result = await p.verify(await p.present())
      assert.equal(result.verification_result.is_valid, false)
      assert.equal(result.consent_valid, false)
      assert.ok(
        result.verification_result.errors.some((e: string) => /^consent: expired at /.test(e)),
        result.verification_result.errors.join('; '),
      )
    })

    it('spends a one-time consent on the first verified presentation; a second then fails', async () => {
      const p = await pair()
      const consent = await p.grantConsent({ expiration_policy: 'one_time_use' })
      const first = await p.present()
      const second = await p.present()
      const ok = await p.verify(first)
      assert.equal(ok.verification_result.is_valid, true, ok.verification_result.errors.join('; '))
      assert.equal(ok.consent_valid, true)
      const used = await p.readConsent(consent.id)
      assert.equal(used.used_by, first)
      assert.equal(used.expired, true)
      const refused = await p.verify(second)
      assert.equal(refused.verification_result.is_valid, false)
      assert.equal(refused.consent_valid, false)
      assert.ok(
        refused.verification_result.errors.some((e: string) =>
          /^consent: the one-time consent was already used/.test(e),
        ),
        refused.verification_result.errors.join('; '),
      )
      // Verifying the first again still passes: the consent was used by this very presentation.
      const again = await p.verify(first)
      assert.equal(again.verification_result.is_valid, true, again.verification_result.errors.join('; '))
      assert.equal(again.consent_valid, true)
      assert.equal((await p.readConsent(consent.id)).used_by, first)
    })

    it('lets only one of several presentations verified at once spend a one-time consent', async () => {
      const p = await pair()
      const consent = await p.grantConsent({ expiration_policy: 'one_time_use' })
      const presentations: string[] = []
      for (let i = 0; i < 4; i++) presentations.push(await p.present())
      const results = await Promise.all(presentations.map((id) => p.verify(id)))
      const winners = results.filter((r) => r.verification_result.is_valid)
      assert.equal(winners.length, 1, results.map((r) => r.verification_result.errors.join('; ')).join(' | '))
      assert.equal(winners[0]!.consent_valid, true)
      assert.ok(
        results
          .filter((r) => !r.verification_result.is_valid)
          .every(
            (r) =>
              r.consent_valid === false && r.verification_result.errors.some((e: string) => /already used/.test(e)),
          ),
      )
      assert.equal((await p.readConsent(consent.id)).used_by, winners[0]!.presentation.id)
    })
  })
})
