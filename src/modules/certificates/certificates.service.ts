import { randomUUID, X509Certificate as NodeCertificate } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { Clock } from '../../adapters/clock.js'
import { generateP256, type P256KeyPair } from '../../crypto/p256.js'
import type { Database } from '../../db/database.js'
import { ConflictError, NotFoundError } from '../../errors.js'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'
import {
  countryFor,
  documentSignerCertificate,
  selfSignedCa,
  subjectName,
  type IssuerSubject,
} from './certificate-profiles.js'
import * as repo from './certificates.repository.js'
import type { CertificateStatus, CertificateUse } from './certificates.table.js'
import type { DocumentSigner, DocumentSigners } from './document-signer.js'

/** Key store purposes of the issuer's mdoc keys (owner: the issuer profile's DID). */
export const IACA_PURPOSE = 'mdoc-iaca'
export const DS_PURPOSE = 'mdoc-document-signer'
export const CSR_PURPOSE = 'mdoc-document-signer-csr'

const DAY_MS = 86_400_000
/** Annex B.1.2 allows an IACA up to 20 years; 10 leaves room to move to a new root in time. */
export const IACA_VALIDITY_MS = 3650 * DAY_MS
/** Annex B.1.4 allows a Document Signer up to 457 days; one year, renewed before it ends. */
export const DS_VALIDITY_MS = 365 * DAY_MS
/**
 * A Document Signer this close to its end is replaced at its next use: an mdoc's MSO is signed
 * within its DS certificate's validity (ISO/IEC 18013-5 §9.3.3), so the margin keeps a valid DS
 * while a renewal waits (a database outage, another instance) and lets verifiers see the new one.
 */
export const DS_RENEW_WINDOW_MS = 30 * DAY_MS
/**
 * How long an opened Document Signer is reused: its rows and sealed key are read once a minute, not
 * per issuance. A chain changed on another instance is seen within it; the old DS stays valid meanwhile.
 */
const SIGNER_CACHE_MS = 60_000
const SIGNER_CACHE_MAX = 10_000

export interface CertificateView {
  use: CertificateUse
  pem: string
  not_before: Date
  not_after: Date
  status: CertificateStatus
}

export interface CertificatesDeps {
  db: Database
  keys: KeyStore
  clock: Clock
}

/**
 * Each issuer profile's mdoc chain (ISO/IEC 18013-5 Annex B): an IACA root of its own and the
 * Document Signer it issues, made on first use and renewed before the DS ends; or a DS certificate
 * from an outside IACA (outside-iaca.service.ts). Keys are sealed in the key store; the chain
 * changes in one transaction whose unique index settles concurrent first uses and rotations.
 */
export class CertificateService implements DocumentSigners {
  /** Document Signers opened recently, by issuer and the subject they were made for (a new country misses). */
  private readonly signers = new Map<string, { at: number; signer: Promise<DocumentSigner> }>()
  private readonly ders = new Map<string, Uint8Array>()

  constructor(private readonly deps: CertificatesDeps) {}

  /** Every certificate of the issuer, oldest first, its chain made first if it has none. */
  async list(issuerDid: string): Promise<CertificateView[]> {
    await this.currentDocumentSigner(issuerDid, await this.issuerName(issuerDid))
    const rows = await repo.listByIssuer(this.deps.db, issuerDid)
    return rows.map((r) => ({
      use: r.use,
      pem: r.pem,
      not_before: r.not_before,
      not_after: r.not_after,
      status: r.status,
    }))
  }

  async documentSigner(issuerDid: string): Promise<DocumentSigner> {
    const subject = await this.issuerName(issuerDid)
    const key = `${issuerDid} ${countryFor(subject)}`
    const now = this.deps.clock.now().getTime()
    const cached = this.signers.get(key)
    if (cached && now - cached.at < SIGNER_CACHE_MS) return cached.signer
    if (this.signers.size > SIGNER_CACHE_MAX) this.signers.clear()
    const signer = this.openDocumentSigner(issuerDid, subject)
    this.signers.set(key, { at: now, signer })
    // A failure is not kept: the next call tries again.
    signer.catch(() => this.signers.delete(key))
    return signer
  }

