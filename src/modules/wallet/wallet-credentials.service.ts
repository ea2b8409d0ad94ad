import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import * as repo from './wallet-credentials.repository.js'

/** The holder's view of its credentials (spec: wallet listing) and wallet-side removal. */
export class WalletCredentialService {
  constructor(private readonly deps: { db: Database }) {}

  list(holderDid: string, filter: { status?: string; credential_type?: string }, page: { limit: number; after?: string }): Promise<repo.WalletCredentialRow[]> {
    return repo.listWalletCredentials(this.deps.db, holderDid, filter, page)
  }

  /** Removes the wallet's copy only: the issuer's record, its status and the chain stay as they are. */
  async remove(holderDid: string, credentialId: string): Promise<void> {
    if (!(await repo.removeFromWallet(this.deps.db, holderDid, credentialId))) throw new NotFoundError('Credential not found in this wallet')
  }
}
