/**
 * The service's own state changes anchored on a real dev chain: a schema created, a credential
 * issued and then revoked, a consent granted and revoked, each through its ordinary HTTP route,
 * end with the record's on_chain true and the public check routes reading the registries.
 * Real parts: the app over inject(), the database (per the runner), the chain outbox on real
 * timers, viem over HTTP to an EDR dev chain started here.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Deployment } from '../../src/adapters/chain/deploy.js'
import type { DevChain } from '../../scripts/lib/dev-chain.js'
import { chainEnv, startChainWithRegistries, waitFor } from '../helpers/chain.js'
import { DidClient } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { insertConsent } from '../../src/modules/consent/consent.repository.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

describe('records anchored by the routes that change them', () => {
  let chain: DevChain
  let deployment: Deployment
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  let holderToken: string
  let verifierToken: string

  before(async () => {
    ;({ chain, deployment } = await startChainWithRegistries())
    t = await createTestApp({
      env: chainEnv(chain, deployment, 0, { BLOCKCHAIN_POLL_MS: '50', BLOCKCHAIN_BATCH_WAIT_MS: '100' }),
    })
    await issuer.setUp(t.app, 'Anchored University')
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
  })
  after(async () => {
    await t?.close()
    await chain?.stop()
  })

  const db = () => t.deps.database.db
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  /** The holder flow from the verifier's request to its verification; answers the verify body and the presentation id. */
  const presentAndVerify = async (
    to: { did: string; token: string },
    credential: { id: string; jwt: string },
    requested: { presentation_type: string; purpose: string; credential_type: string },
  ) => {
    const request = await callAs(t.app, 'POST', '/api/verifier/requests', to.token, {
      verifier_did: to.did,
      presentation_type: requested.presentation_type,
      purpose: requested.purpose,
      required_credentials: [{ credential_type: requested.credential_type }],
    })
    assert.equal(request.statusCode, 201, request.body)
    const { id: requestId, nonce } = request.json().request
    assert.equal(
      (await callAs(t.app, 'POST', '/api/wallet/presentation-requests', holderToken, { request_id: requestId }))
        .statusCode,
      201,
    )
    const vp = signPresentation(holder, { aud: to.did, nonce, credentials: [credential.jwt] })
    const approved = await callAs(
      t.app,
      'POST',
      `/api/wallet/presentation-requests/${requestId}/approve`,
      holderToken,
      { credential_ids: [credential.id], presentation_jwt: vp },
    )
    assert.equal(approved.statusCode, 201, approved.body)
    const presentationId: string = approved.json().presentation.id
    const verified = await callAs(t.app, 'POST', `/api/verifier/presentations/${presentationId}/verify`, to.token, {
      presentation_jwt: vp,
    })
    assert.equal(verified.statusCode, 200, verified.body)
    return { ...verified.json(), presentationId }
  }

  it('anchors a new schema, an issued credential and its revocation', async () => {
    const schemaId = await issuer.schema(t.app, {
      name: 'Degree',
      version: '1.0',
      attributes: [{ name: 'given_name', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    await waitFor(
      'the schema mined',
      async () =>
        (
          await db()
            .selectFrom('credential_schemas')
            .select('on_chain')
            .where('id', '=', schemaId)
            .executeTakeFirstOrThrow()
        ).on_chain,
    )
    const schema = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/schemas/${schemaId}`, issuer.token)
    assert.equal(schema.json().schema.on_chain, true, schema.body)
    assert.match(schema.json().schema.blockchain_tx, /^0x[0-9a-f]{64}$/)

    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'UniversityDegree',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { given_name: 'Ada' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const credential = issued.json().credential
    const checkUrl = `/api/blockchain/credential/check/${encodeURIComponent(issuer.did)}/${credential.credential_hash}`
    await waitFor(
      'the credential batch mined',
      async () =>
        (
          await db()
            .selectFrom('credentials')
            .select('on_chain')
            .where('id', '=', credential.id)
            .executeTakeFirstOrThrow()
        ).on_chain,
    )
    const onChain = await get(checkUrl)
    assert.equal(onChain.on_chain, true)
    assert.equal(onChain.revoked, false)
    assert.equal(onChain.chain.verified_on_chain, true)
    const record = await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/credentials/${credential.id}`, issuer.token)
    assert.equal(record.json().credential.on_chain, true, record.body)
    assert.match(record.json().credential.blockchain_tx_hash, /^0x[0-9a-f]{64}$/)

    // A verifier's verification now reads the registry: on chain, not revoked, verified live.
    const degreeCheck = () =>
      presentAndVerify({ did: verifier.did, token: verifierToken }, credential, {
        presentation_type: 'DegreeCheck',
        purpose: 'Hiring',
        credential_type: 'UniversityDegree',
      })
    const anchoredResult = await degreeCheck()
    assert.equal(
      anchoredResult.verification_result.is_valid,
      true,
      anchoredResult.verification_result.errors.join('; '),
    )
    assert.deepEqual(anchoredResult.blockchain_verification, { on_chain: true, revoked: false, verified: true })

    const revoked = await callAs(
      t.app,
      'POST',
      `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`,
      issuer.token,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    await waitFor('the revocation mined', async () => (await get(checkUrl)).revocation?.anchoring === 'mined')
    const after = await get(checkUrl)
    assert.equal(after.revoked, true)
    assert.equal(after.chain.verified_on_chain, true)
    const revokedResult = await degreeCheck()
    assert.equal(revokedResult.verification_result.is_valid, false)
    assert.deepEqual(revokedResult.blockchain_verification, { on_chain: true, revoked: true, verified: false })
    await waitFor(
      'revocation_blockchain_tx set',
      async () =>
        (
          await db()
            .selectFrom('credentials')
            .select('revocation_blockchain_tx')
            .where('id', '=', credential.id)
            .executeTakeFirstOrThrow()
        ).revocation_blockchain_tx !== null,
    )
    // Revoking again changes nothing and queues nothing.
    const jobs = async () =>
      (await db().selectFrom('chain_jobs').select('id').where('kind', '=', 'credential-revoke').execute()).length
    const before = await jobs()
    assert.equal(
      (await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/credentials/${credential.id}/revoke`, issuer.token))
        .statusCode,
      200,
    )
    assert.equal(await jobs(), before)
  })

  it('anchors a consent grant and its revocation as salted hashes', async () => {
    const granted = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holderToken, {
      verifier_did: verifier.did,
      purpose: 'Hiring',
    })
    assert.equal(granted.statusCode, 201, granted.body)
    const consentId = granted.json().consent.id
    const checkUrl = `/api/blockchain/consent/check/${encodeURIComponent(holder.did)}/${encodeURIComponent(verifier.did)}/Hiring`
    await waitFor(
      'the grant mined',
      async () =>
        (await db().selectFrom('consents').select('on_chain').where('id', '=', consentId).executeTakeFirstOrThrow())
          .on_chain,
    )
    assert.equal((await get(checkUrl)).valid, true)
    const revoked = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents/${consentId}/revoke`, holderToken)
    assert.equal(revoked.statusCode, 200, revoked.body)
    await waitFor('the revocation mined', async () => (await get(checkUrl)).revoked === true)
    assert.equal((await get(checkUrl)).valid, false)
    const activities = await callAs(t.app, 'GET', `/api/wallet/${holder.did}/activities?order=asc`, holderToken)
    const types = activities.json().data.map((a: { type: string }) => a.type)
    assert.ok(types.includes('consent_granted') && types.includes('consent_revoked'), types.join(', '))
  })

  // The chain holds one key per (holder, verifier, purpose); the holder may hold several consents of it.
  it("records what a triple's consents allow together: revoking one of two leaves the triple granted", async () => {
    const other = new DidClient()
    const checkUrl = `/api/blockchain/consent/check/${encodeURIComponent(holder.did)}/${encodeURIComponent(other.did)}/Audit`
    const grant = async (body: Record<string, unknown>) => {
      const res = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holderToken, {
        verifier_did: other.did,
        purpose: 'Audit',
        ...body,
      })
      assert.equal(res.statusCode, 201, res.body)
      const id: string = res.json().consent.id
      await waitFor(
        `consent ${id} mined`,
        async () =>
          (await db().selectFrom('consents').select('on_chain').where('id', '=', id).executeTakeFirstOrThrow())
            .on_chain,
      )
      return id
    }
    const revoke = async (id: string) =>
      assert.equal(
        (await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents/${id}/revoke`, holderToken)).statusCode,
        200,
      )
    const standing = await grant({})
    const until = new Date(Date.now() + 2 * 86_400_000)
    until.setUTCMilliseconds(0)
    const dated = await grant({ expiration_policy: 'fixed_date', expires_at: until.toISOString() })
    // The standing consent has no end: the dated one must not shorten the triple's.
    assert.deepEqual(pick(await get(checkUrl)), { valid: true, revoked: false, expires_at: null })

    await revoke(standing)
    await waitFor(
      'the triple now ends with the dated consent',
      async () => (await get(checkUrl)).expires_at === until.toISOString(),
    )
    assert.deepEqual(pick(await get(checkUrl)), { valid: true, revoked: false, expires_at: until.toISOString() })

    await revoke(dated)
    await waitFor('the triple revoked', async () => (await get(checkUrl)).revoked === true)
    assert.equal((await get(checkUrl)).valid, false)
    const jobs = async () =>
      (
        await db()
          .selectFrom('chain_jobs')
          .select('id')
          .where('kind', 'in', ['consent-grant', 'consent-revoke'])
          .execute()
      ).length
    const before = await jobs()
    await revoke(dated)
    assert.equal(await jobs(), before, 'revoking again queues nothing')

    // A consent granted again after the revocation grants the triple again.
    await grant({})
    await waitFor('the triple granted again', async () => (await get(checkUrl)).valid === true)
  })

  it('revokes the triple when its last two consents are revoked at the same time', async () => {
    const other = new DidClient()
    const checkUrl = `/api/blockchain/consent/check/${encodeURIComponent(holder.did)}/${encodeURIComponent(other.did)}/Payroll`
    const ids: string[] = []
    for (let i = 0; i < 2; i++) {
      const res = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holderToken, {
        verifier_did: other.did,
        purpose: 'Payroll',
      })
      assert.equal(res.statusCode, 201, res.body)
      ids.push(res.json().consent.id)
    }
    await waitFor('the triple granted', async () => (await get(checkUrl)).valid === true)
    // Each revocation alone sees the other consent still live; only one after the other do they see none.
    const answers = await Promise.all(
      ids.map((id) => callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents/${id}/revoke`, holderToken)),
    )
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [200, 200],
    )
    await waitFor('the triple revoked', async () => (await get(checkUrl)).revoked === true)
  })

  it('revokes the triple on chain when its one-time consent is used by a verification', async () => {
    const onceVerifier = new DidClient()
    const onceToken = await onceVerifier.login(t.app)
    const granted = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holderToken, {
      verifier_did: onceVerifier.did,
      purpose: 'Onboarding',
      expiration_policy: 'one_time_use',
    })
    assert.equal(granted.statusCode, 201, granted.body)
    const consentId: string = granted.json().consent.id
    const checkUrl = `/api/blockchain/consent/check/${encodeURIComponent(holder.did)}/${encodeURIComponent(onceVerifier.did)}/Onboarding`
    await waitFor('the one-time grant mined', async () => (await get(checkUrl)).valid === true)

    const schemaId = await issuer.schema(t.app, {
      name: 'Badge',
      version: '1.0',
      attributes: [{ name: 'level', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Badge',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { level: 'gold' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const credential = issued.json().credential
    const verified = await presentAndVerify({ did: onceVerifier.did, token: onceToken }, credential, {
      presentation_type: 'BadgeCheck',
      purpose: 'Onboarding',
      credential_type: 'Badge',
    })
    assert.equal(verified.verification_result.is_valid, true, JSON.stringify(verified))
    assert.equal(verified.consent_valid, true)

    const used = await db()
      .selectFrom('consents')
      .select('used_by')
      .where('id', '=', consentId)
      .executeTakeFirstOrThrow()
    assert.equal(used.used_by, verified.presentationId)
    await waitFor('the used one-time consent revoked on chain', async () => (await get(checkUrl)).revoked === true)
    assert.equal((await get(checkUrl)).valid, false)
  })

  it('answers the check route per purpose: a verification for another purpose leaves the triple granted', async () => {
    const v = new DidClient()
    const vToken = await v.login(t.app)
    const granted = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/consents`, holderToken, {
      verifier_did: v.did,
      purpose: 'Onboarding',
      expiration_policy: 'one_time_use',
    })
    assert.equal(granted.statusCode, 201, granted.body)
    const consentId: string = granted.json().consent.id
    const checkUrl = (purpose: string) =>
      `/api/blockchain/consent/check/${encodeURIComponent(holder.did)}/${encodeURIComponent(v.did)}/${encodeURIComponent(purpose)}`
    await waitFor('the one-time grant mined', async () => (await get(checkUrl('Onboarding'))).valid === true)

    const schemaId = await issuer.schema(t.app, {
      name: 'Pass',
      version: '1.0',
      attributes: [{ name: 'level', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Pass',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { level: 'gold' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const revocations = async () =>
      (await db().selectFrom('chain_jobs').select('id').where('kind', '=', 'consent-revoke').execute()).length
    const before = await revocations()
    const verified = await presentAndVerify({ did: v.did, token: vToken }, issued.json().credential, {
      presentation_type: 'PassCheck',
      purpose: 'Marketing',
      credential_type: 'Pass',
    })
    assert.equal(verified.verification_result.is_valid, true, JSON.stringify(verified.verification_result.errors))
    assert.equal(verified.consent_valid, false)

    // The Onboarding consent was not spent, so nothing was queued for its triple.
    assert.equal(
      (await db().selectFrom('consents').select('used_by').where('id', '=', consentId).executeTakeFirstOrThrow())
        .used_by,
      null,
    )
    assert.equal(await revocations(), before)
    assert.deepEqual(pick(await get(checkUrl('Onboarding'))), { valid: true, revoked: false, expires_at: null })
    // The purpose verified has no consent, on chain or off.
    assert.equal((await t.app.inject({ method: 'GET', url: checkUrl('Marketing') })).statusCode, 404)
  })

  it('sends no revocation for a consent the chain never recorded', async () => {
    // Granted before a chain was configured: a revocation would revert (NotGranted) and fail.
    const now = new Date()
    const unrecorded = await insertConsent(db(), {
      id: `consent-${crypto.randomUUID()}`,
      holder_did: holder.did,
      verifier_did: new DidClient().did,
      purpose: 'Before the chain',
      data_categories: [],
      access_level: 'read_only',
      expiration_policy: 'indefinite',
      expires_at: null,
      revoked_at: null,
      used_at: null,
      used_by: null,
      created_at: now,
      updated_at: now,
    })
    const revokes = async () =>
      (await db().selectFrom('chain_jobs').select('id').where('kind', '=', 'consent-revoke').execute()).length
    const before = await revokes()
    const revoked = await callAs(
      t.app,
      'POST',
      `/api/wallet/${holder.did}/consents/${unrecorded.id}/revoke`,
      holderToken,
    )
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.equal(revoked.json().consent.revoked, true)
    assert.equal(await revokes(), before)
  })
})

const pick = (view: { valid: boolean; revoked: boolean; expires_at: string | null }) => ({
  valid: view.valid,
  revoked: view.revoked,
  expires_at: view.expires_at,
})
