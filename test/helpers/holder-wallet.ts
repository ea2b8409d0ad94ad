import { sign } from 'node:crypto'
import type { DidClient } from './did-client.js'

/**
 * What a holder's wallet does on its own device: sign a VP-JWT (DESIGN.md "Presentation") with
 * its did:key, independently of the service's code. For did:key the verification method's
 * fragment is the key's multibase form (the DID's method-specific id).
 */
export function signPresentation(
  holder: DidClient,
  claims: { aud: string; nonce: string; credentials: unknown[]; exp?: number; iat?: number },
  signer: DidClient = holder,
): string {
  const now = Math.floor(Date.now() / 1000)
  const header = { alg: 'EdDSA', typ: 'JWT', kid: `${holder.did}#${holder.did.slice('did:key:'.length)}` }
  const payload = {
    iss: holder.did,
    aud: claims.aud,
    nonce: claims.nonce,
    iat: claims.iat ?? now,
    exp: claims.exp ?? now + 600,
    vp: {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiablePresentation'],
      holder: holder.did,
      verifiableCredential: claims.credentials,
    },
  }
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${sign(null, Buffer.from(input), signer.privateKey).toString('base64url')}`
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
