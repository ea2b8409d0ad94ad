import type { Clock } from '../../adapters/clock.js'
import { parseCid, type ContentStore } from '../../adapters/content-store/content-store.js'
import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import { findCredentialByCid } from '../credentials/credentials.service.js'

/**
 * GET /api/verifier/verify/ipfs/:ipfs_hash: what a verifier may learn about a credential from
 * the CID of its stored material. The material is sealed to the holder, so this answers the
 * public facts only (issuer, type, status, hash, whether the bytes are still stored), never
 * the attributes or the holder.
 */
export async function checkStoredCredential(deps: { db: Database; content: ContentStore; clock: Clock }, cid: string) {
  parseCid(cid)
  const found = await findCredentialByCid(deps.db, cid)
  if (!found) throw new NotFoundError('No credential is stored under this CID')
  const stored = await deps.content.has(cid)
  const expired =
    found.expiration_date !== null && new Date(found.expiration_date).getTime() <= deps.clock.now().getTime()
  return {
    ipfs_hash: cid,
    stored,
    kyber_encrypted: found.kyber_encrypted,
    valid: stored && found.status === 'active' && !expired,
    credential: {
      id: found.id,
      issuer_did: found.issuer_did,
      credential_type: found.credential_type,
      status: found.status,
      expired,
      credential_hash: found.credential_hash,
      on_chain: found.on_chain,
      created_at: new Date(found.created_at).toISOString(),
    },
  }
}
