import type { Clock } from '../../adapters/clock.js'
import type { SigningMethod } from '../../db/database.js'
import { NotFoundError, UnprocessableError, ValidationError } from '../../errors.js'
import type { DidResolver } from '../did/did-resolver.js'
import { verificationMethodFor } from '../did/verification-keys.js'
import { hostedDidDocument } from '../identity/hosted-did-document.js'
import type { IssuerIdentityRow, SigningIdentities } from '../identity/signing-identities.js'
import type { IssuerService } from './issuer.service.js'

/**
 * How an issuer signs (DESIGN.md "Issuer identity"): its signing DIDs, and a switch between a
 * did:web hosted here, service-generated did:keys, and its own did:web. Switching to its own
 * did:web is allowed only once that document lists every key the service would sign with under
 * `assertionMethod`, checked on a fresh resolution: the service never signs as a DID whose
 * document does not publish the key.
 */
export class SigningMethodService {
  constructor(
    private readonly deps: {
      issuers: IssuerService
      identities: SigningIdentities
      resolver: DidResolver
      clock: Clock
    },
  ) {}

  async describe(issuerDid: string) {
    const issuer = await this.identity(issuerDid)
    const signer = await this.deps.identities.jwsSigner(issuer, 'Ed25519')
    const dids = await this.deps.identities.signingDids(issuerDid)
    return {
      signing_did_method: issuer.signing_method,
      signing_did: signer.did,
      signing_dids: dids.map((d) => ({
        did: d.did,
        method: d.method,
        key_type: d.key_type,
        current: d.method === issuer.signing_method,
      })),
    }
  }

  async change(issuerDid: string, method: SigningMethod, sessionId: string | undefined) {
    await this.deps.issuers.steppedUpProfile(issuerDid, sessionId)
    const issuer = { ...(await this.identity(issuerDid)), signing_method: method }
    if (method === 'self') await this.checkPublished(issuer)
    await this.deps.issuers.recordSigningMethod(issuerDid, method, this.deps.clock.now())
    this.deps.identities.forget(issuerDid)
    await this.deps.identities.prepare(issuer)
    return this.describe(issuerDid)
  }

  private async identity(issuerDid: string): Promise<IssuerIdentityRow> {
    this.deps.identities.forget(issuerDid)
    const identity = await this.deps.identities.identity(issuerDid)
    if (!identity) throw new NotFoundError('No issuer profile for this DID: create it with POST /api/issuer')
    return identity
  }

  private async checkPublished(issuer: IssuerIdentityRow): Promise<void> {
    if (!issuer.did.startsWith('did:web:'))
      throw new ValidationError(
        'Only an issuer whose login DID is a did:web can sign as itself: choose "web" or "key"',
        { details: { field: 'signing_did_method' } },
      )
    // The keys it would sign with, made now so the issuer can publish them.
    await this.deps.identities.prepare(issuer)
    const wanted = hostedDidDocument(issuer.did, await this.deps.identities.publishedKeys(issuer.did))
    const doc = (await this.deps.resolver.resolve(issuer.did, { fresh: true, refetch: true })).didDocument
    const missing = (wanted.verificationMethod ?? []).filter((m) => {
      const found = verificationMethodFor(doc, m.id, 'assertionMethod')
      return (
        !found ||
        JSON.stringify(found.publicKeyMultibase ?? found.publicKeyJwk) !==
          JSON.stringify(m.publicKeyMultibase ?? m.publicKeyJwk)
      )
    })
    if (missing.length) {
      throw new UnprocessableError(
        `${issuer.did}'s DID document does not list the service's signing keys under assertionMethod yet: publish the verification methods in details.publish, then try again`,
        {
          details: { publish: missing },
        },
      )
    }
  }
}
