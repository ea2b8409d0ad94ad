import { randomBytes, type KeyObject } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import { signCompactJws } from '../../crypto/jws.js'
import type { Database } from '../../db/database.js'
import type { DidDocument } from '../did/did-document.js'
import { didWebForUrl } from '../did/methods/registered-methods.js'
import type { KeyStore, SigningKey } from '../keys/key-store.js'
import { hostedDidDocument } from './hosted-did-document.js'
import * as repo from './signing-dids.repository.js'
import * as verifierRepo from './verifier-dids.repository.js'
import type { PublishedKey, SigningIdentities } from './signing-identities.js'
import { VC_V1 } from '../../shared/vc-contexts.js'

/** Key-store purpose of the service's own did:web key (it signs the DID Configuration). */
const SERVICE_DID_PURPOSE = 'service-did-ed25519'
/** Key-store purpose of a verifier's did:web key: ES256, what HAIP 1.0 wallets verify request objects with. */
const VERIFIER_DID_PURPOSE = 'verifier-request-p256'
const DID_CONFIGURATION_CONTEXT = 'https://identity.foundation/.well-known/did-configuration/v1'
const DOCUMENT_CACHE_MS = 10_000
const CONFIGURATION_CACHE_MS = 3600_000
const LINKAGE_VALIDITY_S = 30 * 86_400

/**
 * The did:webs this service hosts: its own (`/.well-known/did.json`) and each issuer's signing
 * did:web (`/issuers/<web_id>/did.json`), answered from the key store without a fetch; and the
 * DIF Well Known DID Configuration (`/.well-known/did-configuration.json`) linking this origin
 * to all of them with Domain Linkage Credentials in JWT form.
 */
export class HostedDids {
  readonly serviceDid: string
  private readonly issuerPrefix: string
  private readonly verifierPrefix: string
  private readonly documents = new Map<string, { at: number; doc: DidDocument | undefined }>()
  private configuration: { at: number; body: Record<string, unknown> } | undefined

  constructor(
    private readonly deps: {
      db: Database
      identities: SigningIdentities
      keys: KeyStore
      clock: Clock
      publicBaseUrl: string
    },
  ) {
    this.serviceDid = didWebForUrl(deps.publicBaseUrl)
    this.issuerPrefix = `${this.serviceDid}:issuers:`
    this.verifierPrefix = `${this.serviceDid}:verifiers:`
  }

  /** The document of a did:web hosted here; undefined for any other DID. */
  async document(did: string, fresh = false): Promise<DidDocument | undefined> {
    if (did !== this.serviceDid && !did.startsWith(this.issuerPrefix) && !did.startsWith(this.verifierPrefix))
      return undefined
    const now = this.deps.clock.now().getTime()
    const hit = this.documents.get(did)
    if (!fresh && hit && now - hit.at < DOCUMENT_CACHE_MS) return hit.doc
    const doc =
      did === this.serviceDid
        ? await this.serviceDocument()
        : did.startsWith(this.verifierPrefix)
          ? await this.verifierDocument(did.slice(this.verifierPrefix.length))
          : await this.issuerDocument(did.slice(this.issuerPrefix.length))
    if (this.documents.size > 1000) this.documents.clear()
    this.documents.set(did, { at: now, doc })
    return doc
  }

  async webDocument(webId: string): Promise<DidDocument | undefined> {
    return this.document(`${this.issuerPrefix}${webId}`, true)
  }

  async verifierWebDocument(webId: string): Promise<DidDocument | undefined> {
    return this.document(`${this.verifierPrefix}${webId}`, true)
  }

  /**
   * The did:web a verifier's OpenID4VP request objects are signed as, with its P-256 key, both
   * created on first use (OID4VP 1.0 §5.9.3 `decentralized_identifier`: the key is one the DID's
   * own method publishes, at `/verifiers/<web_id>/did.json`).
   */
  async verifierSigner(
    verifierDid: string,
  ): Promise<{ did: string; kid: string; alg: 'ES256'; privateKey: KeyObject }> {
    const webId = await verifierRepo.ensureVerifierWebId(this.deps.db, verifierDid, randomBytes(16).toString('hex'))
    const did = `${this.verifierPrefix}${webId}`
    const key = await this.deps.keys.activeSigningKey(did, VERIFIER_DID_PURPOSE, 'P-256')
    // A document cached before the key existed would not list it.
    this.documents.delete(did)
    return { did, kid: `${did}#${key.kid}`, alg: 'ES256', privateKey: key.privateKey }
  }

