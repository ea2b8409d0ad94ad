/**
 * The fast path of `npm run bench:volume` (bench/README.md, "Volume"): with the server stopped,
 * copies credentials that were issued through the API, with what one issuance writes besides
 * the credential row, so a million credentials take minutes rather than the half hour the issue
 * route needs. Per copy, as POST /api/issuer/:did/issue would write it:
 * - `credentials`: every column the seed row has (read from the catalogue, so a column added
 *   later is copied too), with a new id, owner, credential_hash, ipfs_hash, status-list slot and
 *   timestamps; the JWT, BBS material, data and preview are the seed's bytes (same sizes);
 * - `content_blocks`: the seed's sealed envelope under the copy's own CID (same size);
 * - `wallet_activities`: the holder's `credential_received` entry (credentials.repository.ts);
 * - `status_lists`: slots taken along the list's own permutation, `next_counter` advanced, and
 *   a new list when one is full (status-list-allocator.ts).
 * Plain INSERTs, so every index, constraint and trigger sees the rows as it would on issuance.
 */
import { LIST_BITS } from '../../src/modules/status-list/status-list-allocator.js'
import type { SqlSession } from './sql-session.js'

/** Rows per INSERT: each batch commits on its own, so the WAL and memory per statement stay bounded. */
const BATCH = 20_000
/** Credentials per synthetic holder of the copies (besides the big holder). */
const PER_OTHER_HOLDER = 20
/** did:key of an Ed25519 key is 56 characters; synthetic holders have DIDs of the same length. */
const SYNTHETIC_DID_PREFIX = 'did:key:z6MkVolume'
const SYNTHETIC_DID_DIGITS = 56 - SYNTHETIC_DID_PREFIX.length

export interface CopyPlan {
  issuerDid: string
  /** Copies to make, of which the first `toBig` go to the big holder. */
  copies: number
  toBig: number
  bigDid: string
  /** Numbers synthetic holders from here on (so later levels add new holders). */
  firstCopy: number
}

/** Credentials of the issuer and of one holder, as the database has them. */
export async function countCredentials(
  sql: SqlSession,
  issuerDid: string,
  holderDid: string,
): Promise<{ total: number; holder: number }> {
  const [row] = await sql.query<{ total: string; holder: string }>(
    'select count(*) as total, count(*) filter (where owner_did = $2) as holder from credentials where issuer_did = $1',
    [issuerDid, holderDid],
  )
  return { total: Number(row!.total), holder: Number(row!.holder) }
}

