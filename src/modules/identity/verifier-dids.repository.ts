import type { Executor } from '../../db/database.js'
import './verifier-dids.table.js'

/** The verifier's web id, created on first use; a concurrent first use keeps the one that was written first. */
export async function ensureVerifierWebId(db: Executor, verifierDid: string, candidate: string): Promise<string> {
  await db
    .insertInto('verifier_web_dids')
    .values({ web_id: candidate, verifier_did: verifierDid })
    .onConflict((oc) => oc.column('verifier_did').doNothing())
    .execute()
  const row = await db
    .selectFrom('verifier_web_dids')
    .select('web_id')
    .where('verifier_did', '=', verifierDid)
    .executeTakeFirstOrThrow()
  return row.web_id
}

export function verifierByWebId(db: Executor, webId: string): Promise<{ verifier_did: string } | undefined> {
  return db.selectFrom('verifier_web_dids').select('verifier_did').where('web_id', '=', webId).executeTakeFirst()
}