  /** A stored certificate's DER, parsed once: every mdoc verification asks for the roots. */
  private derOf(pem: string): Uint8Array {
    let der = this.ders.get(pem)
    if (!der) {
      if (this.ders.size > SIGNER_CACHE_MAX) this.ders.clear()
      der = new Uint8Array(new NodeCertificate(pem).raw)
      this.ders.set(pem, der)
    }
    return der
  }

  /** Forgets the Document Signers opened for an issuer: its chain changed here. */
  forget(issuerDid: string): void {
    for (const key of this.signers.keys()) if (key.startsWith(`${issuerDid} `)) this.signers.delete(key)
  }

  private async openDocumentSigner(issuerDid: string, subject: IssuerSubject): Promise<DocumentSigner> {
    const ds = await this.currentDocumentSigner(issuerDid, subject)
    if (ds.not_after <= this.deps.clock.now())
      throw new ConflictError(
        'The Document Signer certificate from the outside IACA has expired: import a new one or send a new CSR',
      )
    const key = await this.deps.keys.signingKey(ds.key_id!)
    return { issuerDid, privateKey: key.privateKey, chain: [new Uint8Array(new NodeCertificate(ds.pem).raw)] }
  }

  /** Roots of every issuer here, also retired ones still valid (mdocs they signed are still in wallets). */
  async hostedRoots(): Promise<Uint8Array[]> {
    const now = this.deps.clock.now()
    const rows = await repo.iacaRoots(this.deps.db)
    return rows.filter((r) => r.not_after > now).map((r) => this.derOf(r.pem))
  }

  /** The issuer hosted here whose certificate (a Document Signer, DER) this is; undefined for another's. */
  async issuerOfCertificate(der: Uint8Array): Promise<string | undefined> {
    // Stored PEMs are @peculiar/x509's rendering (certificate-checks.ts), so the same rendering finds them.
    return repo.issuerOfPem(this.deps.db, new x509.X509Certificate(new Uint8Array(der)).toString())
  }

  /** A new Document Signer now (from the issuer's own IACA), the old one retired but listed. */
  async rotate(issuerDid: string): Promise<CertificateView> {
    this.forget(issuerDid)
    const name = await this.issuerName(issuerDid)
    const current = await this.currentDocumentSigner(issuerDid, name)
    if (!(await this.renew(issuerDid, name, current)))
      throw new ConflictError('The Document Signer changed meanwhile; list the certificates and try again')
    const ds = (await repo.findActive(this.deps.db, issuerDid, 'document_signer'))!
    return { use: ds.use, pem: ds.pem, not_before: ds.not_before, not_after: ds.not_after, status: ds.status }
  }

  /** The issuer profile's name and country; 404 for a DID without one. */
  async issuerName(issuerDid: string): Promise<IssuerSubject> {
    const subject = await repo.issuerSubject(this.deps.db, issuerDid)
    if (subject === undefined) throw new NotFoundError('Issuer not found')
    return subject
  }

  /** A new key for a purpose, the purpose's active one retired first (the key store keeps one active). */
  async freshKey(owner: string, purpose: string, material: P256KeyPair = generateP256()): Promise<PublicKeyInfo> {
    const active = (await this.deps.keys.list(owner, purpose)).find((k) => k.status === 'active')
    if (active) await this.deps.keys.retire(active.kid)
    return this.deps.keys.storeKey(owner, purpose, 'P-256', material)
  }

