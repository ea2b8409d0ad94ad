import { sql, type Kysely } from 'kysely'

/**
 * The hosted wallet's OpenID4VCI and OpenID4VP exchanges with other services (docs/openid4vc.md
 * "The hosted wallet"): the service prepares what the holder signs, keeps the exchange's state
 * here between the two calls, and completes it once with the holder's signature. Secrets of the
 * exchange (access token, DPoP key) are sealed under the master key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table wallet_protocol_sessions (
      id text primary key,
      holder_did text not null,
      kind text not null,
      status text not null,
      state text not null,
      sealed bytea,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index wallet_protocol_sessions_holder_idx on wallet_protocol_sessions (holder_did, created_at)`.execute(
    db,
  )
  await sql`create index wallet_protocol_sessions_expiry_idx on wallet_protocol_sessions (expires_at)`.execute(db)
}
