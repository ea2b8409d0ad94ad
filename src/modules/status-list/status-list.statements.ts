import { sql } from 'kysely'

// SQL the status-list module lends to other modules' statements, so a change to a list can
// commit in the same statement as the change that causes it.

/**
 * The status-list half of a revocation, as a statement for a data-modifying CTE: sets the bit of
 * the credential a preceding CTE named `revoked` returned (its status_list_id, status_list_index,
 * revoked_at) and bumps the list's version. The bit number is postgresBitNumber (src/crypto/bitstring.ts)
 * in SQL: set_bit numbers bits from each byte's least significant bit, the list from its most.
 */
export const SET_STATUS_BIT_OF_REVOKED = sql`
  update status_lists
  set bits = set_bit(bits, (revoked.status_list_index & ~7) + (7 - (revoked.status_list_index & 7)), 1),
      version = status_lists.version + 1,
      updated_at = revoked.revoked_at
  from revoked
  where status_lists.id = revoked.status_list_id`
