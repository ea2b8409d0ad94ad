import { createServiceClient, generateHolderKey, type HolderKey, type ServiceClient } from '@credential-service/sdk'
import { forgetDeviceKey, forgetKey, loadKey, saveKey, type Role } from './key-store.ts'

export interface RoleSession {
  role: Role
  key: HolderKey
  client: ServiceClient
  did: string
}

/** A client of the service this page came from: only same-origin calls (connect-src 'self'). */
export function newClient(): ServiceClient {
  return createServiceClient({ baseUrl: location.origin })
}

/**
 * Signs in as the role's DID: the key kept in this browser, or a new Ed25519 did:key made here
 * (non-extractable) the first time. Login is the service's DID challenge, signed in the browser.
 */
export async function signIn(role: Role, options: { create: boolean }): Promise<RoleSession | undefined> {
  let key = await loadKey(role)
  if (!key) {
    if (!options.create) return undefined
    key = await generateHolderKey({ alg: 'EdDSA', extractable: false })
    await saveKey(role, key)
  }
  const client = newClient()
  const session = await client.login(key)
  return { role, key, client, did: session.did }
}

/** Deletes the role's key and the device key its mdocs are bound to (they cannot be presented after). */
export async function forget(role: Role): Promise<void> {
  const key = await loadKey(role)
  if (key) await forgetDeviceKey(key.did)
  await forgetKey(role)
}
