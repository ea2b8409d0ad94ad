/**
 * What the crash test (test/process/crash-safety.test.ts) checks after the restart, against the
 * database (read directly, the server stopped), the chain and the webhook receiver.
 */
import assert from 'node:assert/strict'
import { createLocalJWKSet, flattenedVerify, type JSONWebKeySet } from 'jose'
import { sql, type Kysely } from 'kysely'
import type { Hex } from 'viem'
import type { DevChain } from '../../scripts/lib/dev-chain.js'
import type { Deployment } from '../../src/adapters/chain/deploy.js'
import { consentRegistryAbi, credentialRegistryAbi, schemaRegistryAbi } from '../../src/adapters/chain/registry-abis.js'
import type { DB } from '../../src/db/database.js'
import { viemClients } from './chain.js'
import type { Api, Answered, Json, World } from './crash-load.js'
import type { Delivery } from './held-endpoints.js'

const num = (v: unknown) => Number(v)
/** Request statuses of a request answered with a presentation: it takes on the presentation's status. */
const ANSWERED = new Set(['submitted', 'verified', 'failed'])

/** Events the public API says must exist (answered requests, verified presentations) that the receiver has not had yet. */
export async function missingEvents(api: Api, world: World, deliveries: Delivery[]): Promise<string[]> {
  const requests = await api.all(`/api/verifier/${world.verifier.did}/requests`, world.verifier.token)
  const presentations = await api.all(
    `/api/verifier/${world.verifier.did}/presentations`,
    world.verifier.token,
    'presentations',
  )
  const expected: Array<[string, string, string]> = []
  for (const r of requests) {
    if (ANSWERED.has(r.status)) expected.push(['presentation.submitted', 'request_id', r.id])
    if (r.status === 'rejected') expected.push(['presentation.rejected', 'request_id', r.id])
  }
  for (const p of presentations) {
    if (p.status === 'verified' || p.status === 'failed')
      expected.push([`presentation.${p.status}`, 'presentation_id', p.id])
  }
  return expected
    .filter(([type, field, id]) => !deliveries.some((d) => d.type === type && d.event.data[field] === id))
    .map(([type, , id]) => `${type} ${id}`)
}

/** Every 2xx answer is there, in the state it answered. */
export async function checkAnswered(db: Kysely<DB>, answered: Answered): Promise<void> {
  const credentials = new Map(
    (
      await db
        .selectFrom('credentials')
        .select(['id', 'status', 'owner_did', 'credential_hash', 'revoked_at'])
        .execute()
    ).map((c) => [c.id, c]),
  )
  const revokedIds = new Set(answered.revoked.map((r) => r.id))
  for (const issued of answered.issued) {
    const row = credentials.get(issued.id)
    assert.ok(row, `issued credential ${issued.id} is there`)
    assert.equal(row.owner_did, issued.holder)
    assert.equal(row.credential_hash, issued.hash)
    if (revokedIds.has(issued.id)) assert.equal(row.status, 'revoked', issued.id)
    // A revocation the kill cut off may or may not have committed; nothing else revokes.
    else if (answered.revokeAsked.includes(issued.id))
      assert.ok(row.status === 'active' || row.status === 'revoked', issued.id)
    else assert.equal(row.status, 'active', issued.id)
  }
  for (const revoked of answered.revoked) {
    const row = credentials.get(revoked.id)!
    assert.equal(row.status, 'revoked')
    assert.equal(new Date(row.revoked_at!).toISOString(), revoked.revoked_at)
  }
  const consents = new Map(
    (await db.selectFrom('consents').select(['id', 'holder_did', 'revoked', 'revoked_at']).execute()).map((c) => [
      c.id,
      c,
    ]),
  )
  const consentRevoked = new Map(answered.consentRevoked.map((c) => [c.id, c.revoked_at]))
  for (const granted of answered.granted) {
    const row = consents.get(granted.id)
    assert.ok(row, `granted consent ${granted.id} is there`)
    assert.equal(row.holder_did, granted.holder)
    if (consentRevoked.has(granted.id)) {
      assert.equal(row.revoked, true)
      assert.equal(new Date(row.revoked_at!).toISOString(), consentRevoked.get(granted.id))
    }
  }
  const requests = new Map(
    (await db.selectFrom('presentation_requests').select(['id', 'status']).execute()).map((r) => [r.id, r.status]),
  )
  for (const id of answered.requests) assert.ok(requests.has(id), `request ${id} is there`)
  const presentations = new Map(
    (await db.selectFrom('presentations').select(['id', 'request_id', 'status']).execute()).map((p) => [p.id, p]),
  )
  for (const a of answered.approved) {
    const presentation = presentations.get(a.presentation)
    assert.equal(presentation?.request_id, a.request, `presentation ${a.presentation} is there`)
    assert.equal(requests.get(a.request), presentation.status, 'the request follows its presentation')
  }
  for (const id of answered.rejected) assert.equal(requests.get(id), 'rejected')
  for (const v of answered.verified) assert.equal(presentations.get(v.presentation)?.status, v.status)
  assert.ok(
    answered.issued.length &&
      answered.revoked.length &&
      answered.granted.length &&
      answered.consentRevoked.length &&
      answered.approved.length &&
      answered.rejected.length &&
      answered.verified.length,
    'every kind of change got 2xx answers',
  )
}

