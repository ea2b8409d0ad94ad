import { sql, type Kysely } from 'kysely'

/**
 * Consent rules the service enforces, held by the database too (docs/consents.md), and the
 * index of the verification look-up. The table itself is in 20261122T1100-wallet.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table consents
      add constraint consents_access_level_check
        check (access_level in ('read_only', 'read_write', 'full_access', 'one_time', 'write', 'delete')),
      add constraint consents_expiration_policy_check
        check (expiration_policy in ('fixed_date', 'one_time_use', 'indefinite')),
      -- A date exactly when the policy is fixed_date.
      add constraint consents_expires_at_check
        check ((expiration_policy = 'fixed_date') = (expires_at is not null)),
      -- Only a one-time consent is used, by one presentation, with the time it was.
      add constraint consents_used_check
        check ((used_by is null) = (used_at is null) and (used_by is null or expiration_policy = 'one_time_use')),
      add constraint consents_revoked_check
        check (revoked = (revoked_at is not null)),
      add constraint consents_data_categories_check
        check (jsonb_typeof(data_categories) = 'array')
  `.execute(db)
  // ConsentPort.check: the usable consents of one holder for one verifier, newest first.
  // Revoked and used rows leave the index (a holder may accumulate many used one-time consents).
  await sql`
    create index consents_usable_pair_idx on consents (holder_did, verifier_did, created_at desc)
      where not revoked and used_by is null
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists consents_usable_pair_idx`.execute(db)
  await sql`
    alter table consents
      drop constraint if exists consents_access_level_check,
      drop constraint if exists consents_expiration_policy_check,
      drop constraint if exists consents_expires_at_check,
      drop constraint if exists consents_used_check,
      drop constraint if exists consents_revoked_check,
      drop constraint if exists consents_data_categories_check
  `.execute(db)
}
