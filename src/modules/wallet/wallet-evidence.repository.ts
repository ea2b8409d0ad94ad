import type { Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { WalletEvidenceTable } from './wallet.table.js'

export type EvidenceRow = Omit<Selectable<WalletEvidenceTable>, 'size'> & { size: number }

const toRow = (row: Selectable<WalletEvidenceTable>): EvidenceRow => ({ ...row, size: Number(row.size) })

export async function insertEvidence(db: Executor, row: EvidenceRow): Promise<EvidenceRow> {
  return toRow(await db.insertInto('wallet_evidence').values(row).returningAll().executeTakeFirstOrThrow())
}

export async function findEvidence(db: Executor, holderDid: string, id: string): Promise<EvidenceRow | undefined> {
  const row = await db
    .selectFrom('wallet_evidence')
    .selectAll()
    .where('id', '=', id)
    .where('holder_did', '=', holderDid)
    .executeTakeFirst()
  return row && toRow(row)
}

export async function listEvidence(
  db: Executor,
  holderDid: string,
  filter: { label?: string },
  page: { limit: number; after?: string },
): Promise<EvidenceRow[]> {
  let query = db.selectFrom('wallet_evidence').selectAll().where('holder_did', '=', holderDid)
  if (filter.label) query = query.where('label', '=', filter.label)
  if (page.after) query = query.where('id', '>', page.after)
  return (await query.orderBy('id').limit(page.limit).execute()).map(toRow)
}
