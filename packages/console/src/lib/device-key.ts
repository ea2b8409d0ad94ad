import { generateHolderKey, type HolderKey } from '@credential-service/sdk'
import { addDeviceKey, loadDeviceKey } from './key-store.ts'
import type { RoleSession } from './session.ts'

/**
 * The holder's device key: a P-256 key an mdoc is bound to instead of the holder's Ed25519 DID key
 * (ISO/IEC 18013-5 §9.1.2.4; it signs every presentation of the mdoc, §9.1.3). Made here,
 * non-extractable, the first time an mdoc is accepted, then reused; only its public JWK leaves.
 */
export async function deviceKeyOf(session: RoleSession, options: { create: boolean }): Promise<HolderKey | undefined> {
  const kept = await loadDeviceKey(session.did)
  if (kept || !options.create) return kept
  const made = await generateHolderKey({ alg: 'ES256', extractable: false })
  try {
    await addDeviceKey(session.did, made)
    return made
  } catch (error) {
    // Another tab made one meanwhile: that one is kept, and the mdocs it accepted are bound to it.
    const other = await loadDeviceKey(session.did)
    if (other) return other
    throw error
  }
}