  /** The active Document Signer row: made on first use, renewed when due. */
  private async currentDocumentSigner(issuerDid: string, name: IssuerSubject): Promise<repo.CertificateRow> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const ds = await repo.findActive(this.deps.db, issuerDid, 'document_signer')
      if (ds && !this.renewalDue(ds, name)) return ds
      if (ds && !(await this.ownRoot(issuerDid))) return ds // an outside IACA's: only its issuer renews it
      // Lost to a concurrent first use or renewal: read the winner's on the next round.
      await this.renew(issuerDid, name, ds)
    }
    throw new ConflictError('The Document Signer is being changed concurrently; try again')
  }

  /** Near its end, or naming another country than the profile now does (an mDL's issuing_country must match it, §9.3.3). */
  private renewalDue(ds: repo.CertificateRow, subject: IssuerSubject): boolean {
    return (
      ds.not_after.getTime() - this.deps.clock.now().getTime() <= DS_RENEW_WINDOW_MS ||
      countryOf(ds.pem) !== countryFor(subject)
    )
  }

  /** The issuer's own active IACA, its chain made first; undefined when it chains to an outside IACA. */
  async ownIaca(issuerDid: string): Promise<repo.CertificateRow | undefined> {
    await this.currentDocumentSigner(issuerDid, await this.issuerName(issuerDid))
    return this.ownRoot(issuerDid)
  }

  private async ownRoot(issuerDid: string): Promise<repo.CertificateRow | undefined> {
    const iaca = await repo.findActive(this.deps.db, issuerDid, 'iaca')
    return iaca?.key_id ? iaca : undefined
  }

  /**
   * Makes a Document Signer (replacing `current`) from the issuer's own IACA, and the IACA too when
   * there is none or it would cut the new DS short. False when a concurrent change won.
   */
  private async renew(
    issuerDid: string,
    name: IssuerSubject,
    current: repo.CertificateRow | undefined,
  ): Promise<boolean> {
    const { keys, clock } = this.deps
    const now = clock.now()
    const change: repo.ChainChange = { retire: [], insert: [] }
    let iacaRow = await repo.findActive(this.deps.db, issuerDid, 'iaca')
    if (iacaRow && !iacaRow.key_id)
      throw new ConflictError(
        'The Document Signer chains to an outside IACA: import a new one or send a new CSR to renew it',
      )
    if (
      !iacaRow ||
      iacaRow.not_after.getTime() - now.getTime() < DS_VALIDITY_MS ||
      countryOf(iacaRow.pem) !== countryFor(name)
    ) {
      // First use reuses a concurrent caller's key (storeKey answers the active one); renewal makes a new one.
      const info = iacaRow
        ? await this.freshKey(issuerDid, IACA_PURPOSE)
        : await keys.storeKey(issuerDid, IACA_PURPOSE, 'P-256', generateP256())
      const key = await keys.signingKey(info.kid)
      const cert = await selfSignedCa(
        subjectName(name, 'IACA'),
        { privateKey: key.privateKey, publicKey: key.publicKeyObject },
        {
          notBefore: now,
          notAfter: new Date(now.getTime() + IACA_VALIDITY_MS),
        },
      )
      if (iacaRow) change.retire.push(iacaRow.id)
      const row = rowOf(issuerDid, 'iaca', cert, info.kid)
      iacaRow = { ...row, status: 'active', created_at: now }
      change.insert.push(row)
    }
    const iacaKey = await keys.signingKey(iacaRow.key_id!)
    const dsInfo = current
      ? await this.freshKey(issuerDid, DS_PURPOSE)
      : await keys.storeKey(issuerDid, DS_PURPOSE, 'P-256', generateP256())
    if (current?.key_id && current.key_id !== dsInfo.kid) await keys.retire(current.key_id)
    const dsKey = await keys.signingKey(dsInfo.kid)
    const cert = await documentSignerCertificate({
      iaca: new x509.X509Certificate(iacaRow.pem),
      iacaKey: iacaKey.privateKey,
      subject: subjectName(name, 'Document Signer'),
      publicKey: dsKey.publicKeyObject,
      validity: {
        notBefore: now,
        notAfter: new Date(Math.min(now.getTime() + DS_VALIDITY_MS, iacaRow.not_after.getTime())),
      },
    })
    if (current) change.retire.push(current.id)
    change.insert.push(rowOf(issuerDid, 'document_signer', cert, dsInfo.kid))
    return repo.applyChange(this.deps.db, change)
  }
}

/** The countryName of a certificate's subject. */
function countryOf(pem: string): string | undefined {
  return new x509.X509Certificate(pem).subjectName.getField('C')[0]
}

/** A certificate row from a made or checked certificate; dates as the certificate states them. */
function rowOf(
  issuerDid: string,
  use: CertificateUse,
  cert: { toString(format: 'pem'): string; notBefore: Date; notAfter: Date },
  keyId: string | null,
): repo.NewCertificate {
  return {
    id: randomUUID(),
    issuer_did: issuerDid,
    use,
    pem: cert.toString('pem'),
    key_id: keyId,
    not_before: cert.notBefore,
    not_after: cert.notAfter,
  }
}
