import { createServiceClient, type ServiceClient, type ServiceClientOptions } from './client.js'
import type { HolderKey } from './keys.js'

/**
 * A client signed in with `key` (the challenge login of `client.login`): the start of every
 * issuer, verifier or holder script. The service signs in Ed25519 did:keys only.
 */
export async function signIn(options: ServiceClientOptions & { key: HolderKey }): Promise<ServiceClient> {
  const { key, ...clientOptions } = options
  const client = createServiceClient(clientOptions)
  await client.login(key)
  return client
}

/** The DID of the client's session, for the routes under `/:did`. */
export function signedInDid(client: ServiceClient): string {
  if (!client.session) throw new Error('Not signed in: call client.login(key) or signIn({ baseUrl, key }) first')
  return client.session.did
}
