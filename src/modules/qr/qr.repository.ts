import type { Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { QrCodesTable } from './qr.table.js'

export type QrRow = Selectable<QrCodesTable>

/** Undefined when the short id is taken (the caller draws another). */
export function insertQr(db: Executor, row: Omit<QrRow, 'created_at'>): Promise<QrRow | undefined> {
  return db
    .insertInto('qr_codes')
    .values(row)
    .onConflict((oc) => oc.column('short_id').doNothing())
    .returningAll()
    .executeTakeFirst()
}

export function findQr(db: Executor, shortId: string): Promise<QrRow | undefined> {
  return db.selectFrom('qr_codes').selectAll().where('short_id', '=', shortId).executeTakeFirst()
}
