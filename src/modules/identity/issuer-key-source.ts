import type { IssuerKeySource } from '../certificates/issuer-leaves.js'
import { hostedIssuerUrl } from '../did/jwt-vc-issuer.js'
import type { KeyStore } from '../keys/key-store.js'
import { SIGNING_PURPOSE, type SigningIdentities } from './signing-identities.js'

/**
 * What the certificates module certifies for an issuer: its credential issuer identifier
 * (`<base>/issuers/<web_id>`) and, when its SD-JWT VCs name that identifier as `iss` (a did:web
 * hosted here), the P-256 key they are signed with.
 */
export function issuerKeySource(identities: SigningIdentities, keys: KeyStore, publicBaseUrl: string): IssuerKeySource {
  return {
    async issuerKeys(issuerDid) {
      const identity = await identities.identity(issuerDid)
      if (!identity) return undefined
      const issuerUrl = hostedIssuerUrl(publicBaseUrl, identity.web_id)
      if (identity.signing_method !== 'web') return { issuerUrl }
      // jwsSigner records the signing DID and makes its key on first use, as issuance would.
      await identities.jwsSigner(identity, 'P-256')
      const key = await keys.activeSigningKey(identities.hostedDid(identity.web_id), SIGNING_PURPOSE['P-256'], 'P-256')
      return { issuerUrl, credentialKey: { kid: key.kid, publicKey: key.publicKeyObject } }
    },
  }
}
