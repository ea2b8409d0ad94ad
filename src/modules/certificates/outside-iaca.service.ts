import { randomUUID } from 'node:crypto'
import { p256KeyPairOf } from '../../crypto/p256.js'
import { ConflictError, UnprocessableError } from '../../errors.js'
import {
  checkChain,
  checkKeyMatches,
  readCertificate,
  readPrivateKey,
  type CheckedCertificate,
} from './certificate-checks.js'
import { documentSignerRequest, subjectName } from './certificate-profiles.js'
import * as repo from './certificates.repository.js'
import {
  CSR_PURPOSE,
  DS_PURPOSE,
  type CertificatesDeps,
  type CertificateService,
  type CertificateView,
} from './certificates.service.js'

export interface ImportBody {
  certificate_pem: string
  private_key_pem: string
  iaca_pem: string
}

export interface SignedCertificateBody {
  certificate_pem: string
  iaca_pem: string
}

/**
 * A Document Signer from an IACA outside this service (ISO/IEC 18013-5 Annex B.1.4): imported with
 * its PKCS#8 key, or certified by the IACA from a PKCS#10 request whose key never leaves the key
 * store. Either way the chain is checked first, then replaces the issuer's active chain (the old
 * certificates stay listed, retired).
 */
export class OutsideIacaService {
  constructor(private readonly deps: CertificatesDeps & { certificates: CertificateService }) {}

  async importDocumentSigner(issuerDid: string, body: ImportBody): Promise<CertificateView> {
    await this.deps.certificates.issuerName(issuerDid)
    const ds = readCertificate(body.certificate_pem, 'certificate_pem')
    const iaca = readCertificate(body.iaca_pem, 'iaca_pem')
    const privateKey = readPrivateKey(body.private_key_pem, 'private_key_pem')
    checkKeyMatches(ds, privateKey)
    checkChain(ds, iaca, this.deps.clock.now())
    const again = await this.activeAgain(issuerDid, ds)
    if (again) return again
    const material = p256KeyPairOf(privateKey)
    const info = await this.deps.certificates.freshKey(issuerDid, DS_PURPOSE, material)
    if (Buffer.compare(info.publicKey, material.publicKey) !== 0)
      throw new ConflictError('Another Document Signer key was stored meanwhile; try again')
    return this.install(issuerDid, ds, iaca, info.kid)
  }

  /** A PKCS#10 request over the pending key: the same key until a certificate comes back for it. */
  async createRequest(issuerDid: string): Promise<string> {
    const name = await this.deps.certificates.issuerName(issuerDid)
    let pending = await this.pendingKey(issuerDid)
    pending ??= (await this.deps.certificates.freshKey(issuerDid, CSR_PURPOSE)).kid
    const key = await this.deps.keys.signingKey(pending)
    return documentSignerRequest(subjectName(name, 'Document Signer'), {
      privateKey: key.privateKey,
      publicKey: key.publicKeyObject,
    })
  }

  async acceptCertificate(issuerDid: string, body: SignedCertificateBody): Promise<CertificateView> {
    await this.deps.certificates.issuerName(issuerDid)
    const ds = readCertificate(body.certificate_pem, 'certificate_pem')
    const iaca = readCertificate(body.iaca_pem, 'iaca_pem')
    const again = await this.activeAgain(issuerDid, ds)
    if (again) return again
    const pending = await this.pendingKey(issuerDid)
    if (!pending) throw new ConflictError('No certificate request is pending: POST .../certificates/csr first')
    const key = await this.deps.keys.signingKey(pending)
    if (!ds.cert.checkPrivateKey(key.privateKey))
      throw new UnprocessableError('The certificate does not certify the key of the pending request')
    checkChain(ds, iaca, this.deps.clock.now())
    return this.install(issuerDid, ds, iaca, pending)
  }

  /** The active Document Signer when it is this certificate: sent again (a retry), it is answered unchanged. */
  private async activeAgain(issuerDid: string, ds: CheckedCertificate): Promise<CertificateView | undefined> {
    const active = await repo.findActive(this.deps.db, issuerDid, 'document_signer')
    if (active?.pem.trim() !== ds.pem.trim()) return undefined
    return {
      use: active.use,
      pem: active.pem,
      not_before: active.not_before,
      not_after: active.not_after,
      status: active.status,
    }
  }

  /** The active CSR key that no certificate carries yet. */
  private async pendingKey(issuerDid: string): Promise<string | undefined> {
    const active = (await this.deps.keys.list(issuerDid, CSR_PURPOSE)).find((k) => k.status === 'active')
    if (!active || (await repo.keyIsCertified(this.deps.db, active.kid))) return undefined
    return active.kid
  }

  private async install(
    issuerDid: string,
    ds: CheckedCertificate,
    iaca: CheckedCertificate,
    keyId: string,
  ): Promise<CertificateView> {
    const { db, keys } = this.deps
    const activeIaca = await repo.findActive(db, issuerDid, 'iaca')
    const activeDs = await repo.findActive(db, issuerDid, 'document_signer')
    const change: repo.ChainChange = { retire: [], insert: [] }
    // The same outside root again (the next DS from it) keeps its row.
    if (activeIaca?.pem.trim() !== iaca.pem.trim()) {
      if (activeIaca) change.retire.push(activeIaca.id)
      change.insert.push(row(issuerDid, 'iaca', iaca, null))
    }
    if (activeDs) change.retire.push(activeDs.id)
    const dsRow = row(issuerDid, 'document_signer', ds, keyId)
    change.insert.push(dsRow)
    if (!(await repo.applyChange(db, change)))
      throw new ConflictError('The certificates changed meanwhile; list them and try again')
    if (activeDs?.key_id && activeDs.key_id !== keyId) await keys.retire(activeDs.key_id)
    this.deps.certificates.forget(issuerDid)
    return {
      use: 'document_signer',
      pem: dsRow.pem,
      not_before: ds.notBefore,
      not_after: ds.notAfter,
      status: 'active',
    }
  }
}

function row(
  issuerDid: string,
  use: 'iaca' | 'document_signer',
  c: CheckedCertificate,
  keyId: string | null,
): repo.NewCertificate {
  return {
    id: randomUUID(),
    issuer_did: issuerDid,
    use,
    pem: c.pem,
    key_id: keyId,
    not_before: c.notBefore,
    not_after: c.notAfter,
  }
}
