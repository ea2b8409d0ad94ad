import type { Executor } from '../../../db/database.js'
import type { Oid4vciPolicy } from './oid4vci-policy.js'
import './oid4vci-policy.table.js'

export async function findPolicy(db: Executor, issuerDid: string): Promise<Oid4vciPolicy | undefined> {
  const row = await db.selectFrom('oid4vci_policies').selectAll().where('issuer_did', '=', issuerDid).executeTakeFirst()
  if (!row) return undefined
  const { issuer_did: _did, updated_at: _at, ...policy } = row
  return policy
}

export async function savePolicy(db: Executor, issuerDid: string, policy: Oid4vciPolicy, now: Date): Promise<void> {
  const values = {
    ...policy,
    trusted_wallet_providers: JSON.stringify(policy.trusted_wallet_providers),
    updated_at: now,
  }
  await db
    .insertInto('oid4vci_policies')
    .values({ issuer_did: issuerDid, ...values })
    .onConflict((oc) => oc.column('issuer_did').doUpdateSet(values))
    .execute()
}