/** Every record, answered or cut off in flight, is whole: all its parts or none. */
export async function checkWhole(db: Kysely<DB>): Promise<void> {
  const credentials = await sql<Json>`
    select c.id, c.status, c.owner_did, c.revoked_at, c.on_chain,
      get_bit(s.bits, (c.status_list_index & ~7) + (7 - (c.status_list_index & 7))) as bit,
      (select count(*) from wallet_activities a where a.credential_id = c.id and a.type = 'credential_received') as received,
      (select count(*) from chain_credentials l where l.credential_id = c.id) as leaves,
      (select count(*) from chain_credentials l join chain_jobs b on b.id = l.batch_job_id where l.credential_id = c.id and b.status = 'mined') as mined_leaves,
      (select count(*) from chain_jobs j where j.kind = 'credential-revoke' and j.subject_id = c.id) as revoke_jobs
    from credentials c join status_lists s on s.id = c.status_list_id`.execute(db)
  assert.ok(credentials.rows.length > 0)
  for (const c of credentials.rows) {
    const revoked = c.status === 'revoked'
    assert.equal(num(c.received), c.owner_did ? 1 : 0, `${c.id}: one credential_received activity`)
    assert.equal(num(c.leaves), 1, `${c.id}: one chain leaf`)
    assert.equal(num(c.mined_leaves), 1, `${c.id}: its batch is mined`)
    assert.equal(c.on_chain, true, `${c.id}: on_chain`)
    assert.equal(num(c.bit), revoked ? 1 : 0, `${c.id}: status bit matches ${c.status}`)
    assert.equal(num(c.revoke_jobs), revoked ? 1 : 0, `${c.id}: chain revocation jobs`)
    assert.equal(c.revoked_at !== null, revoked)
  }
  const shared =
    await sql<Json>`select status_list_id, status_list_index from credentials group by 1, 2 having count(*) > 1`.execute(
      db,
    )
  assert.deepEqual(shared.rows, [], 'no status-list slot is used twice')

  const consents = await sql<Json>`
    select c.id, c.revoked, c.on_chain,
      (select count(*) from wallet_activities a where a.type = 'consent_granted' and a.details->>'consent_id' = c.id) as granted_entries,
      (select count(*) from wallet_activities a where a.type = 'consent_revoked' and a.details->>'consent_id' = c.id) as revoked_entries,
      (select count(*) from chain_jobs j where j.kind = 'consent-grant' and j.subject_id = c.id) as grant_jobs,
      (select count(*) from chain_jobs j where j.kind = 'consent-revoke' and j.subject_id = c.id) as revoke_jobs
    from consents c`.execute(db)
  assert.ok(consents.rows.length > 0)
  for (const c of consents.rows) {
    assert.equal(num(c.granted_entries), 1, `${c.id}: one consent_granted activity`)
    assert.equal(num(c.grant_jobs), 1, `${c.id}: one grant job`)
    assert.equal(c.on_chain, true, `${c.id}: on_chain`)
    assert.equal(num(c.revoked_entries), c.revoked ? 1 : 0, `${c.id}: consent_revoked activities`)
    assert.equal(num(c.revoke_jobs), c.revoked ? 1 : 0, `${c.id}: revoke jobs`)
  }

  const requests = await sql<Json>`
    select r.id, r.status,
      (select count(*) from presentations p where p.request_id = r.id) as presentations,
      (select count(*) from presentations p where p.request_id = r.id and p.status = r.status) as same_status,
      (select count(*) from holder_inbox i where i.request_id = r.id and i.status = 'approved' and i.presentation_id is not null) as approved,
      (select count(*) from holder_inbox i where i.request_id = r.id and i.status = 'rejected') as rejected,
      (select count(*) from callback_outbox o where o.payload->>'request_id' = r.id and o.event_type = 'presentation.submitted') as submitted_events,
      (select count(*) from callback_outbox o where o.payload->>'request_id' = r.id and o.event_type = 'presentation.rejected') as rejected_events,
      (select count(*) from wallet_activities a where a.type = 'presentation_submitted' and a.details->>'request_id' = r.id) as submitted_entries,
      (select count(*) from wallet_activities a where a.type = 'presentation_rejected' and a.details->>'request_id' = r.id) as rejected_entries
    from presentation_requests r`.execute(db)
  for (const r of requests.rows) {
    const parts = [
      r.presentations,
      r.same_status,
      r.approved,
      r.submitted_events,
      r.submitted_entries,
      r.rejected,
      r.rejected_events,
      r.rejected_entries,
    ].map(num)
    const expected = ANSWERED.has(r.status)
      ? [1, 1, 1, 1, 1, 0, 0, 0]
      : r.status === 'rejected'
        ? [0, 0, 0, 0, 0, 1, 1, 1]
        : [0, 0, 0, 0, 0, 0, 0, 0]
    assert.deepEqual(parts, expected, `request ${r.id} (${r.status}): presentation, inbox, events and activities`)
  }

  const presentations = await sql<Json>`
    select p.id, p.status,
      (select count(*) from callback_outbox o where o.payload->>'presentation_id' = p.id and o.event_type = 'presentation.verified') as verified_events,
      (select count(*) from callback_outbox o where o.payload->>'presentation_id' = p.id and o.event_type = 'presentation.failed') as failed_events
    from presentations p`.execute(db)
  for (const p of presentations.rows) {
    const expected = p.status === 'verified' ? [1, 0] : p.status === 'failed' ? [0, 1] : [0, 0]
    assert.deepEqual(
      [num(p.verified_events), num(p.failed_events)],
      expected,
      `presentation ${p.id} (${p.status}): its verification event`,
    )
  }
}

