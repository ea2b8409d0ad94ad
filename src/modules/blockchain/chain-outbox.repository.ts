import { sql } from 'kysely'
import type { Database, Executor } from '../../db/database.js'
import type { ChainJobKind, ChainJobStatus } from './chain-anchoring.table.js'
import './chain-anchoring.table.js'

/**
 * SQL of the chain outbox and the batch leaves. Every timestamp is a parameter from the injected
 * clock. Over 300 lines because claim, lease, batch and retry are statements over the same two
 * tables whose conditions must agree; splitting them would hide that agreement.
 */

export interface ChainJob {
  id: number
  kind: ChainJobKind
  subject_id: string | null
  anchor_key: string
  payload: Record<string, unknown>
  status: ChainJobStatus
  /** Including the attempt this claim starts. */
  attempts: number
  tx_hash: string | null
  block_number: number | null
  gas_used: number | null
  last_error: string | null
  created_at: Date
  sent_at: Date | null
  mined_at: Date | null
}

export interface CredentialLeaf {
  id: number
  issuer_did: string
  credential_hash: string
  credential_id: string | null
  leaf: string
  leaf_index: number | null
  proof: string[] | null
  created_at: Date
  batch: ChainJob | null
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string))
const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T

function toJob(row: Record<string, unknown>): ChainJob {
  return {
    id: Number(row.id),
    kind: row.kind as ChainJobKind,
    subject_id: (row.subject_id as string | null) ?? null,
    anchor_key: row.anchor_key as string,
    payload: json<Record<string, unknown>>(row.payload),
    status: row.status as ChainJobStatus,
    attempts: Number(row.attempts),
    tx_hash: (row.tx_hash as string | null) ?? null,
    block_number: num(row.block_number),
    gas_used: num(row.gas_used),
    last_error: (row.last_error as string | null) ?? null,
    created_at: new Date(row.created_at as string),
    sent_at: date(row.sent_at),
    mined_at: date(row.mined_at),
  }
}

const JOB_COLUMNS = [
  'id',
  'kind',
  'subject_id',
  'anchor_key',
  'payload',
  'status',
  'attempts',
  'tx_hash',
  'block_number',
  'gas_used',
  'last_error',
  'created_at',
  'sent_at',
  'mined_at',
] as const

export async function insertJob(
  db: Executor,
  job: {
    kind: ChainJobKind
    subject_id: string | null
    anchor_key: string
    payload: Record<string, unknown>
    created_at: Date
  },
): Promise<number> {
  const row = await db
    .insertInto('chain_jobs')
    .values({
      ...job,
      payload: JSON.stringify(job.payload),
      status: 'pending',
      attempts: 0,
      next_attempt_at: job.created_at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

/** Queues a hash for the next batch; a hash already queued or anchored for that issuer stays as it is (idempotent). */
export async function insertLeaf(
  db: Executor,
  leaf: { issuer_did: string; credential_hash: string; credential_id: string | null; leaf: string; created_at: Date },
): Promise<number> {
  const row = await db
    .insertInto('chain_credentials')
    .values(leaf)
    .onConflict((oc) =>
      oc.columns(['issuer_did', 'credential_hash']).doUpdateSet({
        credential_id: sql<string | null>`coalesce(chain_credentials.credential_id, excluded.credential_id)`,
      }),
    )
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

export async function unbatchedSummary(db: Database): Promise<{ count: number; oldest: Date | null }> {
  const row = await sql<{ n: number | string; oldest: Date | string | null }>`
    select count(*) as n, min(created_at) as oldest from chain_credentials where batch_job_id is null`.execute(db)
  return { count: Number(row.rows[0]?.n ?? 0), oldest: date(row.rows[0]?.oldest) }
}

/**
 * Forms one batch in one transaction: locks up to `limit` unbatched credentials (oldest first,
 * SKIP LOCKED so instances batch disjoint sets), lets `build` compute the tree, inserts the
 * batch job (with the tree's format) and stores each credential's leaf (the tree's, also for a
 * hash queued under an older tree), index and proof in one statement. Undefined: none left.
 */
export async function formBatch(
  db: Database,
  at: Date,
  limit: number,
  build: (rows: Array<{ issuer_did: string; credential_hash: string }>) => {
    format: string
    root: string
    leaves: string[]
    proofs: string[][]
  },
): Promise<{ jobId: number; size: number; root: string } | undefined> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('chain_credentials')
      .select(['id', 'issuer_did', 'credential_hash'])
      .where('batch_job_id', 'is', null)
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute()
    if (rows.length === 0) return undefined
    const tree = build(rows)
    const jobId = await insertJob(trx, {
      kind: 'batch',
      subject_id: null,
      anchor_key: tree.root,
      payload: { root: tree.root, size: rows.length, tree: tree.format },
      created_at: at,
    })
    const values = rows.map((r, i) => ({ id: Number(r.id), i, l: tree.leaves[i], p: tree.proofs[i] }))
    // The id array is for the planner: it takes jsonb_to_recordset for 100 rows of unknown ids
    // and would hash-join them against a sequential scan of a table that only grows.
    await sql`
      with v as (select * from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id bigint, i integer, l text, p jsonb))
      update chain_credentials c
      set batch_job_id = ${jobId}, leaf_index = v.i, leaf = v.l, proof = v.p
      from v
      where c.id = any(array(select id from v)) and c.id = v.id`.execute(trx)
    return { jobId, size: rows.length, root: tree.root }
  })
}

/**
 * Claims due jobs (to send, or sent and due for a receipt look) until `leaseUntil`, counting the
 * attempt; FOR UPDATE SKIP LOCKED as in the callback outbox. Oldest first, so transactions of
 * one subject go out in the order they were queued.
 */
export async function claimDue(db: Database, at: { now: Date; leaseUntil: Date; limit: number }): Promise<ChainJob[]> {
  const result = await sql<Record<string, unknown>>`
    with due as materialized (
      select id from chain_jobs
      where status in ('pending', 'sent') and next_attempt_at <= ${at.now}
        and (locked_until is null or locked_until <= ${at.now})
      order by next_attempt_at, id
      limit ${at.limit}
      for update skip locked
    )
    update chain_jobs j
    set locked_until = ${at.leaseUntil}, attempts = j.attempts + case when j.status = 'pending' then 1 else 0 end
    from due
    where j.id = due.id
    returning j.*`.execute(db)
  return result.rows.map(toJob).sort((a, b) => a.id - b.id)
}

// Every outcome below is fenced by the claim (status and attempt count, or tx hash), so an
// instance whose lease ran out cannot overwrite the state a newer claim wrote.

export async function markSent(
  db: Database,
  claim: ChainJob,
  at: { txHash: string; now: Date; checkAt: Date },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('chain_jobs')
      .set({
        status: 'sent',
        tx_hash: at.txHash,
        sent_at: at.now,
        next_attempt_at: at.checkAt,
        locked_until: null,
        last_error: null,
      })
      .where('id', '=', claim.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', claim.attempts)
      .executeTakeFirst()
    if (Number(updated.numUpdatedRows) === 0) return false
    await applyToSubject(trx, claim, 'sent', at.txHash)
    return true
  })
}

