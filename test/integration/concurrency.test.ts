/**
 * Double spending under concurrency: the same one-time thing (a signed login challenge, a
 * one-time consent, a presentation request, a credential request, a revocation) submitted N times
 * at once. Exactly one submission changes state, the rest are refused (401/409) or, where the
 * contract says a repeat is idempotent, answered unchanged; then the database is asked whether it
 * agrees (one spent challenge, one presentation, one credential, one status-bit flip, one outbox
 * row, one chain job...).
 *
 * Real: the app over inject(), the database of the engine under test (PGlite serialises every
 * statement on its one connection; PostgreSQL runs the transactions truly in parallel), the
 * callback outbox delivering to a node:http receiver on 127.0.0.1 (hence CALLBACK_ALLOW_PRIVATE),
 * and the chain outbox sending to an EDR dev chain started here. Nothing is mocked.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { toEventSelector } from 'viem'
import type { Deployment } from '../../src/adapters/chain/deploy.js'
import { postgresBitNumber } from '../../src/crypto/bitstring.js'
import type { DevChain } from '../../scripts/lib/dev-chain.js'
import { chainEnv, startChainWithRegistries, waitFor } from '../helpers/chain.js'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { startHoldingReceiver } from '../helpers/held-endpoints.js'
import { callAs, IssuerActor, JWT_DEGREE_SCHEMA } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

/** Submissions per case. */
const N = 10

const codesOf = (results: Array<{ statusCode: number }>) => results.map((r) => r.statusCode).sort((a, b) => a - b)
const count = (rows: Array<{ n: number | string }>) => Number(rows[0]?.n ?? 0)

