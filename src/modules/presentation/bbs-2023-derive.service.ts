import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { ConflictError, NotFoundError } from '../../errors.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { findHeldCredential } from './anonymous-proof.repository.js'

/**
 * POST /api/wallet/:did/credentials/:credential_id/derive (docs/formats.md "bbs-2023"): from the
 * base proof of a bbs-2023 credential in the holder's wallet, a derived proof that discloses the
 * issuer's mandatory statements and the chosen JSON Pointers, nothing else. The canonicalization
 * and BBS proof run in the bbs-2023 worker pool.
 */
export class Bbs2023DeriveService {
  constructor(private readonly deps: { db: Database; formats: FormatRegistry; clock: Clock }) {}

  async derive(holderDid: string, credentialId: string, pointers: string[]): Promise<Record<string, unknown>> {
    const row = await findHeldCredential(this.deps.db, holderDid, credentialId)
    if (!row) throw new NotFoundError('Credential not found in this wallet')
    if (row.withdrawn) throw new ConflictError('You withdrew this credential from use: it cannot be presented')
    const format = this.deps.formats.deriving(row.format ?? this.deps.formats.defaultId)
    if (!format)
      throw new ConflictError(
        `This credential is ${row.format ?? this.deps.formats.defaultId}, not ${this.deps.formats.derivingIds.join(' or ')}: only such a credential has a base proof to derive from`,
      )
    if (row.status === 'revoked')
      throw new ConflictError('This credential has been revoked: no verifier would accept a proof of it')
    if (row.expiration_date !== null && new Date(row.expiration_date).getTime() <= this.deps.clock.now().getTime())
      throw new ConflictError('This credential has expired')
    return format.derive(row.jwt, [...new Set(pointers)])
  }
}
