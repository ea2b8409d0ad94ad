import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import { activityCounts } from './wallet-activity.js'
import { credentialCounts } from './wallet-credentials.repository.js'
import { evidenceCounts } from './wallet-evidence.repository.js'
import { shareCounts } from './wallet-shares.repository.js'

async function countByStatus(db: Executor, table: 'credential_requests' | 'presentations', column: 'holder_did' | 'prover_did', did: string): Promise<Record<string, number>> {
  const rows = await sql<{ status: string; n: string }>`select status, count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${did} group by status`.execute(db)
  return Object.fromEntries(rows.rows.map((r) => [r.status, Number(r.n)]))
}

/**
 * GET /api/wallet/:did/statistics (docs/wallet.md "Statistics"): every number is counted by the
 * database (COUNT … FILTER, GROUP BY), none by loading rows. On PGlite the queries run one after
 * the other anyway; on PostgreSQL they share the pool.
 */
export async function walletStatistics(db: Executor, holderDid: string, now: Date) {
  const [credentials, shares, evidence, activities, requests, presentations] = await Promise.all([
    credentialCounts(db, holderDid, now),
    shareCounts(db, holderDid, now),
    evidenceCounts(db, holderDid),
    activityCounts(db, holderDid),
    countByStatus(db, 'credential_requests', 'holder_did', holderDid),
    countByStatus(db, 'presentations', 'prover_did', holderDid),
  ])
  return {
    credentials: {
      total: credentials.total,
      active: credentials.active,
      revoked: credentials.revoked,
      withdrawn: credentials.withdrawn,
      expired: credentials.expired,
      by_source: { issued: credentials.issued, imported: credentials.imported },
      by_type: credentials.byType,
      by_issuer: credentials.byIssuer,
    },
    shares,
    evidence: { count: evidence.count, total_bytes: evidence.totalBytes },
    credential_requests: { total: sum(requests), by_status: requests },
    presentations: { total: sum(presentations), by_status: presentations },
    activities: { total: activities.total, by_type: activities.byType, last_activity_at: activities.last?.toISOString() ?? null },
    generated_at: now.toISOString(),
  }
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0)
