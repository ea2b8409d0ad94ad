import { bbsVerificationMethodFields } from '../../crypto/bbs/bbs-key-text.js'
import type { BbsEngine } from '../../crypto/bbs/bbs-pool.js'
import { ed25519Multibase } from '../auth/public-key-text.js'
import type { ServiceVerificationMethod } from '../did/did-resolver.js'
import type { KeyStore, SigningKey } from '../keys/key-store.js'

/** Key-store purpose of an issuer's custodial Ed25519 key (JWT-VC signatures). */
export const ISSUER_ED25519 = 'issuer-ed25519'
/** Key-store purpose of an issuer's custodial BBS key (BLS12-381 G2 public key). */
export const ISSUER_BBS = 'issuer-bbs'
const BBS_ALGORITHM = 'BBS-BLS12-381'
const CACHE_MS = 60_000

/**
 * BBS signature params are public generators derived from a label (Dock's
 * `BBSSignatureParams.generate(n, label)`); one label per issuer, published with its key, so a
 * verifier rebuilds the same params and every worker builds them once, not per credential.
 */
export const bbsParamsLabel = (issuerDid: string): string => `credential-service/bbs-params/v1/${issuerDid}`

export interface BbsIssuerKey {
  kid: string
  publicKey: Uint8Array
  secretKey: Uint8Array
  paramsLabel: string
}

/** The issuer's custodial keys: created with the profile, held sealed in the key store. */
export class IssuerKeys {
  private readonly bbsCache = new Map<string, { key: BbsIssuerKey; loadedAt: number }>()

  constructor(
    private readonly keys: KeyStore,
    private readonly bbsEngine: BbsEngine,
    private readonly now: () => number = Date.now,
  ) {}

  async create(did: string): Promise<void> {
    await this.ed25519(did)
    await this.bbs(did)
  }

  ed25519(did: string): Promise<SigningKey> {
    return this.keys.activeSigningKey(did, ISSUER_ED25519)
  }

  /** The active BBS key, created on first use (issuers made before BBS keys existed get one then). */
  async bbs(did: string): Promise<BbsIssuerKey> {
    const cached = this.bbsCache.get(did)
    if (cached && this.now() - cached.loadedAt < CACHE_MS) return cached.key
    const paramsLabel = bbsParamsLabel(did)
    let info = (await this.keys.list(did, ISSUER_BBS)).find((k) => k.status === 'active')
    if (!info) {
      const pair = await this.bbsEngine.generateKeyPair(paramsLabel)
      // A concurrent creation wins the unique index; storeKey then answers the winner's key.
      info = await this.keys.storeKey(did, ISSUER_BBS, BBS_ALGORITHM, { publicKey: pair.publicKey, privateKey: pair.secretKey })
    }
    const key = { kid: info.kid, publicKey: info.publicKey, secretKey: await this.keys.openPrivateKey(info.kid), paramsLabel }
    this.bbsCache.set(did, { key, loadedAt: this.now() })
    return key
  }
}

/** The issuer's service-managed keys, active and retired, as DID-document verification methods. */
export async function issuerVerificationMethods(keys: KeyStore, did: string): Promise<ServiceVerificationMethod[]> {
  const owned = await keys.list(did)
  const methods: ServiceVerificationMethod[] = []
  for (const k of owned) {
    if (k.purpose === ISSUER_ED25519) methods.push({ fragment: k.kid, type: 'Multikey', publicKeyMultibase: ed25519Multibase(k.publicKey) })
    if (k.purpose === ISSUER_BBS) methods.push({ fragment: k.kid, ...bbsVerificationMethodFields(k.publicKey, bbsParamsLabel(did)) })
  }
  return methods
}