/**
 * Every event was delivered, at least once; a redelivery is the same event (id and body bytes),
 * signed again; nothing reached the receiver that the outbox does not hold (no event of a
 * transaction that did not commit).
 */
export async function checkCallbacks(
  db: Kysely<DB>,
  deliveries: Delivery[],
  heldAtKill: string[],
  jwks: JSONWebKeySet,
): Promise<void> {
  const rows = await db.selectFrom('callback_outbox').select(['event_id', 'event_type', 'status', 'attempts']).execute()
  assert.ok(rows.length > 0)
  assert.deepEqual(
    rows.filter((r) => r.status !== 'delivered').map((r) => `${r.event_id} ${r.status}`),
    [],
    'every callback delivered',
  )
  const byId = new Map<string, Delivery[]>()
  for (const d of deliveries) byId.set(d.eventId, [...(byId.get(d.eventId) ?? []), d])
  for (const r of rows) assert.ok(byId.has(r.event_id), `event ${r.event_id} reached the receiver`)
  const known = new Set(rows.map((r) => r.event_id))
  assert.deepEqual(
    [...byId.keys()].filter((id) => !known.has(id)),
    [],
    'the receiver got no event the outbox does not hold',
  )
  const keys = createLocalJWKSet(jwks)
  for (const [id, copies] of byId) {
    for (const d of copies) {
      assert.equal(d.event.id, id)
      const [protectedHeader, , signature] = d.signature.split('.') as [string, string, string]
      await flattenedVerify({ protected: protectedHeader, payload: d.body.toString('base64url'), signature }, keys, {
        algorithms: ['EdDSA'],
      })
      assert.ok(d.body.equals(copies[0]!.body), `a redelivery of ${id} carries the same body`)
    }
  }
  // The events whose 204 the receiver held when the server died came again after the restart.
  for (const id of heldAtKill) {
    const copies = byId.get(id)!
    assert.ok(copies.length >= 2, `event ${id}, received as the server died, was delivered again`)
    assert.ok(copies.at(-1)!.attempt > copies[0]!.attempt, 'with a later attempt number')
    assert.ok(rows.find((r) => r.event_id === id)!.attempts >= 2)
  }
}

