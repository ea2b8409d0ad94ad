import { sql, type RawBuilder } from 'kysely'

/**
 * The body of a CTE that takes one use of each offer CTE `source` names (its `offer_id`), for a
 * statement of another module that spends an offer with its own rows (OpenID4VCI's code and grant).
 */
export function takeOfferUsesCte(source: string, at: Date): RawBuilder<unknown> {
  return sql`update credential_offers set uses = uses + 1, updated_at = ${at} where id in (select offer_id from ${sql.raw(source)}) returning id`
}
