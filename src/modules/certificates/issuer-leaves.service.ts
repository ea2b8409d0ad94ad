import { X509Certificate as NodeCertificate } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { Clock } from '../../adapters/clock.js'
import { generateP256 } from '../../crypto/p256.js'
import type { Database } from '../../db/database.js'
import { ConflictError } from '../../errors.js'
import type { KeyStore } from '../keys/key-store.js'
import { subjectName } from './certificate-profiles.js'
import * as repo from './certificates.repository.js'
import {
  DS_RENEW_WINDOW_MS,
  DS_VALIDITY_MS,
  type CertificateService,
  type CertificateView,
} from './certificates.service.js'
import { issuerLeafCertificate, uriNames } from './issuer-leaf-profile.js'
import type { CertifiedKey, CredentialKey, IssuerKeySource, IssuerLeafCertificates } from './issuer-leaves.js'

/** Key store purpose of the key that signs an issuer's metadata (owner: the issuer profile's DID). */
export const METADATA_PURPOSE = 'issuer-metadata'

type LeafUse = 'credential' | 'metadata'
const SUBJECT: Record<LeafUse, string> = { credential: 'Credential Signer', metadata: 'Metadata Signer' }
/** As the Document Signer's: a leaf's rows and key are read once a minute, not per issuance. */
const CACHE_MS = 60_000
const CACHE_MAX = 10_000

/**
 * The `credential` and `metadata` leaves of each issuer's own IACA, renewed like the Document
 * Signer: one year, replaced within the last 30 days, never past the IACA; also replaced when the
 * key they certify, the identifier they name, or the IACA changed. A replaced leaf is retired but
 * listed: what it signed carries it in `x5c` and stays verifiable until it ends.
 */
export class IssuerLeafService implements IssuerLeafCertificates {
  private readonly cache = new Map<string, { at: number; value: Promise<unknown> }>()
  private source: IssuerKeySource | undefined

  constructor(
    private readonly deps: { db: Database; keys: KeyStore; clock: Clock; certificates: CertificateService },
  ) {}

  useKeySource(source: IssuerKeySource): void {
    this.source = source
  }

  credentialChain(issuerDid: string, key: CredentialKey, issuerUrl: string): Promise<Uint8Array[] | undefined> {
    return this.cached(`credential ${issuerDid} ${key.kid} ${issuerUrl}`, async () => {
      const row = await this.current(issuerDid, 'credential', issuerUrl, key)
      return row && [derOf(row.pem)]
    })
  }

  metadataSigner(issuerDid: string, issuerUrl: string): Promise<CertifiedKey | undefined> {
    return this.cached(`metadata ${issuerDid} ${issuerUrl}`, async () => {
      const row = await this.current(issuerDid, 'metadata', issuerUrl)
      if (!row) return undefined
      const key = await this.deps.keys.signingKey(row.key_id!)
      return { privateKey: key.privateKey, chain: [derOf(row.pem)] }
    })
  }

  /** Every certificate of the issuer, its leaves made first when the identity module knows its keys. */
  async list(issuerDid: string): Promise<CertificateView[]> {
    await this.deps.certificates.issuerName(issuerDid)
    const keys = await this.source?.issuerKeys(issuerDid)
    // Not through the cache: the listing shows a renewal due now (a new country, a new IACA).
    if (keys) {
      await this.current(issuerDid, 'metadata', keys.issuerUrl)
      if (keys.credentialKey) await this.current(issuerDid, 'credential', keys.issuerUrl, keys.credentialKey)
    }
    return this.deps.certificates.list(issuerDid)
  }

  /** The active leaf of a use: made on first use, renewed when due; undefined under an outside IACA. */
  private async current(
    issuerDid: string,
    use: LeafUse,
    issuerUrl: string,
    key?: CredentialKey,
  ): Promise<repo.CertificateRow | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const iaca = await this.deps.certificates.ownIaca(issuerDid)
      const leaf = await repo.findActive(this.deps.db, issuerDid, use)
      if (!iaca) {
        // Under an outside IACA no leaf of the own root is in use any more: retired, still listed.
        if (leaf) await repo.applyChange(this.deps.db, { retire: [leaf.id], insert: [] })
        return undefined
      }
      if (leaf && !(await this.due(leaf, iaca, issuerUrl, key))) return leaf
      // Lost to a concurrent first use or renewal: read the winner's on the next round.
      await this.make(issuerDid, use, iaca, leaf, issuerUrl, key)
    }
    throw new ConflictError('The issuer’s certificates are being changed concurrently; try again')
  }

  private async due(
    leaf: repo.CertificateRow,
    iaca: repo.CertificateRow,
    issuerUrl: string,
    key?: CredentialKey,
  ): Promise<boolean> {
    if (leaf.not_after.getTime() - this.deps.clock.now().getTime() <= DS_RENEW_WINDOW_MS) return true
    if (key && leaf.key_id !== key.kid) return true
    const cert = new x509.X509Certificate(leaf.pem)
    if (!uriNames(cert).includes(issuerUrl)) return true
    const root = new x509.X509Certificate(iaca.pem)
    return !(await cert.verify({ publicKey: root.publicKey, signatureOnly: true }))
  }

  private async make(
    issuerDid: string,
    use: LeafUse,
    iaca: repo.CertificateRow,
    current: repo.CertificateRow | undefined,
    issuerUrl: string,
    key?: CredentialKey,
  ): Promise<boolean> {
    const { keys, clock, certificates } = this.deps
    const now = clock.now()
    let certified: CredentialKey
    if (key) certified = key
    else {
      // The metadata key is the leaf's own: a renewal makes a new one; a first use takes a concurrent caller's.
      const info = current
        ? await certificates.freshKey(issuerDid, METADATA_PURPOSE)
        : await keys.storeKey(issuerDid, METADATA_PURPOSE, 'P-256', generateP256())
      if (current?.key_id && current.key_id !== info.kid) await keys.retire(current.key_id)
      certified = { kid: info.kid, publicKey: (await keys.signingKey(info.kid)).publicKeyObject }
    }
    const cert = await issuerLeafCertificate({
      iaca: new x509.X509Certificate(iaca.pem),
      iacaKey: (await keys.signingKey(iaca.key_id!)).privateKey,
      subject: subjectName(await certificates.issuerName(issuerDid), SUBJECT[use]),
      publicKey: certified.publicKey,
      validity: {
        notBefore: now,
        notAfter: new Date(Math.min(now.getTime() + DS_VALIDITY_MS, iaca.not_after.getTime())),
      },
      issuerUrl,
    })
    this.cache.clear()
    return repo.applyChange(this.deps.db, {
      retire: current ? [current.id] : [],
      insert: [
        {
          id: crypto.randomUUID(),
          issuer_did: issuerDid,
          use,
          pem: cert.toString('pem'),
          key_id: certified.kid,
          not_before: cert.notBefore,
          not_after: cert.notAfter,
        },
      ],
    })
  }

  private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.deps.clock.now().getTime()
    const hit = this.cache.get(key)
    if (hit && now - hit.at < CACHE_MS) return hit.value as Promise<T>
    if (this.cache.size >= CACHE_MAX) this.cache.clear()
    const value = load()
    this.cache.set(key, { at: now, value })
    // A failure is not kept: the next call tries again.
    value.catch(() => this.cache.get(key)?.value === value && this.cache.delete(key))
    return value
  }
}

const derOf = (pem: string): Uint8Array => new Uint8Array(new NodeCertificate(pem).raw)
