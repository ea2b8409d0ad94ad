import type { ServiceClient } from '../client.js'
import type { HolderKey } from '../keys.js'

export interface Predicate {
  attribute: string
  operator: string
  value: number | string
}

export function presentToRequest(
  _c: ServiceClient,
  _k: HolderKey,
  _o: { requestId: string; credentialIds: string[]; reveal?: string[]; predicates?: Predicate[] },
): Promise<{ presentationId: string }> {
  throw new Error('not implemented')
}