/** Every chain job mined; each registry write on chain exactly once; the transaction in doubt at the kill was sent again as a no-op. */
export async function checkChain(
  db: Kysely<DB>,
  chain: DevChain,
  deployment: Deployment,
  keyIndex: number,
  heldAtKill: string[],
): Promise<void> {
  const jobs = (
    await db.selectFrom('chain_jobs').select(['id', 'kind', 'payload', 'status', 'attempts', 'tx_hash']).execute()
  ).map((j) => ({ ...j, payload: (typeof j.payload === 'string' ? JSON.parse(j.payload) : j.payload) as Json }))
  assert.deepEqual(
    jobs.filter((j) => j.status !== 'mined').map((j) => `${j.id} ${j.kind} ${j.status}`),
    [],
    'every chain job mined',
  )
  const { publicClient, account } = viemClients(chain, keyIndex)
  const registrant = account.address
  const { credentialRegistry, consentRegistry, schemaRegistry } = deployment.contracts
  const batches = await publicClient.getContractEvents({
    address: credentialRegistry,
    abi: credentialRegistryAbi,
    eventName: 'BatchAnchored',
    args: { registrant },
    fromBlock: 0n,
  })
  const revocations = await publicClient.getContractEvents({
    address: credentialRegistry,
    abi: credentialRegistryAbi,
    eventName: 'CredentialRevoked',
    args: { registrant },
    fromBlock: 0n,
  })
  const grants = await publicClient.getContractEvents({
    address: consentRegistry,
    abi: consentRegistryAbi,
    eventName: 'ConsentGranted',
    args: { registrant },
    fromBlock: 0n,
  })
  const consentRevocations = await publicClient.getContractEvents({
    address: consentRegistry,
    abi: consentRegistryAbi,
    eventName: 'ConsentRevoked',
    args: { registrant },
    fromBlock: 0n,
  })
  const schemas = await publicClient.getContractEvents({
    address: schemaRegistry,
    abi: schemaRegistryAbi,
    eventName: 'SchemaRegistered',
    args: { registrant },
    fromBlock: 0n,
  })
  const sorted = (values: string[]) => values.map((v) => v.toLowerCase().replace(/^0x/, '')).sort()
  const of = (kind: string, field: string) =>
    sorted(jobs.filter((j) => j.kind === kind).map((j) => String(j.payload[field])))
  assert.deepEqual(sorted(batches.map((e) => e.args.root!)), of('batch', 'root'), 'one BatchAnchored per batch')
  assert.deepEqual(
    sorted(revocations.map((e) => e.args.credentialHash!)),
    of('credential-revoke', 'credential_hash'),
    'one CredentialRevoked per revocation',
  )
  assert.deepEqual(
    sorted(grants.map((e) => e.args.consentKey!)),
    of('consent-grant', 'consent_key'),
    'one ConsentGranted per grant',
  )
  assert.deepEqual(
    sorted(consentRevocations.map((e) => e.args.consentKey!)),
    of('consent-revoke', 'consent_key'),
    'one ConsentRevoked per consent revocation',
  )
  assert.equal(schemas.length, jobs.filter((j) => j.kind === 'schema').length)
  assert.equal(
    await db
      .selectFrom('chain_credentials')
      .select('id')
      .where('batch_job_id', 'is', null)
      .execute()
      .then((r) => r.length),
    0,
    'every queued hash batched',
  )

  // The transaction whose hash the service was waiting for when it died: mined then, doing the
  // work (it has the event); its job was sent again after the restart, and that second
  // transaction was mined as a no-op.
  for (const hash of heldAtKill) {
    const held = await publicClient.getTransaction({ hash: hash as Hex })
    const heldReceipt = await publicClient.getTransactionReceipt({ hash: hash as Hex })
    assert.equal(heldReceipt.status, 'success')
    assert.ok(heldReceipt.logs.length > 0, 'the first send did the work')
    const resent: Array<{ id: number; attempts: number; receiptLogs: number }> = []
    for (const job of jobs) {
      if (!job.tx_hash || job.tx_hash === hash) continue
      const tx = await publicClient.getTransaction({ hash: job.tx_hash as Hex })
      if (tx.input !== held.input || tx.to !== held.to) continue
      resent.push({
        id: Number(job.id),
        attempts: job.attempts,
        receiptLogs: (await publicClient.getTransactionReceipt({ hash: job.tx_hash as Hex })).logs.length,
      })
    }
    assert.equal(resent.length, 1, `one job sent ${hash} again`)
    assert.equal(resent[0]!.receiptLogs, 0, 'the resend changed nothing on chain')
    assert.ok(resent[0]!.attempts >= 2)
  }
}
