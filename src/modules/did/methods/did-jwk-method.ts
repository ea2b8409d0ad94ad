import { ValidationError } from '../../../errors.js'
import type { DidDocument } from '../did-document.js'
import type { DidMethod } from './did-method.js'

const JWK_KEY_TYPES = new Set(['OKP', 'EC', 'RSA'])

/**
 * did:jwk (did-jwk spec §2.3 "Read"): the method-specific id is the base64url of a public JWK;
 * the document has that one key as `#0`, for signing and authentication unless `use` is `enc`
 * (then key agreement only). It does not sign in to this service.
 */
export const didJwkMethod: DidMethod = {
  name: 'jwk',
  selfCertifying: true,
  resolver: () => ({
    async resolve(did) {
      let jwk: unknown
      try {
        jwk = JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString('utf8'))
      } catch {
        throw new ValidationError(`${did} is not a did:jwk: its id is not base64url JSON`)
      }
      if (
        typeof jwk !== 'object' ||
        jwk === null ||
        Array.isArray(jwk) ||
        !JWK_KEY_TYPES.has(String((jwk as { kty?: unknown }).kty))
      ) {
        throw new ValidationError(`${did} is not a did:jwk: its id is not a public JWK`)
      }
      if ('d' in jwk) throw new ValidationError(`${did} carries a private key`)
      const id = `${did}#0`
      const doc: DidDocument = {
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
        id: did,
        verificationMethod: [
          { id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: jwk as Record<string, unknown> },
        ],
      }
      const use = (jwk as { use?: unknown }).use
      if (use !== 'sig') doc.keyAgreement = [id]
      if (use !== 'enc')
        Object.assign(doc, {
          assertionMethod: [id],
          authentication: [id],
          capabilityInvocation: [id],
          capabilityDelegation: [id],
        })
      return doc
    },
  }),
}

/** The did:jwk of a public JWK (did-jwk spec §2.1 "Create"): the base64url of its JSON. */
export function didJwkFor(jwk: object): string {
  return `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`
}
