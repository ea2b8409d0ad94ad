import type { KeyObject } from 'node:crypto'
import { encodeDidKey, type KeyCodec } from '../../crypto/did-key.js'
import type { BbsEngine } from '../../crypto/bbs/bbs-pool.js'
import { generateEd25519 } from '../../crypto/ed25519.js'
import { generateIetfBbsKeyPair, IETF_BBS_ALGORITHM } from '../../crypto/ietf-bbs-keys.js'
import { jwsAlgorithmFor, type JwsAlgorithm } from '../../crypto/jws.js'
import { generateP256 } from '../../crypto/p256.js'
import type { Database, SigningMethod } from '../../db/database.js'
import type { DocumentSigner, DocumentSigners } from '../certificates/document-signer.js'
import type { IssuerLeafCertificates } from '../certificates/issuer-leaves.js'
import type { KeyStore, SigningAlgorithm } from '../keys/key-store.js'
import { didWebForUrl } from '../did/methods/registered-methods.js'
import { hostedDidForIssuerUrl, hostedIssuerUrl } from '../did/jwt-vc-issuer.js'
import * as repo from './signing-dids.repository.js'

/**
 * The key types an issuer signs with: JWS (EdDSA, ES256), Dock BBS over BLS12-381 G2, and IETF
 * BBS (BLS12-381-SHA-256, the bbs-2023 cryptosuite's). Both BBS keys are G2 points, but each
 * scheme derives its own generators, so a key of one cannot verify the other's signatures
 * (docs/decisions.md "A separate IETF BBS key").
 */
export type IssuerKeyType = SigningAlgorithm | 'BLS12381G2' | typeof IETF_BBS

/** The key type of the bbs-2023 cryptosuite. */
export const IETF_BBS = IETF_BBS_ALGORITHM

/** Key-store purposes of signing-identity keys, one per key type. */
export const SIGNING_PURPOSE: Record<IssuerKeyType, string> = {
  Ed25519: 'signing-ed25519',
  'P-256': 'signing-p256',
  BLS12381G2: 'signing-bbs',
  [IETF_BBS]: 'signing-bbs-2023',
}
const CODEC: Record<IssuerKeyType, KeyCodec> = {
  Ed25519: 'ed25519',
  'P-256': 'p256',
  BLS12381G2: 'bls12381g2',
  [IETF_BBS]: 'bls12381g2',
}
const BBS_ALGORITHM = 'BBS-BLS12-381'

/**
 * BBS signature params are public generators derived from a label (Dock's
 * `BBSSignatureParams.generate(n, label)`), published beside the key. A did:key carries no such
 * property, so every BLS did:key here uses one fixed label, the convention docs/decisions.md states.
 */
export const DID_KEY_BBS_PARAMS_LABEL = 'credential-service/bbs-params/v1/did:key'
export const bbsParamsLabel = (signingDid: string): string =>
  signingDid.startsWith('did:key:') ? DID_KEY_BBS_PARAMS_LABEL : `credential-service/bbs-params/v1/${signingDid}`

/** What the issuer profile says about how it signs. */
export interface IssuerIdentityRow {
  did: string
  signing_method: SigningMethod
  web_id: string
}

export interface JwsSigner {
  /** The DID the credential names as issuer. */
  did: string
  /** The verification method, an absolute DID URL (the JWS `kid`). */
  kid: string
  alg: JwsAlgorithm
  privateKey: KeyObject
  /**
   * The https issuer identifier of a did:web hosted here (`<base>/issuers/<web_id>`), whose JWT VC
   * Issuer Metadata lists the same keys: what an SD-JWT VC names as `iss`. Undefined for other DIDs.
   */
  httpsIssuer?: string
  /**
   * The P-256 key's certificate chain (base64 DER, the leaf first, RFC 7515 §4.1.6), its leaf
   * naming httpsIssuer (SD-JWT VC §3.5); undefined without httpsIssuer or under an outside IACA.
   */
  x5c?: string[]
}

