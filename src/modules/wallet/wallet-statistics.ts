import type { Executor } from '../../db/database.js'
import { readStatistics } from '../statistics/statistics.service.js'
import { count, total, type Counters } from '../statistics/statistics.types.js'
import { countExpired } from './wallet-credentials.repository.js'
import { timedShareCounts } from './wallet-shares.repository.js'

const METRICS = [
  'wallet.status',
  'wallet.source',
  'wallet.type',
  'wallet.issuer',
  'wallet.withdrawn',
  'shares.total',
  'shares.revoked',
  'shares.accesses',
  'evidence.count',
  'evidence.bytes',
  'holder_requests.status',
  'presentations.status',
  'activities.type',
  'activities.last',
] as const

/**
 * GET /api/wallet/:did/statistics (docs/wallet.md "Statistics"): counters kept by the database's
 * triggers in the transaction of every change (docs/decisions.md "Statistics from counters
 * (issue 26)"); the numbers that change with time alone (expired credentials, active and expired
 * shares) are counted along indexes holding only the rows that can still change.
 */
export async function walletStatistics(db: Executor, holderDid: string, now: Date) {
  const [counters, expired, shares] = await Promise.all([
    readStatistics(db, holderDid, METRICS),
    countExpired(db, holderDid, now),
    timedShareCounts(db, holderDid, now),
  ])
  const last = count(counters, 'activities.last')
  return {
    credentials: {
      total: total(counters, 'wallet.status'),
      active: count(counters, 'wallet.status', 'active'),
      revoked: count(counters, 'wallet.status', 'revoked'),
      withdrawn: count(counters, 'wallet.withdrawn'),
      expired,
      by_source: {
        issued: count(counters, 'wallet.source', 'issued'),
        imported: count(counters, 'wallet.source', 'imported'),
      },
      by_type: counters.get('wallet.type')!,
      by_issuer: counters.get('wallet.issuer')!,
    },
    shares: {
      total: count(counters, 'shares.total'),
      active: shares.active,
      revoked: count(counters, 'shares.revoked'),
      expired: shares.expired,
      accesses: count(counters, 'shares.accesses'),
    },
    evidence: { count: count(counters, 'evidence.count'), total_bytes: count(counters, 'evidence.bytes') },
    credential_requests: byStatus(counters, 'holder_requests.status'),
    presentations: byStatus(counters, 'presentations.status'),
    // Kept in microseconds since the epoch; a Date holds milliseconds, as the column read back did.
    activities: {
      total: total(counters, 'activities.type'),
      by_type: counters.get('activities.type')!,
      last_activity_at: last ? new Date(Math.floor(last / 1000)).toISOString() : null,
    },
    generated_at: now.toISOString(),
  }
}

const byStatus = (counters: Counters, metric: string) => ({
  total: total(counters, metric),
  by_status: counters.get(metric)!,
})
