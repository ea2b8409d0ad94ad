import type { Executor, SigningMethod } from '../../db/database.js'

export interface SigningDidRow {
  did: string
  issuer_did: string
  method: SigningMethod
  key_type: string | null
}

export async function recordSigningDid(db: Executor, row: SigningDidRow): Promise<void> {
  await db
    .insertInto('issuer_signing_dids')
    .values(row)
    .onConflict((oc) => oc.column('did').doNothing())
    .execute()
}

export function signingDidsOf(db: Executor, issuerDid: string): Promise<SigningDidRow[]> {
  return db
    .selectFrom('issuer_signing_dids')
    .select(['did', 'issuer_did', 'method', 'key_type'])
    .where('issuer_did', '=', issuerDid)
    .orderBy('created_at')
    .orderBy('did')
    .execute()
}

export async function issuerOfSigningDid(db: Executor, did: string): Promise<string | undefined> {
  return (await db.selectFrom('issuer_signing_dids').select('issuer_did').where('did', '=', did).executeTakeFirst())
    ?.issuer_did
}

/** The newest did:key of this issuer for one key type. */
export async function latestDidKey(db: Executor, issuerDid: string, keyType: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('issuer_signing_dids')
    .select('did')
    .where('issuer_did', '=', issuerDid)
    .where('method', '=', 'key')
    .where('key_type', '=', keyType)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.did
}

export function issuerIdentity(
  db: Executor,
  did: string,
): Promise<{ did: string; web_id: string; signing_method: SigningMethod } | undefined> {
  return db.selectFrom('issuers').select(['did', 'web_id', 'signing_method']).where('did', '=', did).executeTakeFirst()
}

export async function issuerByWebId(
  db: Executor,
  webId: string,
): Promise<{ did: string; web_id: string; signing_method: SigningMethod } | undefined> {
  return db
    .selectFrom('issuers')
    .select(['did', 'web_id', 'signing_method'])
    .where('web_id', '=', webId)
    .executeTakeFirst()
}

/** Issuers' hosted did:webs that have signed as such. */
export async function hostedWebDids(db: Executor): Promise<string[]> {
  return (
    await db
      .selectFrom('issuer_signing_dids')
      .select('did')
      .where('method', '=', 'web')
      .orderBy('created_at')
      .limit(1000)
      .execute()
  ).map((r) => r.did)
}
