import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { signJwt } from '../helpers/wallet-fixtures.js'
import {
  findPresentationToVerify,
  recordVerifications,
} from '../../src/modules/presentation/presentations.repository.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Degree',
  version: '1.0',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'gpa', data_type: 'number', required: true },
    { name: 'birth_date', data_type: 'date' },
  ],
  anonymous_credentials: false,
}

describe('presentations: holder inbox, approval, verification', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  const stranger = new DidClient()
  let holderToken: string
  let verifierToken: string
  let strangerToken: string
  let schemaId: string

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Uni')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
    strangerToken = await stranger.login(t.app)
  })
  after(() => t.close())

  const issue = async (attributes: Json, subject = holder.did): Promise<{ id: string; jwt: string }> => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: subject,
      attributes,
    })
    assert.equal(res.statusCode, 201, res.body)
    return { id: res.json().credential.id, jwt: res.json().credential.jwt }
  }
  const createRequest = async (extra: Json = {}): Promise<Json> => {
    const res = await callAs(t.app, 'POST', '/api/verifier/requests', verifierToken, {
      verifier_did: verifier.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [
        { credential_type: 'UniversityDegree', issuer_did: issuer.did, required_attributes: ['given_name'] },
      ],
      required_predicates: [{ attribute: 'gpa', operator: '>=', value: 3 }],
      purpose: 'Hiring',
      ...extra,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  /** Takes the request into the holder's inbox through its QR payload and answers it. */
  const answer = async (created: Json, credentials: Array<{ id: string; jwt: string }>, vp?: string) => {
    const take = await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
      qr_code_data: created.qr_code_data,
    })
    assert.equal(take.statusCode, 201, take.body)
    const jwt =
      vp ??
      signPresentation(holder, {
        aud: verifier.did,
        nonce: created.request.nonce,
        credentials: credentials.map((c) => c.jwt),
      })
    return callAs(t.app, 'POST', `/api/wallet/presentation-requests/${created.request.id}/approve`, holderToken, {
      credential_ids: credentials.map((c) => c.id),
      presentation_jwt: jwt,
    })
  }
  const verify = async (presentation: Json) => {
    const res = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentation.id}/verify`, verifierToken, {
      presentation_jwt: (await stored(presentation.id)).jwt,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  /** The presentation as the verify route answers it: the single-presentation read adds the VP. */
  const withoutJwt = ({ presentation_jwt: _jwt, ...view }: Json) => view
  // The verifier holds the VP-JWT it received; the test reads it back from the database.
  const stored = async (id: string) => {
    const row = await t.deps.database.db
      .selectFrom('presentations')
      .select('presentation_jwt')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    return { jwt: row.presentation_jwt }
  }

  it('runs the whole flow: request, inbox, approval, verification; a revoked credential then fails', async () => {
    const credential = await issue({ given_name: 'Ada', gpa: 3.5, birth_date: '2001-02-03' })
    const created = await createRequest()
    const approved = await answer(created, [credential])
    assert.equal(approved.statusCode, 201, approved.body)
    const presentation = approved.json().presentation
    assert.equal(presentation.status, 'submitted')
    assert.equal(presentation.prover_did, holder.did)
    assert.deepEqual(presentation.credential_ids, [credential.id])

    const status = await callAs(
      t.app,
      'GET',
      `/api/wallet/presentation-requests/${created.request.id}/status`,
      holderToken,
    )
    assert.equal(status.json().status, 'approved')
    assert.equal(status.json().presentation_id, presentation.id)

    const verified = await verify(presentation)
    assert.equal(verified.success, true)
    assert.deepEqual(verified.verification_result.errors, [])
    assert.equal(verified.verification_result.is_valid, true)
    assert.equal(verified.status, 'verified')
    assert.equal(verified.verification_result.prover_did, holder.did)
    assert.equal(verified.verification_result.verifier_did, verifier.did)
    assert.equal(verified.verification_result.credential_subjects[0].given_name, 'Ada')
    assert.deepEqual(verified.blockchain_verification, { on_chain: false, revoked: false, verified: false })
    assert.equal(typeof verified.consent_valid, 'boolean')
    assert.equal(typeof verified.auto_approved, 'boolean')
    // The presentation the verify answer shows is the one stored.
    const served = await callAs(t.app, 'GET', `/api/verifier/presentations/${presentation.id}`, verifierToken)
    assert.deepEqual(verified.presentation, withoutJwt(served.json().presentation))
    // The verifier reads back the VP it received (a browser or CLI verifier has no other copy).
    assert.equal(served.json().presentation.presentation_jwt, (await stored(presentation.id)).jwt)
    assert.equal(verified.presentation.status, 'verified')
    assert.equal(verified.presentation.verified_at, verified.verification_result.verified_at)
    const listed = await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/presentations`, verifierToken)
    assert.ok(
      listed
        .json()
        .presentations.some((p: Json) => p.id === presentation.id && p.is_verified === true && p.status === 'verified'),
    )
    assert.deepEqual(listed.json().presentations.find((p: Json) => p.id === presentation.id).provided_attributes, [
      'birth_date',
      'given_name',
      'gpa',
    ])
    const mine = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/presentations`, holderToken)
    assert.ok(mine.json().data.some((p: Json) => p.id === presentation.id))

    assert.equal(
      (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`, issuer.token))
        .statusCode,
      200,
    )
    const again = await answer(await createRequest(), [credential])
    assert.equal(again.statusCode, 201, again.body)
    const failed = await verify(again.json().presentation)
    assert.equal(failed.verification_result.is_valid, false)
    assert.equal(failed.status, 'failed')
    assert.ok(
      failed.verification_result.errors.some((e: string) => /revoked/.test(e)),
      failed.verification_result.errors.join('; '),
    )
    assert.equal(failed.blockchain_verification.revoked, true)
    // Verification is repeatable: the first presentation now fails too, and its request says so.
    const reverified = await verify(presentation)
    assert.equal(reverified.verification_result.is_valid, false)
    assert.deepEqual(
      reverified.presentation,
      withoutJwt(
        (await callAs(t.app, 'GET', `/api/verifier/presentations/${presentation.id}`, verifierToken)).json()
          .presentation,
      ),
    )
    assert.equal(
      (await callAs(t.app, 'GET', `/api/verifier/requests/${created.request.id}`, verifierToken)).json().request.status,
      'failed',
    )
  })

  it('fails tampered credentials, foreign signatures, missing attributes and unmet predicates with readable errors', async () => {
    const good = await issue({ given_name: 'Bo', gpa: 3.2 })
    const cases: Array<
      [string, () => Promise<{ vp?: string; credentials: Array<{ id: string; jwt: string }>; extra?: Json }>, RegExp]
    > = [
      [
        'tampered credential',
        async () => {
          const [h, p, s] = good.jwt.split('.') as [string, string, string]
          const payload = JSON.parse(Buffer.from(p, 'base64url').toString())
          payload.vc.credentialSubject.gpa = 4
          return {
            credentials: [
              { id: good.id, jwt: `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}` },
            ],
          }
        },
        /issuer signature/,
      ],
      ['VP signed by another key', async () => ({ credentials: [good], vp: 'other' }), /presentation signature/],
      [
        'missing required attribute',
        async () => ({
          credentials: [good],
          extra: {
            required_credentials: [{ credential_type: 'UniversityDegree', required_attributes: ['birth_date'] }],
          },
        }),
        /birth_date/,
      ],
      [
        'predicate not satisfied',
        async () => ({
          credentials: [good],
          extra: { required_predicates: [{ attribute: 'gpa', operator: '>', value: 3.5 }] },
        }),
        /gpa > 3.5 is not satisfied/,
      ],
      [
        'another issuer required',
        async () => ({
          credentials: [good],
          extra: { required_credentials: [{ credential_type: 'UniversityDegree', issuer_did: stranger.did }] },
        }),
        /missing required credential/,
      ],
    ]
    for (const [name, build, expected] of cases) {
      const { vp, credentials, extra } = await build()
      const created = await createRequest(extra)
      const jwt =
        vp === 'other'
          ? signPresentation(
              holder,
              { aud: verifier.did, nonce: created.request.nonce, credentials: credentials.map((c) => c.jwt) },
              stranger,
            )
          : undefined
      const approved = await answer(created, credentials, jwt)
      assert.equal(approved.statusCode, 201, `${name}: ${approved.body}`)
      const result = await verify(approved.json().presentation)
      assert.equal(result.verification_result.is_valid, false, name)
      assert.equal(result.status, 'failed', name)
      assert.ok(
        result.verification_result.errors.some((e: string) => expected.test(e)),
        `${name}: ${result.verification_result.errors.join('; ')}`,
      )
    }
  })

  it('verifies many presentations at once, each answered and stored with its own outcome; one quoting a NUL and a lone surrogate fails readably among them', async () => {
    const good = await issue({ given_name: 'Em', gpa: 3.7 })
    const revoked = await issue({ given_name: 'Fi', gpa: 3.7 })
    // A credential signed by a key that is not its claimed issuer's, whose claims carry bytes
    // PostgreSQL cannot store in jsonb: the verification result quotes them.
    const hostile = signJwt(stranger, {
      iss: 'did:key:z\u0000bad\ud800',
      sub: holder.did,
      jti: 'urn:uuid:hostile',
      vc: {
        type: ['VerifiableCredential', 'UniversityDegree'],
        credentialSubject: { id: holder.did, 'given\u0000name': 'Gi\ud800' },
      },
    })
    const presentations: Array<{ presentation: Json; request: Json; expectValid: boolean }> = []
    for (const [credential, extraCredentials, expectValid] of [
      [good, [], true],
      [good, [], true],
      [revoked, [], false],
      [good, [hostile], false],
      [good, [], true],
    ] as const) {
      const created = await createRequest()
      const vp = signPresentation(holder, {
        aud: verifier.did,
        nonce: created.request.nonce,
        credentials: [credential.jwt, ...extraCredentials],
      })
      const approved = await answer(created, [credential], vp)
      assert.equal(approved.statusCode, 201, approved.body)
      presentations.push({ presentation: approved.json().presentation, request: created.request, expectValid })
    }
    assert.equal(
      (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${revoked.id}/revoke`, issuer.token))
        .statusCode,
      200,
    )
    // The first presentation three times more, all at once with the others: one batch or several.
    const jobs = [...presentations, presentations[0]!, presentations[0]!, presentations[0]!]
    const results = await Promise.all(jobs.map(async (job) => ({ job, result: await verify(job.presentation) })))
    for (const { job, result } of results) {
      assert.equal(result.verification_result.is_valid, job.expectValid, result.verification_result.errors.join('; '))
      assert.equal(result.status, job.expectValid ? 'verified' : 'failed')
      assert.equal(result.presentation.id, job.presentation.id)
    }
    const hostileResult = results.find(({ job }) => job === presentations[3])!.result
    const errors = hostileResult.verification_result.errors.join('; ')
    assert.match(errors, /issuer did:key:z\ufffdbad\ufffd did not sign it/)
    // JSON.stringify writes a NUL as \u0000 and a lone surrogate as \udXXX: neither is left.
    assert.doesNotMatch(JSON.stringify(hostileResult), /\\u0000|\\ud[89a-f]/i)
    assert.ok(
      hostileResult.verification_result.credential_subjects.some((c: Json) => c['given\ufffdname'] === 'Gi\ufffd'),
    )
    // What each answer shows is what is stored, request status included; for the presentation
    // verified four times at once, the stored outcome is one of its four answers.
    for (const { presentation, request, expectValid } of presentations) {
      const served = withoutJwt(
        (await callAs(t.app, 'GET', `/api/verifier/presentations/${presentation.id}`, verifierToken)).json()
          .presentation,
      )
      const answers = results
        .filter(({ job }) => job.presentation.id === presentation.id)
        .map(({ result }) => result.presentation)
      assert.ok(
        answers.some((a) => isDeepStrictEqual(a, served)),
        `stored ${presentation.id} is one of its answers`,
      )
      assert.equal(
        (await callAs(t.app, 'GET', `/api/verifier/requests/${request.id}`, verifierToken)).json().request.status,
        expectValid ? 'verified' : 'failed',
      )
    }
  })

  it('stores a batch of outcomes in one statement: the last per presentation and per request, each caller answered with its own; a missing presentation fails the batch', async () => {
    const credential = await issue({ given_name: 'Jo', gpa: 3.4 })
    const made: Array<{ presentation: Json; request: Json }> = []
    for (let i = 0; i < 4; i++) {
      const created = await createRequest()
      const approved = await answer(created, [credential])
      assert.equal(approved.statusCode, 201, approved.body)
      made.push({ presentation: approved.json().presentation, request: created.request })
    }
    const db = t.deps.database.db
    const read = async (id: string) => {
      const found = await findPresentationToVerify(db, id, (await stored(id)).jwt)
      return { ...found!.presentation, presentation_jwt: (await stored(id)).jwt }
    }
    const outcome = (status: 'verified' | 'failed', requestId: string, note: string, at: Date) => ({
      status,
      is_verified: status === 'verified',
      provided_attributes: ['given_name'],
      revoked_attributes: [],
      verification_result: { is_valid: status === 'verified', errors: status === 'verified' ? [] : [note] },
      consent_id: null,
      at,
      request_id: requestId,
    })
    const t0 = new Date('2026-11-24T10:00:00.000Z')
    const t1 = new Date('2026-11-24T10:00:01.000Z')
    const writes = [
      {
        read: await read(made[0]!.presentation.id),
        outcome: outcome('failed', made[0]!.request.id, 'first of two', t0),
      },
      ...(await Promise.all(
        made.slice(1).map(async (m) => ({
          read: await read(m.presentation.id),
          outcome: outcome('verified', m.request.id, '', t0),
        })),
      )),
      // The same presentation again, later in the batch: this one is stored.
      { read: await read(made[0]!.presentation.id), outcome: outcome('verified', made[0]!.request.id, '', t1) },
    ]
    const rows = await recordVerifications(db, writes)
    assert.equal(rows.length, 5)
    assert.deepEqual(
      rows.map((r) => r.status),
      ['failed', 'verified', 'verified', 'verified', 'verified'],
    )
    for (const { presentation, request } of made) {
      const served = (
        await callAs(t.app, 'GET', `/api/verifier/presentations/${presentation.id}`, verifierToken)
      ).json().presentation
      assert.equal(served.status, 'verified')
      assert.equal(
        (await callAs(t.app, 'GET', `/api/verifier/requests/${request.id}`, verifierToken)).json().request.status,
        'verified',
      )
    }
    const first = (
      await callAs(t.app, 'GET', `/api/verifier/presentations/${made[0]!.presentation.id}`, verifierToken)
    ).json().presentation
    assert.equal(first.verified_at, t1.toISOString())
    assert.deepEqual(first.verification_result, { is_valid: true, errors: [] })
    // A batch naming a presentation that does not exist is refused whole (the service then writes
    // its outcomes one by one, so only that one fails).
    const ghost = {
      read: { ...writes[1]!.read, id: 'pres-does-not-exist' },
      outcome: outcome('failed', made[1]!.request.id, 'ghost', t1),
    }
    await assert.rejects(recordVerifications(db, [ghost, ...writes.slice(1, 4)]), /pres-does-not-exist disappeared/)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/verifier/requests/${made[1]!.request.id}`, verifierToken)).json().request
        .status,
      'verified',
      'nothing of the refused batch stayed',
    )
  })

  it("refuses at approval what the holder can fix: wrong nonce, wrong audience, credentials not in its wallet, someone else's credential", async () => {
    const mine = await issue({ given_name: 'Cy', gpa: 3.9 })
    const theirs = await issue({ given_name: 'Di', gpa: 3.9 }, stranger.did)
    const created = await createRequest()
    await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: created.request.id })
    const url = `/api/wallet/presentation-requests/${created.request.id}/approve`
    const vp = (claims: Json) =>
      signPresentation(holder, { aud: verifier.did, nonce: created.request.nonce, credentials: [mine.jwt], ...claims })
    const wrongNonce = await callAs(t.app, 'POST', url, holderToken, {
      credential_ids: [mine.id],
      presentation_jwt: vp({ nonce: 'not-the-nonce' }),
    })
    assert.equal(wrongNonce.statusCode, 400)
    assert.match(wrongNonce.json().message, /nonce/)
    const wrongAudience = await callAs(t.app, 'POST', url, holderToken, {
      credential_ids: [mine.id],
      presentation_jwt: vp({ aud: stranger.did }),
    })
    assert.equal(wrongAudience.statusCode, 400)
    assert.match(wrongAudience.json().message, /aud/)
    const foreign = await callAs(t.app, 'POST', url, holderToken, {
      credential_ids: [theirs.id],
      presentation_jwt: vp({}),
    })
    assert.equal(foreign.statusCode, 400)
    assert.deepEqual(foreign.json().details.missing, [theirs.id])
    // Still pending after refusals: the real answer goes through, and a second answer is 409.
    assert.equal(
      (await callAs(t.app, 'POST', url, holderToken, { credential_ids: [mine.id], presentation_jwt: vp({}) }))
        .statusCode,
      201,
    )
    assert.equal(
      (await callAs(t.app, 'POST', url, holderToken, { credential_ids: [mine.id], presentation_jwt: vp({}) }))
        .statusCode,
      409,
    )
    assert.equal(
      (await callAs(t.app, 'POST', `/api/wallet/presentation-requests/${created.request.id}/reject`, holderToken, {}))
        .statusCode,
      409,
    )
  })

  it('answers a request exactly once under concurrent approvals', async () => {
    const credential = await issue({ given_name: 'Ed', gpa: 3.1 })
    const created = await createRequest()
    await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: created.request.id })
    const body = {
      credential_ids: [credential.id],
      presentation_jwt: signPresentation(holder, {
        aud: verifier.did,
        nonce: created.request.nonce,
        credentials: [credential.jwt],
      }),
    }
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        callAs(t.app, 'POST', `/api/wallet/presentation-requests/${created.request.id}/approve`, holderToken, body),
      ),
    )
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409])
    const count = await t.deps.database.db
      .selectFrom('presentations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('request_id', '=', created.request.id)
      .executeTakeFirstOrThrow()
    assert.equal(Number(count.n), 1)
  })

  it('rejects: a request addressed to the holder is closed and the status says so', async () => {
    const created = await createRequest({ holder_did: holder.did })
    await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: created.request.id })
    const rejected = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${created.request.id}/reject`,
      holderToken,
      { reason: 'Not today' },
    )
    assert.equal(rejected.statusCode, 200, rejected.body)
    const status = (
      await callAs(t.app, 'GET', `/api/wallet/presentation-requests/${created.request.id}/status`, holderToken)
    ).json()
    assert.equal(status.status, 'rejected')
    assert.equal(status.reason, 'Not today')
    assert.equal(status.request_status, 'rejected')
    const read = await callAs(t.app, 'GET', `/api/verifier/requests/${created.request.id}`, verifierToken)
    assert.equal(read.json().request.status, 'rejected')
    // A closed request cannot be taken into another inbox.
    const open = await createRequest()
    const approved = await answer(open, [await issue({ given_name: 'Ivo', gpa: 3.3 })])
    assert.equal(approved.statusCode, 201, approved.body)
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', strangerToken, { request_id: open.request.id }))
        .statusCode,
      409,
    )
  })

  it("keeps other people's requests and presentations out, and refuses bad bodies", async () => {
    const credential = await issue({ given_name: 'Fay', gpa: 3.3 })
    const created = await createRequest()
    const approved = await answer(created, [credential])
    const id = approved.json().presentation.id
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/presentations/${id}`, strangerToken)).statusCode, 404)
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/presentations/${id}`, holderToken)).statusCode, 200)
    assert.equal(
      (
        await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, strangerToken, {
          presentation_jwt: (await stored(id)).jwt,
        })
      ).statusCode,
      404,
    )
    assert.equal(
      (
        await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, holderToken, {
          presentation_jwt: (await stored(id)).jwt,
        })
      ).statusCode,
      404,
    )
    assert.equal(
      (await callAs(t.app, 'GET', `/api/wallet/presentation-requests/${created.request.id}/status`, strangerToken))
        .statusCode,
      404,
    )
    assert.equal(
      (await callAs(t.app, 'GET', `/api/verifier/${verifier.did}/presentations`, strangerToken)).statusCode,
      403,
    )
    assert.equal((await callAs(t.app, 'GET', `/api/wallet/${holder.did}/presentations`, strangerToken)).statusCode, 403)
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: 'presreq-unknown' }))
        .statusCode,
      404,
    )
    assert.equal(
      (
        await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, {
          qr_code_data: '{"type":"credential-offer"}',
        })
      ).statusCode,
      400,
    )
    for (const bad of [{}, { request_id: 5 }, { request_id: 'a', qr_code_data: 'b' }]) {
      assert.equal(
        (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, bad)).statusCode,
        400,
        JSON.stringify(bad),
      )
    }
    const approveUrl = `/api/wallet/presentation-requests/${created.request.id}/approve`
    for (const bad of [
      {},
      { credential_ids: [], presentation_jwt: 'a.b.c' },
      { credential_ids: ['x'], presentation_jwt: 'not a jwt' },
      { credential_ids: 'x', presentation_jwt: 'a.b.c' },
    ]) {
      assert.equal((await callAs(t.app, 'POST', approveUrl, holderToken, bad)).statusCode, 400, JSON.stringify(bad))
    }
    assert.equal(
      (
        await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, verifierToken, {
          presentation_jwt: 'a.b.c',
        })
      ).statusCode,
      400,
    )
    assert.equal(
      (await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`, verifierToken, {})).statusCode,
      400,
    )
    assert.equal((await callAs(t.app, 'POST', `/api/verifier/presentations/${id}/verify`)).statusCode, 401)
  })

  it('takes direct submissions from the holder or the verifier, nobody else; a wrong nonce then fails verification', async () => {
    const credential = await issue({ given_name: 'Gus', gpa: 3.4 })
    const created = await createRequest()
    const vp = signPresentation(holder, { aud: verifier.did, nonce: 'wrong-nonce', credentials: [credential.jwt] })
    assert.equal(
      (
        await callAs(t.app, 'POST', '/api/verifier/presentations', strangerToken, {
          presentation_jwt: vp,
          request_id: created.request.id,
        })
      ).statusCode,
      403,
    )
    const submitted = await callAs(t.app, 'POST', '/api/verifier/presentations', verifierToken, {
      presentation_jwt: vp,
      request_id: created.request.id,
    })
    assert.equal(submitted.statusCode, 201, submitted.body)
    assert.deepEqual(submitted.json().presentation.credential_ids, [credential.id])
    const result = await verify(submitted.json().presentation)
    assert.equal(result.verification_result.is_valid, false)
    assert.ok(result.verification_result.errors.some((e: string) => /nonce/.test(e)))
    // Without a request: the holder submits, and it verifies on its own merits.
    const direct = await callAs(t.app, 'POST', '/api/verifier/presentations', holderToken, {
      presentation_jwt: signPresentation(holder, { aud: verifier.did, nonce: 'n-1', credentials: [credential.jwt] }),
    })
    assert.equal(direct.statusCode, 201, direct.body)
    assert.equal((await verify(direct.json().presentation)).verification_result.is_valid, true)
  })

  it('tells a verifier the public facts of a credential by the CID of its stored material', async () => {
    const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Hal', gpa: 3 },
    })
    const { ipfs_hash: cid, credential } = res.json().credential
    const found = await callAs(t.app, 'GET', `/api/verifier/verify/ipfs/${cid}`, verifierToken)
    assert.equal(found.statusCode, 200, found.body)
    assert.equal(found.json().valid, true)
    assert.equal(found.json().stored, true)
    assert.equal(found.json().credential.id, credential.id)
    assert.equal(found.json().credential.issuer_did, issuer.did)
    assert.ok(!found.body.includes('Hal'), 'no attribute value')
    assert.ok(!found.body.includes(holder.did), 'no holder')
    await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`, issuer.token)
    const revoked = (await callAs(t.app, 'GET', `/api/verifier/verify/ipfs/${cid}`, verifierToken)).json()
    assert.equal(revoked.valid, false)
    assert.equal(revoked.credential.status, 'revoked')
    assert.equal(
      (
        await callAs(
          t.app,
          'GET',
          '/api/verifier/verify/ipfs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
          verifierToken,
        )
      ).statusCode,
      404,
    )
    assert.equal((await callAs(t.app, 'GET', '/api/verifier/verify/ipfs/not-a-cid', verifierToken)).statusCode, 400)
    assert.equal((await callAs(t.app, 'GET', `/api/verifier/verify/ipfs/${cid}`)).statusCode, 401)
  })
})
