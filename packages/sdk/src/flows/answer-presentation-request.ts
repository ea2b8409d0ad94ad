import type { ServiceClient } from '../client.js'
import type { HolderKey } from '../keys.js'

export function answerPresentationRequest(_c: ServiceClient, _k: HolderKey, _o: { authorizationRequestUri: string }): Promise<{ accepted: boolean; verifier_status: number; redirect_uri?: string }> {
  throw new Error('not implemented')
}