/** An issuer's IETF BBS key (bbs-2023): the DID named as issuer and the Multikey that signs. */
export interface Bbs2023Signer {
  did: string
  /** Absolute DID URL of the key's Multikey verification method. */
  verificationMethod: string
  publicKey: Uint8Array
  secretKey: Uint8Array
}

/** The key type of an X.509 Document Signer (ISO/IEC 18013-5 §9.1.2.4): a P-256 key with its certificate chain. */
export const DOCUMENT_SIGNER = 'document-signer'

/** An issuer's Document Signer as issuance names it: the issuer profile's DID and the JWS algorithm of its key. */
export interface CertifiedSigner extends DocumentSigner {
  did: string
  alg: 'ES256'
}

/** The signer of each key type a credential format may ask for (credential-format.ts `keyType`). */
export interface SignerByKeyType {
  Ed25519: JwsSigner
  'P-256': JwsSigner
  [IETF_BBS]: Bbs2023Signer
  [DOCUMENT_SIGNER]: CertifiedSigner
}
export type FormatKeyType = keyof SignerByKeyType

export interface BbsSigner {
  did: string
  verificationMethod: string
  publicKey: Uint8Array
  secretKey: Uint8Array
  paramsLabel: string
}

/** One key of a signing DID as its document lists it. */
export interface PublishedKey {
  /** Absolute DID URL. */
  id: string
  keyType: IssuerKeyType
  publicKey: Uint8Array
  paramsLabel?: string
}

const CACHE_MS = 60_000
// Bounded: issuerOf is asked about the issuer DID of every presented credential, whoever issued it.
const CACHE_MAX = 10_000

/**
 * The DIDs issuers sign as (DESIGN.md "Issuer identity"), and their keys: a did:web hosted here
 * (`/issuers/<web_id>/did.json`, all key types under one DID), one service-generated did:key per
 * key type (the did:key's own key signs, so it resolves with no fetch), or the issuer's own did:web
 * publishing the service's keys. Keys live sealed in the key store, owned by the signing DID;
 * retired keys stay listed so what they signed still verifies.
 */
export class SigningIdentities {
  private readonly cache = new Map<string, { at: number; value: unknown }>()

  constructor(
    private readonly deps: {
      db: Database
      keys: KeyStore
      bbs: BbsEngine
      publicBaseUrl: string
      now?: () => number
      /** The issuers' X.509 Document Signers (the certificates module). */
      documentSigners?: DocumentSigners
      /** The issuers' credential leaf certificates (the certificates module). */
      issuerCertificates?: IssuerLeafCertificates
    },
  ) {}

  /** The did:web of `/issuers/<webId>/did.json` on this service. */
  hostedDid(webId: string): string {
    return didWebForUrl(this.deps.publicBaseUrl, ['issuers', webId])
  }

  /** The signing method of an issuer profile; undefined without one. */
  identity(issuerDid: string): Promise<IssuerIdentityRow | undefined> {
    return this.cached(`identity ${issuerDid} `, () => repo.issuerIdentity(this.deps.db, issuerDid))
  }

  /** The issuer profile whose hosted did:web is `/issuers/<webId>` (its OpenID4VCI credential issuer); undefined without one. */
  byWebId(webId: string): Promise<IssuerIdentityRow | undefined> {
    return repo.issuerByWebId(this.deps.db, webId)
  }

  /** Creates the keys of the issuer's signing method now, so the first issuance does not. */
  async prepare(issuer: IssuerIdentityRow): Promise<void> {
    await this.jwsSigner(issuer, 'Ed25519')
    await this.jwsSigner(issuer, 'P-256')
    await this.bbsSigner(issuer)
    await this.bbs2023Signer(issuer)
  }

  /** The signer a format's key type asks for (issuance picks it by `format.keyType`). */
  async signerFor<K extends FormatKeyType>(issuer: IssuerIdentityRow, keyType: K): Promise<SignerByKeyType[K]> {
    if (keyType === DOCUMENT_SIGNER) {
      if (!this.deps.documentSigners) throw new Error('No certificates module: X.509 Document Signers are unavailable')
      const signer: CertifiedSigner = {
        ...(await this.deps.documentSigners.documentSigner(issuer.did)),
        did: issuer.did,
        alg: 'ES256',
      }
      return signer as SignerByKeyType[K]
    }
    const signer =
      keyType === IETF_BBS
        ? await this.bbs2023Signer(issuer)
        : await this.jwsSigner(issuer, keyType as SigningAlgorithm)
    return signer as SignerByKeyType[K]
  }

