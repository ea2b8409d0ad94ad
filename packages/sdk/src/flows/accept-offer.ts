import type { ServiceClient } from '../client.js'
import type { HolderKey } from '../keys.js'

export function acceptOffer(_c: ServiceClient, _k: HolderKey, _o: { offerUri: string; txCode?: string }): Promise<{ status: 'issued' | 'pending'; credentials: unknown[] }> {
  throw new Error('not implemented')
}
