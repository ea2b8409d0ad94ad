import type { ServiceClient } from '../client.js'
import type { HolderKey } from '../keys.js'

/** The holder's DID for the wallet routes: the signed-in DID, which must be the key's. */
export function holderDid(c: ServiceClient, k: HolderKey): string {
  if (!c.session) throw new Error('Not signed in: call client.login(key) first')
  if (c.session.did !== k.did) throw new Error(`The session is for ${c.session.did}, the key is ${k.did}`)
  return c.session.did
}