export async function copyCredentials(sql: SqlSession, plan: CopyPlan, log: (line: string) => void): Promise<void> {
  if (plan.copies <= 0) return
  await sql.query('drop table if exists volume_seed')
  // The seed: credentials of the fill's kind (JWT-VC + BBS) issued through the API to a holder.
  await sql.query(
    `create temp table volume_seed as
       select row_number() over (order by c.id) - 1 as seed_n, c.* from credentials c
       where c.issuer_did = $1 and c.signature_type = 'bbs+' and c.owner_did is not null
         and exists (select 1 from content_blocks b where b.cid = c.ipfs_hash)`,
    [plan.issuerDid],
  )
  const [{ n: seedCount } = { n: 0 }] = await sql.query<{ n: number }>('select count(*)::int as n from volume_seed')
  if (seedCount === 0) throw new Error('fast path: no API-issued BBS credential with its content block to copy')
  const columns = (
    await sql.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'credentials' order by ordinal_position`,
    )
  ).map((r) => r.column_name)
  const overrides: Record<string, string> = {
    id: 'g.new_id',
    owner_did: `case when g.c < $3 then $4 else '${SYNTHETIC_DID_PREFIX}' || lpad(((g.c + $5) / ${PER_OTHER_HOLDER})::text, ${SYNTHETIC_DID_DIGITS}, '0') end`,
    credential_hash: `encode(sha256(convert_to(g.new_id, 'UTF8')), 'hex')`,
    ipfs_hash: 'g.new_cid',
    status_list_id: '$6',
    status_list_index: `((($7::bigint * (g.counter)) + $8::bigint) % $9::bigint)::int`,
    created_at: 'now()',
    updated_at: 'now()',
  }
  const select = columns.map((col) => `${overrides[col] ?? `s.${quote(col)}`}`).join(', ')
  const statement = `
    with g as (
      select i as c, $10::bigint + i - $2 as counter, 'aly:' || gen_random_uuid()::text as new_id, (i % $1) as seed_n
      from generate_series($2::bigint, $2::bigint + $11::bigint - 1) as i
    ), src as (
      select g.*, s.ipfs_hash as seed_cid,
        -- A CID of the seed's length and alphabet (base32 lower case), unique per copy.
        left(s.ipfs_hash, 7) || substr(translate(encode(sha256(convert_to(g.new_id, 'UTF8')), 'hex') || encode(sha256(convert_to(g.new_id || '.', 'UTF8')), 'hex'), '0189', 'wxyz'), 1, length(s.ipfs_hash) - 7) as new_cid
      from g join volume_seed s using (seed_n)
    ), blocks as (
      insert into content_blocks (cid, data, size)
      select src.new_cid, b.data, b.size from src join content_blocks b on b.cid = src.seed_cid
    ), creds as (
      insert into credentials (${columns.map(quote).join(', ')})
      select ${select} from src g join volume_seed s using (seed_n)
      returning id, owner_did, credential_type, issuer_did, created_at
    )
    insert into wallet_activities (holder_did, type, credential_id, details, created_at)
    select owner_did, 'credential_received', id, jsonb_build_object('credential_type', credential_type, 'issuer_did', issuer_did), created_at
    from creds where owner_did is not null`
  const before = await rowCounts(sql)
  let done = 0
  let logged = 0
  const began = performance.now()
  while (done < plan.copies) {
    const list = await openList(sql, plan.issuerDid)
    const count = Math.min(BATCH, plan.copies - done, list.size - list.next_counter)
    await sql.query('begin')
    await sql.query(statement, [
      seedCount,
      done,
      plan.toBig,
      plan.bigDid,
      plan.firstCopy,
      list.id,
      list.multiplier,
      list.offset,
      list.size,
      list.next_counter,
      count,
    ])
    await sql.query('update status_lists set next_counter = next_counter + $2, updated_at = now() where id = $1', [
      list.id,
      count,
    ])
    await sql.query('commit')
    done += count
    if (done === plan.copies || done - logged >= BATCH * 10) {
      logged = done
      log(
        `    copied ${done.toLocaleString('en-US')} / ${plan.copies.toLocaleString('en-US')} (${Math.round(done / ((performance.now() - began) / 1000))}/s)`,
      )
    }
  }
  await sql.query('drop table volume_seed')
  // Every copy must have brought what an issuance writes with it: one block and one activity each.
  const after = await rowCounts(sql)
  for (const table of Object.keys(after) as (keyof typeof after)[]) {
    if (after[table] - before[table] !== plan.copies)
      throw new Error(`fast path: ${table} grew by ${after[table] - before[table]} for ${plan.copies} copies`)
  }
}

async function rowCounts(
  sql: SqlSession,
): Promise<{ credentials: number; content_blocks: number; wallet_activities: number }> {
  const [row] = await sql.query<{ credentials: number; content_blocks: number; wallet_activities: number }>(
    `select (select count(*) from credentials)::int as credentials, (select count(*) from content_blocks)::int as content_blocks,
       (select count(*) from wallet_activities)::int as wallet_activities`,
  )
  return row!
}

/** After a bulk load, what autovacuum (PostgreSQL) or src/db/pglite-maintenance.ts (PGlite) would do before long. */
export async function vacuumAnalyze(sql: SqlSession): Promise<void> {
  for (const table of ['credentials', 'content_blocks', 'wallet_activities', 'status_lists'])
    await sql.query(`vacuum analyze ${table}`)
}

/** A cursor in the middle of the holder's credentials: next_cursor is the last id of a page (route-helpers.ts). */
export async function middleCursor(sql: SqlSession, holderDid: string, count: number): Promise<string | null> {
  const [row] = await sql.query<{ id: string }>(
    'select id from credentials where owner_did = $1 order by id offset $2 limit 1',
    [holderDid, Math.floor(count / 2)],
  )
  return row?.id ?? null
}

interface ListRow {
  id: string
  size: number
  multiplier: number
  offset: number
  next_counter: number
}

/** The issuer's newest list with room, as the allocator picks it; a new one (random permutation) when full. */
async function openList(sql: SqlSession, issuerDid: string): Promise<ListRow> {
  const [newest] = await sql.query<ListRow>(
    `select id, size, multiplier, "offset", next_counter from status_lists where issuer_did = $1 and purpose = 'revocation' order by created_at desc limit 1`,
    [issuerDid],
  )
  if (newest && newest.next_counter < newest.size) return newest
  const multiplier = Math.floor(Math.random() * (LIST_BITS / 2)) * 2 + 1
  const row: ListRow = {
    id: `sl-${crypto.randomUUID()}`,
    size: LIST_BITS,
    multiplier,
    offset: Math.floor(Math.random() * LIST_BITS),
    next_counter: 0,
  }
  await sql.query(
    `insert into status_lists (id, issuer_did, purpose, size, multiplier, "offset", next_counter, bits) values ($1, $2, 'revocation', $3, $4, $5, 0, decode(repeat('00', $3 / 8), 'hex'))`,
    [row.id, issuerDid, row.size, row.multiplier, row.offset],
  )
  return row
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
