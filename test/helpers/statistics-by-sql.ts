import { sql } from 'kysely'
import type { Database } from '../../src/db/database.js'

type Counts = Record<string, number>

const tally = (values: string[]): Counts => values.reduce<Counts>((acc, v) => ({ ...acc, [v]: (acc[v] ?? 0) + 1 }), {})

/**
 * The issuer's statistics recomputed from its rows (the response of GET /api/issuer/:did/statistics,
 * docs: spec "issuer statistics"), independently of the counters under test.
 */
export async function issuerStatisticsBySql(db: Database, issuerDid: string, now: Date) {
  const credentials = (
    await sql<{
      status: string
      credential_type: string
    }>`select status, credential_type from credentials where issuer_did = ${issuerDid}`.execute(db)
  ).rows
  const requests = tally(
    (
      await sql<{ status: string }>`select status from credential_requests where issuer_did = ${issuerDid}`.execute(db)
    ).rows.map((r) => r.status),
  )
  const offers = (
    await sql<{
      status: string
      expires_at: Date | null
      uses: number
      max_uses: number | null
    }>`select status, expires_at, uses, max_uses from credential_offers where issuer_did = ${issuerDid}`.execute(db)
  ).rows
  return {
    issued: credentials.length,
    active: credentials.filter((c) => c.status === 'active').length,
    revoked: credentials.filter((c) => c.status === 'revoked').length,
    by_type: tally(credentials.map((c) => c.credential_type)),
    requests_pending: requests.pending ?? 0,
    requests_approved: requests.approved ?? 0,
    requests_rejected: requests.rejected ?? 0,
    offers_active: offers.filter(
      (o) =>
        o.status === 'active' &&
        (o.expires_at === null || new Date(o.expires_at) > now) &&
        (o.max_uses === null || o.uses < o.max_uses),
    ).length,
  }
}

/** The wallet's statistics (docs/wallet.md "Statistics") recomputed from its rows. */
export async function walletStatisticsBySql(db: Database, holderDid: string, now: Date) {
  const entries = (
    await sql<{
      id: string
      status: string
      credential_type: string
      issuer_did: string
      expiration_date: Date | null
      source: string
      withdrawn: boolean
    }>`
      with w as (
        select c.id, c.status, c.credential_type, c.issuer_did, c.expiration_date, 'issued' as source from credentials c
        where c.owner_did = ${holderDid} and c.id not in (select credential_id from wallet_removals where holder_did = ${holderDid})
        union all
        select m.id, m.status, m.credential_type, m.issuer_did, m.expiration_date, 'imported' from wallet_imports m where m.holder_did = ${holderDid})
      select w.*, w.id in (select credential_id from wallet_withdrawals where holder_did = ${holderDid}) as withdrawn from w`.execute(
      db,
    )
  ).rows
  const shares = (
    await sql<{
      revoked_at: Date | null
      expires_at: Date
      uses: number
      max_uses: number | null
    }>`select revoked_at, expires_at, uses, max_uses from wallet_shares where holder_did = ${holderDid}`.execute(db)
  ).rows
  const evidence = (
    await sql<{ size: string }>`select size from wallet_evidence where holder_did = ${holderDid}`.execute(db)
  ).rows
  const requests = tally(
    (
      await sql<{ status: string }>`select status from credential_requests where holder_did = ${holderDid}`.execute(db)
    ).rows.map((r) => r.status),
  )
  const presentations = tally(
    (
      await sql<{ status: string }>`select status from presentations where prover_did = ${holderDid}`.execute(db)
    ).rows.map((r) => r.status),
  )
  const activities = (
    await sql<{
      type: string
      created_at: Date
    }>`select type, created_at from wallet_activities where holder_did = ${holderDid}`.execute(db)
  ).rows
  const last = activities.reduce<Date | null>(
    (max, a) => (max === null || new Date(a.created_at) > max ? new Date(a.created_at) : max),
    null,
  )
  const sum = (counts: Counts) => Object.values(counts).reduce((a, b) => a + b, 0)
  return {
    credentials: {
      total: entries.length,
      active: entries.filter((e) => e.status === 'active').length,
      revoked: entries.filter((e) => e.status === 'revoked').length,
      withdrawn: entries.filter((e) => e.withdrawn).length,
      expired: entries.filter((e) => e.expiration_date !== null && new Date(e.expiration_date) <= now).length,
      by_source: {
        issued: entries.filter((e) => e.source === 'issued').length,
        imported: entries.filter((e) => e.source === 'imported').length,
      },
      by_type: tally(entries.map((e) => e.credential_type)),
      by_issuer: tally(entries.map((e) => e.issuer_did)),
    },
    shares: {
      total: shares.length,
      active: shares.filter(
        (s) => s.revoked_at === null && new Date(s.expires_at) > now && (s.max_uses === null || s.uses < s.max_uses),
      ).length,
      revoked: shares.filter((s) => s.revoked_at !== null).length,
      expired: shares.filter((s) => s.revoked_at === null && new Date(s.expires_at) <= now).length,
      accesses: shares.reduce((a, s) => a + s.uses, 0),
    },
    evidence: { count: evidence.length, total_bytes: evidence.reduce((a, e) => a + Number(e.size), 0) },
    credential_requests: { total: sum(requests), by_status: requests },
    presentations: { total: sum(presentations), by_status: presentations },
    activities: {
      total: activities.length,
      by_type: tally(activities.map((a) => a.type)),
      last_activity_at: last?.toISOString() ?? null,
    },
  }
}