  /** The IETF BBS key of bbs-2023: its own did:key, or a Multikey of the did:web that carries all key types. */
  async bbs2023Signer(issuer: IssuerIdentityRow): Promise<Bbs2023Signer> {
    return this.cached(`ietf-bbs ${issuer.did} ${issuer.signing_method}`, async () => {
      const purpose = SIGNING_PURPOSE[IETF_BBS]
      if (issuer.signing_method === 'key') {
        const did = await this.didKey(issuer.did, IETF_BBS)
        const info = (await this.deps.keys.list(did, purpose))[0]!
        return {
          did,
          verificationMethod: `${did}#${did.slice('did:key:'.length)}`,
          publicKey: info.publicKey,
          secretKey: await this.deps.keys.openPrivateKey(info.kid),
        }
      }
      const did = await this.namedDid(issuer)
      let info = (await this.deps.keys.list(did, purpose)).find((k) => k.status === 'active')
      // A concurrent creation wins the unique index; storeKey then answers the winner's key.
      info ??= await this.deps.keys.storeKey(did, purpose, IETF_BBS, await generateIetfBbsKeyPair())
      return {
        did,
        verificationMethod: `${did}#${info.kid}`,
        publicKey: info.publicKey,
        secretKey: await this.deps.keys.openPrivateKey(info.kid),
      }
    })
  }

  async jwsSigner(issuer: IssuerIdentityRow, keyType: SigningAlgorithm): Promise<JwsSigner> {
    return this.cached(`jws ${issuer.did} ${issuer.signing_method} ${keyType}`, async () => {
      if (issuer.signing_method === 'key') {
        const did = await this.didKey(issuer.did, keyType)
        const info = (await this.deps.keys.list(did, SIGNING_PURPOSE[keyType]))[0]!
        const key = await this.deps.keys.signingKey(info.kid)
        return {
          did,
          kid: `${did}#${did.slice('did:key:'.length)}`,
          alg: jwsAlgorithmFor(key.privateKey)!,
          privateKey: key.privateKey,
        }
      }
      const did = await this.namedDid(issuer)
      const key = await this.deps.keys.activeSigningKey(did, SIGNING_PURPOSE[keyType], keyType)
      const httpsIssuer =
        issuer.signing_method === 'web' ? hostedIssuerUrl(this.deps.publicBaseUrl, issuer.web_id) : undefined
      const chain =
        httpsIssuer && keyType === 'P-256'
          ? await this.deps.issuerCertificates?.credentialChain(
              issuer.did,
              { kid: key.kid, publicKey: key.publicKeyObject },
              httpsIssuer,
            )
          : undefined
      return {
        did,
        kid: `${did}#${key.kid}`,
        alg: jwsAlgorithmFor(key.privateKey)!,
        privateKey: key.privateKey,
        ...(httpsIssuer ? { httpsIssuer } : {}),
        ...(chain ? { x5c: chain.map((der) => Buffer.from(der).toString('base64')) } : {}),
      }
    })
  }

  async bbsSigner(issuer: IssuerIdentityRow): Promise<BbsSigner> {
    return this.cached(`bbs ${issuer.did} ${issuer.signing_method}`, async () => {
      const purpose = SIGNING_PURPOSE.BLS12381G2
      if (issuer.signing_method === 'key') {
        const did = await this.didKey(issuer.did, 'BLS12381G2')
        const info = (await this.deps.keys.list(did, purpose))[0]!
        return {
          did,
          verificationMethod: `${did}#${did.slice('did:key:'.length)}`,
          publicKey: info.publicKey,
          secretKey: await this.deps.keys.openPrivateKey(info.kid),
          paramsLabel: DID_KEY_BBS_PARAMS_LABEL,
        }
      }
      const did = await this.namedDid(issuer)
      const paramsLabel = bbsParamsLabel(did)
      let info = (await this.deps.keys.list(did, purpose)).find((k) => k.status === 'active')
      if (!info) {
        const pair = await this.deps.bbs.generateKeyPair(paramsLabel)
        // A concurrent creation wins the unique index; storeKey then answers the winner's key.
        info = await this.deps.keys.storeKey(did, purpose, BBS_ALGORITHM, {
          publicKey: pair.publicKey,
          privateKey: pair.secretKey,
        })
      }
      return {
        did,
        verificationMethod: `${did}#${info.kid}`,
        publicKey: info.publicKey,
        secretKey: await this.deps.keys.openPrivateKey(info.kid),
        paramsLabel,
      }
    })
  }

