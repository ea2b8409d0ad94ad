import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeJwt } from 'jose'
import { callAs, IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

// Real: the app over HTTP (app.inject), the database of the engine under test, token and
// challenge checks. Swapped: the clock (a ManualClock from the real time, moved to expire step-ups).

const STEP_UP_TTL_SECONDS = 600

describe(`step-up is bound to the session that performed it (${TEST_ENGINE})`, () => {
  let t: TestApp
  const clock = new ManualClock(new Date())
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => {
    t = await createTestApp({ clock, env: { STEP_UP_TTL_SECONDS: String(STEP_UP_TTL_SECONDS) } })
    await issuer.setUp(t.app, 'Strict Uni')
    schemaId = await issuer.schema(t.app, JWT_DEGREE_SCHEMA)
    const set = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/set-auth`, issuer.token, {
      ...(await issuer.proof(t.app, issuer.did, 'step-up')),
      require_step_up: true,
    })
    assert.equal(set.statusCode, 200, set.body)
  })
  after(() => t.close())

  const issue = (token: string) =>
    callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, token, {
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      attributes: { given_name: 'Ada', gpa: 3.5 },
    })
  const revoke = (token: string, id: string) =>
    callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${id}/revoke`, token)
  const stepUp = async (token: string) => {
    const res = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/authenticate`,
      token,
      await issuer.proof(t.app, issuer.did, 'step-up'),
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  /** The refusal the issue and revoke routes give without a step-up. */
  const assertNeedsStepUp = (
    res: { statusCode: number; json(): { success: boolean; code: string; message: string } },
    what: string,
  ) => {
    assert.equal(res.statusCode, 401, what)
    assert.equal(res.json().success, false, what)
    assert.equal(res.json().code, 'UNAUTHENTICATED', what)
    assert.match(res.json().message, /requires step-up/, what)
  }

  it('lets the stepped-up token issue and revoke, and refuses every other token of the same DID', async () => {
    const tokenA = await issuer.login(t.app)
    const tokenB = await issuer.login(t.app)
    // A credential to revoke, issued by a session that steps up for it.
    const setUpToken = await issuer.login(t.app)
    await stepUp(setUpToken)
    const issued = await issue(setUpToken)
    assert.equal(issued.statusCode, 201, issued.body)
    const credentialId: string = issued.json().credential.id

    assertNeedsStepUp(await issue(tokenA), 'A before stepping up itself (another session of the DID has)')
    await stepUp(tokenA)
    assert.equal((await issue(tokenA)).statusCode, 201, 'A after its step-up')

    // B is the same DID, logged in separately (or stolen): A's step-up is not B's.
    assertNeedsStepUp(await issue(tokenB), "B issuing on A's step-up")
    assertNeedsStepUp(await revoke(tokenB, credentialId), "B revoking on A's step-up")
    // A login after the step-up does not inherit it either.
    const tokenC = await issuer.login(t.app)
    assertNeedsStepUp(await issue(tokenC), "a new login after A's step-up")

    const revoked = await revoke(tokenA, credentialId)
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.equal(revoked.json().credential.status, 'revoked')
    // B's own step-up then lets B issue, and leaves A's standing.
    await stepUp(tokenB)
    assert.equal((await issue(tokenB)).statusCode, 201)
    assert.equal((await issue(tokenA)).statusCode, 201)
  })

  it('applies the same check to anchoring and revoking credential hashes on chain (current and legacy routes)', async () => {
    const steppedUp = await issuer.login(t.app)
    await stepUp(steppedUp)
    const other = await issuer.login(t.app)
    const hash = 'ab'.repeat(32)
    const writes: Array<[string, object]> = [
      ['/api/blockchain/credential/register', { issuer_did: issuer.did, credential_hash: hash }],
      ['/api/blockchain/credential/revoke', { issuer_did: issuer.did, credential_hash: hash }],
      ['/api/blockchain-legacy/register-credential', { issuerDid: issuer.did, credentialHash: hash }],
      ['/api/blockchain-legacy/revoke-credential', { issuerDid: issuer.did, credentialHash: hash }],
    ]
    for (const [url, body] of writes) {
      assertNeedsStepUp(await callAs(t.app, 'POST', url, other, body), `${url} without a step-up of this session`)
      // The stepped-up session passes the check and meets the next one: no chain is configured here.
      assert.equal((await callAs(t.app, 'POST', url, steppedUp, body)).statusCode, 503, url)
    }
  })

  it('expires a step-up after STEP_UP_TTL_SECONDS: the same token is refused again until it steps up anew', async () => {
    const token = await issuer.login(t.app)
    const steppedUpAt = clock.now()
    const answer = await stepUp(token)
    clock.advance(STEP_UP_TTL_SECONDS * 1000 - 1000)
    assert.equal((await issue(token)).statusCode, 201, 'within the step-up')
    clock.advance(1000)
    assertNeedsStepUp(await issue(token), "at the step-up's expiry")
    assert.equal((await callAs(t.app, 'GET', '/api/auth/me', token)).statusCode, 200, 'the token itself is still valid')
    await stepUp(token)
    assert.equal((await issue(token)).statusCode, 201, 'after a new step-up')
    // The answer says when the step-up ends.
    assert.equal(answer.authenticated_at, steppedUpAt.toISOString())
    assert.equal(answer.expires_at, new Date(steppedUpAt.getTime() + STEP_UP_TTL_SECONDS * 1000).toISOString())
  })

  it('never lets a step-up outlive the token that performed it', async () => {
    const token = await issuer.login(t.app)
    const tokenExpiry = decodeJwt(token).exp! * 1000
    // Late in the token's life: the step-up ends with the token, not STEP_UP_TTL_SECONDS later.
    clock.advance(tokenExpiry - clock.now().getTime() - 60_000)
    const answer = await stepUp(token)
    assert.equal(answer.expires_at, new Date(tokenExpiry).toISOString())
    assert.equal((await issue(token)).statusCode, 201)
  })

  it('keeps step-ups in the database per session, and no more of them than are live', async () => {
    const rows = () =>
      t.deps.database.db
        .selectFrom('issuer_step_ups')
        .select(['session_id', 'expires_at'])
        .where('issuer_did', '=', issuer.did)
        .execute()
    const token = await issuer.login(t.app)
    await stepUp(token)
    const live = await rows()
    assert.ok(live.some((r) => r.session_id === decodeJwt(token).jti))
    assert.ok(
      live.every((r) => new Date(r.expires_at).getTime() > clock.now().getTime()),
      'expired step-ups of the issuer were dropped',
    )
    // Stepping up again extends the session's one row.
    clock.advance(1000)
    await stepUp(token)
    assert.equal((await rows()).filter((r) => r.session_id === decodeJwt(token).jti).length, 1)
  })
})
