/**
 * The DID methods this service resolves: one line each. A method is one file beside this one
 * (the DidMethod interface, did-method.ts); nothing else imports those files.
 */
import { DidMethodRegistry } from './did-method-registry.js'
import { didJwkMethod } from './did-jwk-method.js'
import { didKeyMethod } from './did-key-method.js'
import { didWebMethod } from './did-web-method.js'

// What the service's own identities and holders' key DIDs are made with.
export { didJwkFor } from './did-jwk-method.js'
export { ed25519DidKey } from './did-key-method.js'
export { didWebForUrl } from './did-web-method.js'

/** Methods resolved elsewhere whose DIDs carry or resolve their own keys (never registrable here). */
const RESOLVED_ELSEWHERE = ['peer', 'pkh', 'ethr', 'ion', 'plc', 'webvh', 'cheqd', 'sov', 'indy']

export const didMethods = new DidMethodRegistry([didKeyMethod, didJwkMethod, didWebMethod], RESOLVED_ELSEWHERE)
