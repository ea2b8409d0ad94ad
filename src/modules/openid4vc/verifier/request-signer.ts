import { createHash, type KeyObject } from 'node:crypto'
import type { JwtSigner } from '@openid4vc/oauth2'
import { UnprocessableError } from '../../../errors.js'
import type { VerifierAccess } from '../../certificates/verifier-access.js'
import type { HostedDids } from '../../identity/hosted-dids.service.js'
import type { Oid4vpOptions } from '../../verifier/verifier.types.js'

/** Who signs a request object, and the client id it names (OID4VP 1.0 §5.9.3). */
export interface RequestSigner {
  clientId: string
  jwtSigner: JwtSigner
  privateKey: KeyObject
}

/**
 * The signer of a request under its client id prefix: the verifier's did:web for
 * `decentralized_identifier`; its access certificate for `x509_san_dns` (the client id is a
 * dNSName of that certificate, the host the response_uri is on) and `x509_hash` (the base64url
 * SHA-256 of the certificate's DER), with `x5c` in the header. Undefined for `redirect_uri`: unsigned.
 */
export async function requestSigner(
  prefix: NonNullable<Oid4vpOptions['client_id_prefix']>,
  verifierDid: string,
  deps: { hosted: HostedDids; access: VerifierAccess; host: string },
): Promise<RequestSigner | undefined> {
  if (prefix === 'redirect_uri') return undefined
  if (prefix === 'decentralized_identifier') {
    const signer = await deps.hosted.verifierSigner(verifierDid)
    return {
      clientId: `decentralized_identifier:${signer.did}`,
      jwtSigner: { method: 'did', didUrl: signer.kid, alg: signer.alg },
      privateKey: signer.privateKey,
    }
  }
  const access = await deps.access.accessSigner(verifierDid)
  const jwtSigner: JwtSigner = { method: 'x5c', x5c: access.x5c, alg: 'ES256' }
  if (prefix === 'x509_hash') {
    const hash = createHash('sha256').update(Buffer.from(access.x5c[0]!, 'base64')).digest('base64url')
    return { clientId: `x509_hash:${hash}`, jwtSigner, privateKey: access.privateKey }
  }
  // §5.9.3: the wallet matches the response_uri's host against the dNSName, so the certificate must name this host.
  if (!access.dnsNames.includes(deps.host))
    throw new UnprocessableError(
      `The verifier's access certificate names no dNSName ${deps.host} (the host of the response_uri): use x509_hash, or import a certificate naming it`,
      { details: { field: 'client_id_prefix' } },
    )
  return { clientId: `x509_san_dns:${deps.host}`, jwtSigner, privateKey: access.privateKey }
}