describe(`double spending under concurrency (${TEST_ENGINE})`, () => {
  let chain: DevChain
  let deployment: Deployment
  let t: TestApp
  let receiver: Awaited<ReturnType<typeof startHoldingReceiver>>
  const issuer = new IssuerActor()
  let schemaId: string

  before(async () => {
    ;({ chain, deployment } = await startChainWithRegistries())
    receiver = await startHoldingReceiver()
    t = await createTestApp({
      env: {
        CALLBACK_ALLOW_PRIVATE: 'true',
        CALLBACK_POLL_MS: '20',
        ...chainEnv(chain, deployment, 0, {
          BLOCKCHAIN_POLL_MS: '50',
          BLOCKCHAIN_BATCH_WAIT_MS: '100',
          OUTBOUND_TIMEOUT_MS: '2000',
        }),
      },
    })
    await issuer.setUp(t.app, 'Race University')
    schemaId = await issuer.schema(t.app, JWT_DEGREE_SCHEMA)
  })
  after(async () => {
    await t?.close()
    await receiver?.close()
    await chain?.stop()
  })

  const db = () => t.deps.database.db

  /** A logged-in DID. */
  const party = async () => {
    const client = new DidClient()
    return { client, did: client.did, token: await client.login(t.app) }
  }
  const issueTo = async (holderDid: string, givenName = 'Ada'): Promise<{ id: string; jwt: string; hash: string }> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holderDid,
      attributes: { given_name: givenName, gpa: 3.5 },
    })
    assert.equal(res.statusCode, 201, res.body)
    const issued = res.json().credential
    return { id: issued.id, jwt: issued.jwt, hash: issued.credential_hash }
  }
  /** A verifier's request (with the receiver as callback_url), taken into the holder's inbox. */
  const openRequest = async (
    verifier: { did: string; token: string },
    holderToken: string,
    extra: Json = {},
  ): Promise<Json> => {
    const created = await callAs(t.app, 'POST', '/api/verifier/requests', verifier.token, {
      ...extra,
      verifier_did: verifier.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [{ credential_type: 'UniversityDegree', issuer_did: issuer.did }],
      purpose: 'Hiring',
      callback_url: receiver.url,
    })
    assert.equal(created.statusCode, 201, created.body)
    const request = created.json().request
    const inbox = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
      request_id: request.id,
    })
    assert.equal(inbox.statusCode, 201, inbox.body)
    return request
  }
  const approveBody = (
    holder: DidClient,
    verifierDid: string,
    request: Json,
    credential: { id: string; jwt: string },
  ) => {
    const iat = Math.floor(Date.now() / 1000)
    return {
      credential_ids: [credential.id],
      presentation_jwt: signPresentation(holder, {
        aud: verifierDid,
        nonce: request.nonce,
        credentials: [credential.jwt],
        iat,
        exp: iat + 3600,
      }),
    }
  }
  const outboxEvents = (requestId: string) =>
    db()
      .selectFrom('callback_outbox')
      .select(['event_id', 'event_type'])
      .where(sql<string>`payload->>'request_id'`, '=', requestId)
      .execute()
  const activities = (holderDid: string, type: string) =>
    db()
      .selectFrom('wallet_activities')
      .select(['details', 'credential_id'])
      .where('holder_did', '=', holderDid)
      .where('type', '=', type)
      .execute()
  /** Parsed JSON column (PGlite and pg both hand back jsonb parsed, text-typed json as a string). */
  const parsed = (value: unknown): Json => (typeof value === 'string' ? JSON.parse(value) : (value as Json))

  it('spends one signed login challenge once: one token, the rest 401, one spent-challenge row', async () => {
    const client = new DidClient()
    const proof = await client.proof(t.app)
    // The same proof at both login routes, interleaved: they spend the same kind of challenge.
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        t.app.inject({ method: 'POST', url: i % 2 ? '/api/auth/login' : '/api/auth/verify-challenge', payload: proof }),
      ),
    )
    assert.deepEqual(codesOf(results), [200, ...Array<number>(N - 1).fill(401)])
    const winner = results.find((r) => r.statusCode === 200)!
    assert.ok(winner.json().token)
    assert.ok(results.filter((r) => r.statusCode === 401).every((r) => r.json().success === false))
    // The challenge string is v1.<purpose>.<nonce>.<expiry>.<mac>; the nonce is what gets spent.
    const nonce = proof.challenge.split('.')[2]!
    assert.equal(
      count(
        await db()
          .selectFrom('auth_used_challenges')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('id', '=', nonce)
          .execute(),
      ),
      1,
    )
    assert.equal(
      count(
        await db()
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('did', '=', client.did)
          .execute(),
      ),
      1,
    )
    // And the one token works.
    assert.equal((await callAs(t.app, 'GET', '/api/auth/me', winner.json().token)).statusCode, 200)
  })

  it('lets one of N presentations verified at once spend a one-time consent; the database records one use', async () => {
    const holder = await party()
    const verifier = await party()
    const credential = await issueTo(holder.did)
    const granted = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holder.token, {
      verifier_did: verifier.did,
      purpose: 'Hiring',
      expiration_policy: 'one_time_use',
    })
    assert.equal(granted.statusCode, 201, granted.body)
    const consentId: string = granted.json().consent.id
    const presentations: Array<{ id: string; jwt: string }> = []
    for (let i = 0; i < N; i++) {
      const request = await openRequest(verifier, holder.token)
      const body = approveBody(holder.client, verifier.did, request, credential)
      const approved = await callAs(
        t.app,
        'POST',
        `/api/wallet/presentation-requests/${request.id}/approve`,
        holder.token,
        body,
      )
      assert.equal(approved.statusCode, 201, approved.body)
      presentations.push({ id: approved.json().presentation.id, jwt: body.presentation_jwt })
    }

    const results = await Promise.all(
      presentations.map((p) =>
        callAs(t.app, 'POST', `/api/verifier/presentations/${p.id}/verify`, verifier.token, {
          presentation_jwt: p.jwt,
        }),
      ),
    )
    assert.ok(
      results.every((r) => r.statusCode === 200),
      codesOf(results).join(','),
    )
    const bodies = results.map((r) => r.json())
    const winners = bodies.filter((b) => b.verification_result.is_valid)
    assert.equal(winners.length, 1, bodies.map((b) => b.verification_result.errors.join('; ')).join(' | '))
    assert.equal(winners[0]!.consent_valid, true)
    for (const loser of bodies.filter((b) => !b.verification_result.is_valid)) {
      assert.equal(loser.consent_valid, false)
      assert.equal(loser.status, 'failed')
      assert.ok(
        loser.verification_result.errors.some((e: string) => /one-time consent was already used/.test(e)),
        loser.verification_result.errors.join('; '),
      )
    }

    const consent = await db()
      .selectFrom('consents')
      .select(['used_by', 'used_at'])
      .where('id', '=', consentId)
      .executeTakeFirstOrThrow()
    assert.equal(consent.used_by, winners[0]!.presentation.id)
    assert.notEqual(consent.used_at, null)
    const rows = await db()
      .selectFrom('presentations')
      .select(['id', 'status', 'consent_id'])
      .where(
        'id',
        'in',
        presentations.map((p) => p.id),
      )
      .execute()
    assert.deepEqual(
      rows.filter((r) => r.status === 'verified').map((r) => r.id),
      [winners[0]!.presentation.id],
    )
    assert.deepEqual(
      rows.filter((r) => r.consent_id !== null).map((r) => r.id),
      [winners[0]!.presentation.id],
      'only the winner records the consent',
    )
    assert.equal(rows.filter((r) => r.status === 'failed').length, N - 1)
  })

  it('answers a presentation request once when the holder approves it N times at once: one 201, the rest 409', async () => {
    const holder = await party()
    const verifier = await party()
    const credential = await issueTo(holder.did)
    const request = await openRequest(verifier, holder.token)
    const body = approveBody(holder.client, verifier.did, request, credential)
    const results = await Promise.all(
      Array.from({ length: N }, () =>
        callAs(t.app, 'POST', `/api/wallet/presentation-requests/${request.id}/approve`, holder.token, body),
      ),
    )
    assert.deepEqual(codesOf(results), [201, ...Array<number>(N - 1).fill(409)])
    const presentationId: string = results.find((r) => r.statusCode === 201)!.json().presentation.id

    const presentations = await db()
      .selectFrom('presentations')
      .select('id')
      .where('request_id', '=', request.id)
      .execute()
    assert.deepEqual(
      presentations.map((p) => p.id),
      [presentationId],
    )
    const stored = await db()
      .selectFrom('presentation_requests')
      .select('status')
      .where('id', '=', request.id)
      .executeTakeFirstOrThrow()
    assert.equal(stored.status, 'submitted')
    const inbox = await db()
      .selectFrom('holder_inbox')
      .select(['status', 'presentation_id'])
      .where('request_id', '=', request.id)
      .execute()
    assert.deepEqual(inbox, [{ status: 'approved', presentation_id: presentationId }])
    assert.equal(
      (await activities(holder.did, 'presentation_submitted')).filter(
        (a) => parsed(a.details).request_id === request.id,
      ).length,
      1,
    )
    const events = await outboxEvents(request.id)
    assert.deepEqual(
      events.map((e) => e.event_type),
      ['presentation.submitted'],
    )
    await waitFor('the submitted event is delivered', () =>
      receiver.deliveries.some((d) => d.event.id === events[0]!.event_id),
    )
    assert.equal(receiver.deliveries.filter((d) => d.event.data.request_id === request.id).length, 1)
  })

  it('lets exactly one of racing approvals and rejections answer a request; the database holds that one answer', async () => {
    const holder = await party()
    const verifier = await party()
    const credential = await issueTo(holder.did)
    for (let round = 0; round < 4; round++) {
      // Addressed to the holder, its rejection closes the request; open to anyone, it answers
      // only the holder's own entry.
      const addressed = round < 2
      const request = await openRequest(verifier, holder.token, addressed ? { holder_did: holder.did } : {})
      const body = approveBody(holder.client, verifier.did, request, credential)
      // Alternate which kind goes first, so both can win across rounds.
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          (i + round) % 2 === 0
            ? callAs(t.app, 'POST', `/api/wallet/presentation-requests/${request.id}/approve`, holder.token, body).then(
                (r) => ({ kind: 'approve', r }),
              )
            : callAs(t.app, 'POST', `/api/wallet/presentation-requests/${request.id}/reject`, holder.token, {
                reason: `round ${round}`,
              }).then((r) => ({ kind: 'reject', r })),
        ),
      )
      const codes = results.map(({ kind, r }) => `${kind}:${r.statusCode}`)
      const won = results.filter(({ r }) => r.statusCode === 200 || r.statusCode === 201)
      assert.equal(won.length, 1, codes.join(','))
      assert.ok(
        results.every(({ r }) => r.statusCode === 409 || won.some((w) => w.r === r)),
        codes.join(','),
      )
      const winner = won[0]!.kind

      const stored = await db()
        .selectFrom('presentation_requests')
        .select('status')
        .where('id', '=', request.id)
        .executeTakeFirstOrThrow()
      const inbox = await db()
        .selectFrom('holder_inbox')
        .select(['status', 'presentation_id', 'reason'])
        .where('request_id', '=', request.id)
        .executeTakeFirstOrThrow()
      const presentations = await db()
        .selectFrom('presentations')
        .select('id')
        .where('request_id', '=', request.id)
        .execute()
      const submitted = (await activities(holder.did, 'presentation_submitted')).filter(
        (a) => parsed(a.details).request_id === request.id,
      )
      const rejected = (await activities(holder.did, 'presentation_rejected')).filter(
        (a) => parsed(a.details).request_id === request.id,
      )
      const events = (await outboxEvents(request.id)).map((e) => e.event_type)
      if (winner === 'approve') {
        assert.equal(stored.status, 'submitted')
        assert.equal(inbox.status, 'approved')
        assert.deepEqual(
          presentations.map((p) => p.id),
          [won[0]!.r.json().presentation.id],
        )
        assert.equal(inbox.presentation_id, presentations[0]!.id)
        assert.equal(submitted.length, 1)
        assert.equal(rejected.length, 0)
        assert.deepEqual(events, ['presentation.submitted'])
      } else {
        assert.equal(stored.status, addressed ? 'rejected' : 'pending')
        assert.equal(inbox.status, 'rejected')
        assert.equal(inbox.reason, `round ${round}`)
        assert.equal(presentations.length, 0)
        assert.equal(submitted.length, 0)
        assert.equal(rejected.length, 1)
        assert.deepEqual(events, ['presentation.rejected'])
      }
    }
  })

  /** The issuer's approval: a fresh step-up challenge of its own per attempt, signed. */
  const stepUp = async () => {
    const challenge = await issuer.challenge(t.app, issuer.did, 'step-up')
    return { challenge, signature: issuer.sign(challenge) }
  }
  const credentialRequest = async (holderToken: string, name: string): Promise<string> => {
    const res = await callAs(t.app, 'POST', '/api/wallet/credential-request', holderToken, {
      issuer_did: issuer.did,
      schema_id: schemaId,
      credential_type: 'UniversityDegree',
      attributes: { given_name: name, gpa: 3.9 },
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().request.id
  }
  const decide = (requestId: string, action: 'approve' | 'reject', body: object) =>
    callAs(t.app, 'POST', `/api/wallet/issuer/${issuer.did}/request/${requestId}/${action}`, issuer.token, body)
  const requestState = async (requestId: string) => {
    const request = await db()
      .selectFrom('credential_requests')
      .select(['status', 'credential_id'])
      .where('id', '=', requestId)
      .executeTakeFirstOrThrow()
    const credentials = await db()
      .selectFrom('credentials')
      .select(['id', 'credential_hash', 'owner_did'])
      .where('request_id', '=', requestId)
      .execute()
    return { request, credentials }
  }

  it('issues one credential when the issuer approves a credential request N times at once: one 200, the rest 409', async () => {
    const holder = await party()
    const requestId = await credentialRequest(holder.token, 'Once')
    // Each attempt brings its own valid step-up signature, so only the request's state decides.
    const bodies = await Promise.all(Array.from({ length: N }, stepUp))
    const results = await Promise.all(bodies.map((body) => decide(requestId, 'approve', body)))
    assert.deepEqual(codesOf(results), [200, ...Array<number>(N - 1).fill(409)])
    const credentialId: string = results.find((r) => r.statusCode === 200)!.json().credential.id

    const { request, credentials } = await requestState(requestId)
    assert.deepEqual(
      credentials.map((c) => c.id),
      [credentialId],
    )
    assert.equal(credentials[0]!.owner_did, holder.did)
    assert.deepEqual(request, { status: 'approved', credential_id: credentialId })
    const received = await activities(holder.did, 'credential_received')
    assert.deepEqual(
      received.map((a) => a.credential_id),
      [credentialId],
      'one wallet activity, for the one credential',
    )
    const leaves = await db()
      .selectFrom('chain_credentials')
      .select('credential_id')
      .where('credential_hash', '=', credentials[0]!.credential_hash)
      .execute()
    assert.deepEqual(
      leaves.map((l) => l.credential_id),
      [credentialId],
      'one chain anchoring entry',
    )
    // Nothing else was issued for this holder by the losers.
    assert.equal(
      count(
        await db()
          .selectFrom('credentials')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('owner_did', '=', holder.did)
          .execute(),
      ),
      1,
    )
  })

  it('spends one step-up signature once when the same approval is submitted N times', async () => {
    const holder = await party()
    const requestId = await credentialRequest(holder.token, 'Replay')
    const body = await stepUp()
    const results = await Promise.all(Array.from({ length: N }, () => decide(requestId, 'approve', body)))
    const codes = codesOf(results)
    assert.equal(codes.filter((c) => c === 200).length, 1, codes.join(','))
    // A loser fails on the spent challenge (401) or, when it got past it, on the decided request (409).
    assert.ok(
      codes.every((c) => c === 200 || c === 401 || c === 409),
      codes.join(','),
    )
    const nonce = body.challenge.split('.')[2]!
    assert.equal(
      count(
        await db()
          .selectFrom('auth_used_challenges')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('id', '=', nonce)
          .execute(),
      ),
      1,
    )
    const { request, credentials } = await requestState(requestId)
    assert.equal(credentials.length, 1)
    assert.deepEqual(request, { status: 'approved', credential_id: credentials[0]!.id })
  })

  it('lets exactly one of racing approvals and rejections decide a credential request', async () => {
    const holder = await party()
    for (let round = 0; round < 3; round++) {
      const requestId = await credentialRequest(holder.token, `Race ${round}`)
      const bodies = await Promise.all(Array.from({ length: N / 2 }, stepUp))
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          (i + round) % 2 === 0
            ? decide(requestId, 'approve', bodies[Math.floor(i / 2)]!).then((r) => ({ kind: 'approve', r }))
            : decide(requestId, 'reject', { reason: 'no' }).then((r) => ({ kind: 'reject', r })),
        ),
      )
      const codes = results.map(({ kind, r }) => `${kind}:${r.statusCode}`)
      const won = results.filter(({ r }) => r.statusCode === 200)
      assert.equal(won.length, 1, codes.join(','))
      assert.ok(
        results.every(({ r }) => r.statusCode === 200 || r.statusCode === 409),
        codes.join(','),
      )
      const { request, credentials } = await requestState(requestId)
      if (won[0]!.kind === 'approve') {
        assert.equal(credentials.length, 1)
        assert.deepEqual(request, { status: 'approved', credential_id: credentials[0]!.id })
      } else {
        assert.equal(credentials.length, 0, 'a rejected request issued nothing')
        assert.deepEqual(request, { status: 'rejected', credential_id: null })
      }
    }
  })

  it('revokes a credential once when N revocations arrive at once: one status-bit flip, one chain job, one event on chain', async () => {
    // Revoking is idempotent by contract (spec state table, as consents): a repeat answers 200
    // with the credential unchanged and queues nothing. So "exactly one succeeds" means exactly
    // one state change here: one answer says "Credential revoked", the rest "already revoked",
    // every answer carries the first revocation's time, the status list's bit is set by one
    // update (its version moves by one), and one revocation job goes to the chain.
    const holder = await party()
    const credential = await issueTo(holder.did, 'Revoked')
    const slot = await db()
      .selectFrom('credentials')
      .select(['status_list_id', 'status_list_index'])
      .where('id', '=', credential.id)
      .executeTakeFirstOrThrow()
    const versionOf = async () =>
      Number(
        (
          await db()
            .selectFrom('status_lists')
            .select('version')
            .where('id', '=', slot.status_list_id)
            .executeTakeFirstOrThrow()
        ).version,
      )
    const versionBefore = await versionOf()

    const results = await Promise.all(
      Array.from({ length: N }, () =>
        callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`, issuer.token),
      ),
    )
    assert.ok(
      results.every((r) => r.statusCode === 200),
      codesOf(results).join(','),
    )
    const messages = results.map((r) => r.json().message as string)
    assert.equal(messages.filter((m) => m === 'Credential revoked').length, 1, messages.join(','))
    assert.equal(messages.filter((m) => m === 'Credential was already revoked').length, N - 1)
    assert.equal(new Set(results.map((r) => r.json().credential.revoked_at)).size, 1, 'one revocation time')

    assert.equal(await versionOf(), versionBefore + 1, 'the status list was written once')
    const bit = await db()
      .selectFrom('status_lists')
      .select(sql<number>`get_bit(bits, ${postgresBitNumber(slot.status_list_index)})`.as('bit'))
      .where('id', '=', slot.status_list_id)
      .executeTakeFirstOrThrow()
    assert.equal(Number(bit.bit), 1, 'the credential’s bit is set')
    const jobs = await db()
      .selectFrom('chain_jobs')
      .select(['id', 'status'])
      .where('kind', '=', 'credential-revoke')
      .where('subject_id', '=', credential.id)
      .execute()
    assert.equal(jobs.length, 1, 'one chain revocation job')
    // The outsider's view: the batch with the credential, then the revocation, on chain once.
    await waitFor(
      'the revocation is mined',
      async () =>
        (await db().selectFrom('chain_jobs').select('status').where('id', '=', jobs[0]!.id).executeTakeFirstOrThrow())
          .status === 'mined',
    )
    const revokedLogs = (await chain.request('eth_getLogs', [
      {
        address: deployment.contracts.credentialRegistry,
        fromBlock: '0x0',
        toBlock: 'latest',
        topics: [
          toEventSelector('CredentialRevoked(address,bytes32,bytes32)'),
          null,
          null,
          `0x${credential.hash.replace(/^0x/, '')}`,
        ],
      },
    ])) as unknown[]
    assert.equal(revokedLogs.length, 1, 'one CredentialRevoked event for the hash')
  })

  it('revokes a consent once when N revocations arrive at once: one activity entry, one chain job', async () => {
    // Idempotent like credential revocation (docs/consents.md "Revocation").
    const holder = await party()
    const verifier = await party()
    const granted = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holder.token, {
      verifier_did: verifier.did,
      purpose: 'Revoked at once',
    })
    assert.equal(granted.statusCode, 201, granted.body)
    const consentId: string = granted.json().consent.id
    const results = await Promise.all(
      Array.from({ length: N }, () =>
        callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents/${consentId}/revoke`, holder.token),
      ),
    )
    assert.ok(
      results.every((r) => r.statusCode === 200),
      codesOf(results).join(','),
    )
    const messages = results.map((r) => r.json().message as string)
    assert.equal(messages.filter((m) => m === 'Consent revoked').length, 1, messages.join(','))
    assert.equal(new Set(results.map((r) => r.json().consent.revoked_at)).size, 1)
    const revokedEntries = (await activities(holder.did, 'consent_revoked')).filter(
      (a) => parsed(a.details).consent_id === consentId,
    )
    assert.equal(revokedEntries.length, 1)
    const jobs = await db()
      .selectFrom('chain_jobs')
      .select('kind')
      .where('subject_id', '=', consentId)
      .orderBy('id')
      .execute()
    assert.deepEqual(
      jobs.map((j) => j.kind),
      ['consent-grant', 'consent-revoke'],
    )
  })
})
