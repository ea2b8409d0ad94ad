import type { Executor } from '../../db/database.js'
import { ConflictError } from '../../errors.js'
import { normalizeDid } from '../did/did-normalize.js'
import { decodePublicKeyText, ed25519Multibase } from './public-key-text.js'
import { registrationOrigin } from './registration-policy.js'
import { insertUser, type UserRow } from './users.repository.js'

export type { UserRow }

/** A new user with its Ed25519 key; a ConflictError when the DID is registered already. */
export async function insertNewUser(
  db: Executor,
  user: { did: string; publicKey: Uint8Array; origin: string; name?: string; email?: string },
): Promise<UserRow> {
  const created = await insertUser(db, {
    did: user.did,
    public_key: ed25519Multibase(user.publicKey),
    key_type: 'Ed25519',
    origin: user.origin,
    name: user.name,
    email: user.email,
  })
  if (!created) throw new ConflictError('This DID is already registered')
  return created
}

/** An administrator registers a holder's DID and key, without the holder's proof of control. */
export async function registerHolder(
  db: Executor,
  input: { did: string; public_key: string; name?: string; email?: string },
  registrableDidMethods: readonly string[],
): Promise<UserRow> {
  const did = normalizeDid(input.did)
  const publicKey = decodePublicKeyText(input.public_key)
  return insertNewUser(db, {
    did,
    publicKey,
    origin: registrationOrigin(did, publicKey, registrableDidMethods),
    name: input.name,
    email: input.email,
  })
}