  /** Every key a signing DID named by the issuer has published (active and retired), for its document. */
  async publishedKeys(did: string): Promise<PublishedKey[]> {
    const keys = await this.deps.keys.list(did)
    const published: PublishedKey[] = []
    for (const k of keys) {
      const keyType = (Object.keys(SIGNING_PURPOSE) as IssuerKeyType[]).find((t) => SIGNING_PURPOSE[t] === k.purpose)
      if (!keyType) continue
      published.push({
        id: `${did}#${k.kid}`,
        keyType,
        publicKey: k.publicKey,
        ...(keyType === 'BLS12381G2' ? { paramsLabel: bbsParamsLabel(did) } : {}),
      })
    }
    return published
  }

  /**
   * The login DID of the issuer signing as `did` (itself for a login DID that signs), or
   * undefined. A hosted issuer's https identifier (SD-JWT VC `iss`) stands for its did:web.
   */
  issuerOf(did: string): Promise<string | undefined> {
    const signing = hostedDidForIssuerUrl(this.deps.publicBaseUrl, did) ?? did
    return this.cached(`issuer-of ${signing}`, () => repo.issuerOfSigningDid(this.deps.db, signing))
  }

  signingDids(issuerDid: string): Promise<repo.SigningDidRow[]> {
    return repo.signingDidsOf(this.deps.db, issuerDid)
  }

  /** Forget cached signers of an issuer whose signing method changed. */
  forget(issuerDid: string): void {
    for (const key of this.cache.keys()) if (key.includes(` ${issuerDid} `)) this.cache.delete(key)
  }

  /** The did:web that carries all key types: hosted here, or the issuer's own. */
  private async namedDid(issuer: IssuerIdentityRow): Promise<string> {
    const did = issuer.signing_method === 'self' ? issuer.did : this.hostedDid(issuer.web_id)
    await repo.recordSigningDid(this.deps.db, {
      did,
      issuer_did: issuer.did,
      method: issuer.signing_method,
      key_type: null,
    })
    return did
  }

  /** The issuer's did:key for a key type, generated (and its key sealed) on first use. */
  private async didKey(issuerDid: string, keyType: IssuerKeyType): Promise<string> {
    const found = await repo.latestDidKey(this.deps.db, issuerDid, keyType)
    if (found) return found
    const material =
      keyType === 'BLS12381G2'
        ? await this.deps.bbs
            .generateKeyPair(DID_KEY_BBS_PARAMS_LABEL)
            .then((p) => ({ publicKey: p.publicKey, privateKey: p.secretKey }))
        : keyType === IETF_BBS
          ? await generateIetfBbsKeyPair()
          : keyType === 'P-256'
            ? generateP256()
            : generateEd25519()
    const did = encodeDidKey(CODEC[keyType], material.publicKey)
    await this.deps.keys.storeKey(
      did,
      SIGNING_PURPOSE[keyType],
      keyType === 'BLS12381G2' ? BBS_ALGORITHM : keyType,
      material,
    )
    await repo.recordSigningDid(this.deps.db, { did, issuer_did: issuerDid, method: 'key', key_type: keyType })
    return did
  }

  private async cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = (this.deps.now ?? Date.now)()
    const hit = this.cache.get(key)
    if (hit && now - hit.at < CACHE_MS) return hit.value as T
    const value = await load()
    if (value === undefined) return value
    this.cache.delete(key)
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(key, { at: now, value })
    return value
  }
}
