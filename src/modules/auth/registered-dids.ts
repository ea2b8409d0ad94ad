import type { Executor } from '../../db/database.js'
import { buildRegisteredDidDocument, type DidDocument } from '../did/did-document.js'
import { decodePublicKeyText } from './public-key-text.js'
import { findUser } from './users.repository.js'

/** Documents of DIDs registered with this service (methods it does not resolve elsewhere). */
export async function lookupRegisteredDid(db: Executor, did: string): Promise<DidDocument | undefined> {
  const user = await findUser(db, did)
  if (user?.origin !== 'registered') return undefined
  return buildRegisteredDidDocument(did, decodePublicKeyText(user.public_key))
}
