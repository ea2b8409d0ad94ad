import { sql } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { OfferRow } from './offers.types.js'

export type { OfferRow }
export type NewOffer = Omit<OfferRow, 'uses' | 'created_at' | 'updated_at'>

export function insertOffer(db: Executor, offer: NewOffer): Promise<OfferRow> {
  return db
    .insertInto('credential_offers')
    .values({ ...offer, attributes: JSON.stringify(offer.attributes) })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function findOffer(db: Executor, issuerDid: string, id: string): Promise<OfferRow | undefined> {
  return db
    .selectFrom('credential_offers')
    .selectAll()
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
}

export function listOffers(
  db: Executor,
  issuerDid: string,
  page: { limit: number; after?: string },
): Promise<OfferRow[]> {
  let query = db.selectFrom('credential_offers').selectAll().where('issuer_did', '=', issuerDid)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

/**
 * Takes one use of an open offer, atomically: undefined when it is exhausted, expired, not
 * open, or addressed to another holder.
 */
export function takeOfferUse(
  db: Executor,
  issuerDid: string,
  id: string,
  holderDid: string,
  now: Date,
): Promise<OfferRow | undefined> {
  return db
    .updateTable('credential_offers')
    .set({ uses: sql`uses + 1`, updated_at: now })
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .where((eb) => eb.or([eb('subject_did', 'is', null), eb('subject_did', '=', holderDid)]))
    .returningAll()
    .executeTakeFirst()
}

export async function countActiveOffers(db: Executor, issuerDid: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('credential_offers')
    .select(sql<number>`count(*)`.as('n'))
    .where('issuer_did', '=', issuerDid)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
