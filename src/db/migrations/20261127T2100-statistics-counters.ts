import { sql, type Kysely } from 'kysely'

/**
 * Statistics from counters (docs/decisions.md "Statistics from counters (issue 26)"): triggers on
 * the source tables append signed deltas to `statistics_deltas` in the transaction of the change,
 * whatever code path makes it; the statistics routes sum the rows of one DID, and a fold replaces
 * them by one row per (metric, key). Insert-only, so concurrent issuances of one issuer never wait
 * on one counter row. Statement-level triggers with transition tables: a group-committed batch
 * writes one delta per (DID, metric, key), not one per credential.
 *
 * Every contribution below is a SELECT of (did, metric, key, n) over a set of rows `r`; the
 * trigger inserts new rows' contributions minus old rows' (a zero net writes nothing), and the
 * back-fill inserts the contributions of every existing row.
 */

/** The issuer's side of a credential: by status and by type. */
const issuerCredential = (rows: string) => `
  select r.issuer_did as did, v.metric, v.key, 1::bigint as n from ${rows} r
  cross join lateral (values ('issued.status', r.status), ('issued.type', r.credential_type)) v(metric, key)`

/**
 * A wallet entry of the holder (docs/wallet.md "Statistics"): status, source, type, issuer and
 * whether the holder withdrew it. `e` carries did, id, status, source, credential_type, issuer_did.
 */
const walletEntry = (entries: string) => `
  select e.did, v.metric, v.key, 1::bigint as n from (${entries}) e
  cross join lateral (values
    ('wallet.status', e.status), ('wallet.source', e.source), ('wallet.type', e.credential_type), ('wallet.issuer', e.issuer_did),
    ('wallet.withdrawn', case when exists (select 1 from wallet_withdrawals w where w.holder_did = e.did and w.credential_id = e.id) then '' end)
  ) v(metric, key) where v.key is not null`

/** Credentials issued here to a holder, in its wallet unless it removed them. */
const issuedEntries = (rows: string, checkRemoval = true) => `
  select r.owner_did as did, r.id, r.status, 'issued' as source, r.credential_type, r.issuer_did from ${rows} r
  where r.owner_did is not null
  ${checkRemoval ? 'and not exists (select 1 from wallet_removals x where x.holder_did = r.owner_did and x.credential_id = r.id)' : ''}`

const importedEntries = (rows: string) => `
  select r.holder_did as did, r.id, r.status, 'imported' as source, r.credential_type, r.issuer_did from ${rows} r`

/** A removal takes the issued credential it names out of the wallet (a restore puts it back). */
const removedEntries = (rows: string) =>
  issuedEntries(
    `(select c.* from ${rows} x join credentials c on c.id = x.credential_id and c.owner_did = x.holder_did)`,
    false,
  )

/** A withdrawal counts while the credential it names is in the holder's wallet. */
const withdrawal = (rows: string) => `
  select r.holder_did as did, 'wallet.withdrawn' as metric, '' as key, 1::bigint as n from ${rows} r
  where exists (select 1 from credentials c where c.id = r.credential_id and c.owner_did = r.holder_did
                  and not exists (select 1 from wallet_removals x where x.holder_did = r.holder_did and x.credential_id = c.id))
     or exists (select 1 from wallet_imports m where m.id = r.credential_id and m.holder_did = r.holder_did)`

/**
 * The wallet's credentials that a removal or withdrawal refers to are locked first, so that one
 * of these and a concurrent revocation, status refresh, import deletion, removal or withdrawal of
 * the same credential run one after the other: under READ COMMITTED each statement of the
 * trigger then reads the other's committed row (a fresh snapshot per statement), and no
 * contribution is computed from a state the other is changing.
 */
const lockWalletCredential = (rows: string) => `
  perform 1 from credentials c join ${rows} r on c.id = r.credential_id and c.owner_did = r.holder_did for no key update of c;
  perform 1 from wallet_imports m join ${rows} r on m.id = r.credential_id and m.holder_did = r.holder_did for no key update of m;`

interface Source {
  table: string
  contribution: (rows: string) => string
  /** Statements run before the deltas are computed (row locks). */
  before?: (rows: string) => string
  /** A change to another table's entries: the back-fill of those entries already counts it. */
  relation?: true
}

const SOURCES: Source[] = [
  { table: 'credentials', contribution: (r) => `${issuerCredential(r)} union all ${walletEntry(issuedEntries(r))}` },
  { table: 'wallet_imports', contribution: (r) => walletEntry(importedEntries(r)) },
  {
    table: 'wallet_removals',
    contribution: (r) => `select did, metric, key, -n as n from (${walletEntry(removedEntries(r))}) q`,
    before: lockWalletCredential,
    relation: true,
  },
  { table: 'wallet_withdrawals', contribution: withdrawal, before: lockWalletCredential, relation: true },
  {
    table: 'credential_requests',
    contribution: (r) => `
      select r.issuer_did as did, 'requests.status' as metric, r.status as key, 1::bigint as n from ${r} r
      union all select r.holder_did, 'holder_requests.status', r.status, 1 from ${r} r`,
  },
  {
    table: 'presentations',
    contribution: (r) =>
      `select r.prover_did as did, 'presentations.status' as metric, r.status as key, 1::bigint as n from ${r} r`,
  },
  {
    table: 'wallet_evidence',
    contribution: (r) => `
      select r.holder_did as did, v.metric, '' as key, v.n from ${r} r
      cross join lateral (values ('evidence.count', 1::bigint), ('evidence.bytes', r.size::bigint)) v(metric, n)`,
  },
  {
    table: 'wallet_shares',
    contribution: (r) => `
      select r.holder_did as did, v.metric, '' as key, v.n from ${r} r
      cross join lateral (values ('shares.total', 1::bigint), ('shares.revoked', case when r.revoked_at is not null then 1::bigint end), ('shares.accesses', r.uses::bigint)) v(metric, n)
      where v.n is not null`,
  },
]