export async function markMined(
  db: Database,
  claim: ChainJob,
  at: { now: Date; blockNumber: bigint; gasUsed: bigint },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('chain_jobs')
      .set({
        status: 'mined',
        mined_at: at.now,
        block_number: at.blockNumber.toString(),
        gas_used: at.gasUsed.toString(),
        locked_until: null,
        last_error: null,
      })
      .where('id', '=', claim.id)
      .where('status', '=', 'sent')
      .where('tx_hash', '=', claim.tx_hash)
      .executeTakeFirst()
    if (Number(updated.numUpdatedRows) > 0) await applyToSubject(trx, claim, 'mined', claim.tx_hash!)
  })
}

/** Releases the claim and looks again at `at`; `resend` puts a sent job whose transaction vanished back to pending. */
export async function reschedule(
  db: Database,
  claim: ChainJob,
  at: { next: Date; error?: string; resend?: boolean; uncount?: boolean },
): Promise<void> {
  await db
    .updateTable('chain_jobs')
    .set({
      next_attempt_at: at.next,
      locked_until: null,
      ...(at.error !== undefined ? { last_error: at.error } : {}),
      ...(at.resend ? { status: 'pending' as const, tx_hash: null, sent_at: null } : {}),
      // Waiting for a job this one depends on is not a failed attempt.
      ...(at.uncount ? { attempts: sql<number>`greatest(attempts - 1, 0)` } : {}),
    })
    .where('id', '=', claim.id)
    .where('status', '=', claim.status)
    .where('attempts', '=', claim.attempts)
    .execute()
}

export async function markFailed(db: Database, claim: ChainJob, error: string): Promise<void> {
  await db
    .updateTable('chain_jobs')
    .set({ status: 'failed', locked_until: null, last_error: error })
    .where('id', '=', claim.id)
    .where('status', '=', claim.status)
    .where('attempts', '=', claim.attempts)
    .execute()
}

/**
 * Copies a transaction's progress onto the record it anchors, in the same transaction as the
 * job's own update: the spec's blockchain_tx_hash / blockchain_tx / revocation_blockchain_tx
 * when sent, on_chain when mined.
 */