  /** The private key behind a verifier did:web's DID URL, for signing; undefined for any other. */
  async verifierSigningKey(didUrl: string): Promise<KeyObject | undefined> {
    const [did, kid] = didUrl.split('#')
    if (!did?.startsWith(this.verifierPrefix) || !kid) return undefined
    const key = (await this.deps.keys.list(did, VERIFIER_DID_PURPOSE)).find(
      (k) => k.kid === kid && k.status === 'active',
    )
    return key ? (await this.deps.keys.signingKey(key.kid)).privateKey : undefined
  }

  /** DIF Well Known DID Configuration §"DID Configuration Resource", re-signed hourly. */
  async didConfiguration(): Promise<Record<string, unknown>> {
    const now = this.deps.clock.now()
    if (this.configuration && now.getTime() - this.configuration.at < CONFIGURATION_CACHE_MS)
      return this.configuration.body
    const origin = new URL(this.deps.publicBaseUrl).origin
    const linked = [await this.linkage(this.serviceDid, await this.serviceKey(), origin, now)]
    for (const did of await repo.hostedWebDids(this.deps.db)) {
      const key = (await this.deps.keys.list(did)).find((k) => k.status === 'active' && k.algorithm === 'Ed25519')
      if (key) linked.push(await this.linkage(did, await this.deps.keys.signingKey(key.kid), origin, now))
    }
    const body = { '@context': DID_CONFIGURATION_CONTEXT, linked_dids: linked }
    this.configuration = { at: now.getTime(), body }
    return body
  }

  private async linkage(
    did: string,
    key: Pick<SigningKey, 'kid' | 'privateKey'>,
    origin: string,
    now: Date,
  ): Promise<string> {
    const nbf = Math.floor(now.getTime() / 1000)
    const exp = nbf + LINKAGE_VALIDITY_S
    // Domain Linkage Credential, JWT form: no jti, no vc.id, no typ (spec §"JSON Web Token Proof Format").
    const vc = {
      '@context': [VC_V1, DID_CONFIGURATION_CONTEXT],
      issuer: did,
      issuanceDate: new Date(nbf * 1000).toISOString(),
      expirationDate: new Date(exp * 1000).toISOString(),
      type: ['VerifiableCredential', 'DomainLinkageCredential'],
      credentialSubject: { id: did, origin },
    }
    return signCompactJws({ kid: `${did}#${key.kid}` }, { exp, iss: did, nbf, sub: did, vc }, key.privateKey)
  }

  private serviceKey() {
    return this.deps.keys.activeSigningKey(this.serviceDid, SERVICE_DID_PURPOSE)
  }

  private async serviceDocument(): Promise<DidDocument> {
    await this.serviceKey()
    const keys = await this.deps.keys.list(this.serviceDid, SERVICE_DID_PURPOSE)
    const published: PublishedKey[] = keys.map((k) => ({
      id: `${this.serviceDid}#${k.kid}`,
      keyType: 'Ed25519',
      publicKey: k.publicKey,
    }))
    return hostedDidDocument(this.serviceDid, published)
  }

  /** A verifier's did:web: its P-256 keys (JsonWebKey2020), `alsoKnownAs` the verifier's login DID. */
  private async verifierDocument(webId: string): Promise<DidDocument | undefined> {
    const verifier = await verifierRepo.verifierByWebId(this.deps.db, webId)
    if (!verifier) return undefined
    const did = `${this.verifierPrefix}${webId}`
    const keys = await this.deps.keys.list(did, VERIFIER_DID_PURPOSE)
    if (keys.length === 0) return undefined
    const published: PublishedKey[] = keys.map((k) => ({
      id: `${did}#${k.kid}`,
      keyType: 'P-256',
      publicKey: k.publicKey,
    }))
    return hostedDidDocument(did, published, [verifier.verifier_did])
  }

  private async issuerDocument(webId: string): Promise<DidDocument | undefined> {
    const issuer = await repo.issuerByWebId(this.deps.db, webId)
    if (!issuer) return undefined
    const did = `${this.issuerPrefix}${webId}`
    return hostedDidDocument(did, await this.deps.identities.publishedKeys(did), [issuer.did])
  }
}