const netDeltas = (contributions: string) => `
  insert into statistics_deltas (did, metric, key, n)
  select did, metric, key, sum(n) from (${contributions}) d group by did, metric, key having sum(n) <> 0`

function triggerFunction({ table, contribution, before }: Source): string {
  const negated = (rows: string) => `select did, metric, key, -n as n from (${contribution(rows)}) o`
  return `
    create function statistics_${table}() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${before?.('new_rows') ?? ''}
        ${netDeltas(contribution('new_rows'))};
      elsif tg_op = 'DELETE' then
        ${before?.('old_rows') ?? ''}
        ${netDeltas(negated('old_rows'))};
      else
        ${before?.('new_rows') ?? ''}
        ${netDeltas(`${contribution('new_rows')} union all ${negated('old_rows')}`)};
      end if;
      return null;
    end
    $$`
}

/**
 * The activity log is append-only (its own trigger refuses the rest): counts by type, and the
 * latest `created_at` as microseconds since the epoch, folded with max rather than sum.
 */
const ACTIVITY_CONTRIBUTION = (rows: string) => `
  select r.holder_did as did, 'activities.type' as metric, r.type as key, count(*)::bigint as n from ${rows} r group by r.holder_did, r.type
  union all
  select r.holder_did, 'activities.last', '', max((extract(epoch from r.created_at) * 1000000)::bigint) from ${rows} r group by r.holder_did`

export async function up(db: Kysely<any>): Promise<void> {
  // No key: rows are only appended, summed and folded (src/modules/statistics).
  await db.schema
    .createTable('statistics_deltas')
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('statistics_deltas_did_idx')
    .on('statistics_deltas')
    .columns(['did', 'metric', 'key'])
    .execute()

  for (const source of SOURCES) {
    await sql.raw(triggerFunction(source)).execute(db)
    for (const [event, referencing] of [
      ['insert', 'new table as new_rows'],
      ['update', 'old table as old_rows new table as new_rows'],
      ['delete', 'old table as old_rows'],
    ] as const) {
      await sql
        .raw(
          `create trigger statistics_${source.table}_${event} after ${event} on ${source.table} referencing ${referencing} for each statement execute function statistics_${source.table}()`,
        )
        .execute(db)
    }
  }
  await sql
    .raw(`
    create function statistics_wallet_activities() returns trigger language plpgsql as $$
    begin
      insert into statistics_deltas (did, metric, key, n) ${ACTIVITY_CONTRIBUTION('new_rows')};
      return null;
    end
    $$`)
    .execute(db)
  await sql`create trigger statistics_wallet_activities_insert after insert on wallet_activities referencing new table as new_rows for each statement execute function statistics_wallet_activities()`.execute(
    db,
  )

  // Back-fill from the rows already there, in the migration's transaction (the triggers above
  // already hold the tables against concurrent writers until it commits).
  for (const source of SOURCES.filter((s) => !s.relation))
    await sql.raw(netDeltas(source.contribution(source.table))).execute(db)
  await sql
    .raw(`insert into statistics_deltas (did, metric, key, n) ${ACTIVITY_CONTRIBUTION('wallet_activities')}`)
    .execute(db)

  // Numbers that depend on the time of the request cannot be counters: each is counted along an
  // index range holding only the rows that can still change with time.
  await sql`create index credentials_owner_expiry_idx on credentials (owner_did, expiration_date) include (id) where expiration_date is not null`.execute(
    db,
  )
  await sql`create index wallet_imports_holder_expiry_idx on wallet_imports (holder_did, expiration_date) where expiration_date is not null`.execute(
    db,
  )
  await sql`create index wallet_shares_holder_unrevoked_idx on wallet_shares (holder_did, expires_at) where revoked_at is null`.execute(
    db,
  )
  await sql`create index credential_offers_issuer_active_idx on credential_offers (issuer_did, expires_at) where status = 'active'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'credentials_owner_expiry_idx',
    'wallet_imports_holder_expiry_idx',
    'wallet_shares_holder_unrevoked_idx',
    'credential_offers_issuer_active_idx',
  ]) {
    await sql.raw(`drop index if exists ${index}`).execute(db)
  }
  for (const table of [...SOURCES.map((s) => s.table), 'wallet_activities']) {
    for (const event of ['insert', 'update', 'delete'])
      await sql.raw(`drop trigger if exists statistics_${table}_${event} on ${table}`).execute(db)
    await sql.raw(`drop function if exists statistics_${table}()`).execute(db)
  }
  await db.schema.dropTable('statistics_deltas').ifExists().execute()
}