async function applyToSubject(trx: Executor, job: ChainJob, stage: 'sent' | 'mined', txHash: string): Promise<void> {
  if (job.kind === 'batch') {
    const ids = trx
      .selectFrom('chain_credentials')
      .select('credential_id')
      .where('batch_job_id', '=', job.id)
      .where('credential_id', 'is not', null)
    if (stage === 'sent')
      await trx
        .updateTable('credentials')
        .set({ blockchain_tx_hash: txHash })
        .where('id', 'in', ids as never)
        .execute()
    else
      await trx
        .updateTable('credentials')
        .set({ on_chain: true, blockchain_tx_hash: txHash })
        .where('id', 'in', ids as never)
        .execute()
    return
  }
  if (job.subject_id === null) return
  if (job.kind === 'credential-revoke' && stage === 'sent') {
    await trx
      .updateTable('credentials')
      .set({ revocation_blockchain_tx: txHash })
      .where('id', '=', job.subject_id)
      .execute()
  } else if (job.kind === 'schema') {
    await trx
      .updateTable('credential_schemas')
      .set(stage === 'sent' ? { blockchain_tx: txHash } : { blockchain_tx: txHash, on_chain: true })
      .where('id', '=', job.subject_id)
      .execute()
  } else if (job.kind === 'consent-grant') {
    await trx
      .updateTable('consents')
      .set(stage === 'sent' ? { blockchain_tx: txHash } : { blockchain_tx: txHash, on_chain: true })
      .where('id', '=', job.subject_id)
      .execute()
  }
}

export async function findLeaf(
  db: Executor,
  issuerDid: string,
  credentialHash: string,
): Promise<CredentialLeaf | undefined> {
  const row = await db
    .selectFrom('chain_credentials')
    .selectAll()
    .where('issuer_did', '=', issuerDid)
    .where('credential_hash', '=', credentialHash)
    .executeTakeFirst()
  if (!row) return undefined
  const batch = row.batch_job_id === null ? null : await findJob(db, Number(row.batch_job_id))
  return {
    id: Number(row.id),
    issuer_did: row.issuer_did,
    credential_hash: row.credential_hash,
    credential_id: row.credential_id,
    leaf: row.leaf,
    leaf_index: row.leaf_index,
    proof: row.proof === null ? null : json<string[]>(row.proof),
    created_at: new Date(row.created_at),
    batch: batch ?? null,
  }
}

export async function findJob(db: Executor, id: number): Promise<ChainJob | undefined> {
  const row = await db.selectFrom('chain_jobs').select(JOB_COLUMNS).where('id', '=', id).executeTakeFirst()
  return row ? toJob(row as unknown as Record<string, unknown>) : undefined
}

/**
 * The newest job of these kinds writing `anchorKey`; with `standing`, the newest that has not
 * failed: what the chain holds, or will once it is mined.
 */
export async function latestJob(
  db: Executor,
  anchorKey: string,
  kinds: ChainJobKind[],
  options: { standing?: boolean } = {},
): Promise<ChainJob | undefined> {
  let query = db
    .selectFrom('chain_jobs')
    .select(JOB_COLUMNS)
    .where('anchor_key', '=', anchorKey)
    .where('kind', 'in', kinds)
  if (options.standing) query = query.where('status', '!=', 'failed')
  const row = await query.orderBy('id', 'desc').limit(1).executeTakeFirst()
  return row ? toJob(row as unknown as Record<string, unknown>) : undefined
}

/** An earlier, unfinished job this one must wait for (a grant before its revocation). */
export async function earlierUnfinished(db: Executor, job: ChainJob, kinds: ChainJobKind[]): Promise<boolean> {
  const row = await db
    .selectFrom('chain_jobs')
    .select('id')
    .where('anchor_key', '=', job.anchor_key)
    .where('kind', 'in', kinds)
    .where('id', '<', job.id)
    .where('status', 'in', ['pending', 'sent'])
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

export async function statusCounts(db: Database): Promise<{ jobs: Record<ChainJobStatus, number>; unbatched: number }> {
  const rows = await db
    .selectFrom('chain_jobs')
    .select(['status', sql<number>`count(*)`.as('n')])
    .groupBy('status')
    .execute()
  const jobs: Record<ChainJobStatus, number> = { pending: 0, sent: 0, mined: 0, failed: 0 }
  for (const r of rows) jobs[r.status] = Number(r.n)
  return { jobs, unbatched: (await unbatchedSummary(db)).count }
}

/**
 * Who owns the service record a chain write would update (applyToSubject): the issuer of a
 * credential or schema, the holder of a consent. Undefined when there is no such record.
 */
export async function subjectOwner(
  db: Executor,
  kind: 'credential' | 'schema' | 'consent',
  id: string,
): Promise<string | undefined> {
  const row =
    kind === 'credential'
      ? await db.selectFrom('credentials').select('issuer_did as owner').where('id', '=', id).executeTakeFirst()
      : kind === 'schema'
        ? await db
            .selectFrom('credential_schemas')
            .select('issuer_did as owner')
            .where('id', '=', id)
            .executeTakeFirst()
        : await db.selectFrom('consents').select('holder_did as owner').where('id', '=', id).executeTakeFirst()
  return row?.owner
}
