import type { X509Certificate } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import { p256KeyPairOf } from '../../crypto/p256.js'
import { ConflictError, UnprocessableError, ValidationError } from '../../errors.js'
import { readCertificate, readPrivateKey, type CheckedCertificate } from './certificate-checks.js'
import { accessCertificateRequest, verifierSubject } from './verifier-certificate-profiles.js'
import * as repo from './verifier-certificates.repository.js'
import {
  ACCESS_CSR_PURPOSE,
  ACCESS_PURPOSE,
  rowOf,
  view,
  type VerifierCertificateService,
  type VerifierCertificateView,
} from './verifier-certificates.service.js'

export interface ImportAccessBody {
  certificate_pem: string
  private_key_pem: string
  /** The CA certificates above it, issuer first, the root last. */
  chain_pems: string[]
}

export interface SignedAccessBody {
  certificate_pem: string
  chain_pems: string[]
}

/**
 * A verifier's access certificate from a CA outside this service: imported with its PKCS#8 key,
 * or certified from a PKCS#10 request whose key never leaves the key store. The chain is checked
 * (RFC 5280 §6.1, in the small: each certificate issued and signed by the next, CAs above the
 * leaf, a self-signed root last, all valid now) and then replaces the verifier's active one.
 */
export class VerifierOutsideCaService {
  constructor(private readonly certificates: VerifierCertificateService) {}

  async importAccess(verifierDid: string, body: ImportAccessBody): Promise<VerifierCertificateView> {
    const { leaf, chain } = this.readChain(body)
    const privateKey = readPrivateKey(body.private_key_pem, 'private_key_pem')
    if (!leaf.cert.checkPrivateKey(privateKey))
      throw new UnprocessableError('The private key does not match the access certificate')
    const again = await this.activeAgain(verifierDid, leaf)
    if (again) return again
    const material = p256KeyPairOf(privateKey)
    const info = await this.certificates.freshKey(verifierDid, ACCESS_PURPOSE, material)
    if (Buffer.compare(info.publicKey, material.publicKey) !== 0)
      throw new ConflictError('Another access key was stored meanwhile; try again')
    return this.install(verifierDid, leaf, chain, info.kid)
  }

  /** A PKCS#10 request over the pending key (the same key until a certificate comes back for it). */
  async createRequest(verifierDid: string): Promise<string> {
    const { keys, host } = this.certificates.deps
    let pending = await this.pendingKey(verifierDid)
    pending ??= (await this.certificates.freshKey(verifierDid, ACCESS_CSR_PURPOSE)).kid
    const key = await keys.signingKey(pending)
    const name = await this.certificates.subjectName(verifierDid)
    return accessCertificateRequest(verifierSubject(name, 'Verifier Access'), host, {
      privateKey: key.privateKey,
      publicKey: key.publicKeyObject,
    })
  }

  async acceptCertificate(verifierDid: string, body: SignedAccessBody): Promise<VerifierCertificateView> {
    const { leaf, chain } = this.readChain(body)
    const again = await this.activeAgain(verifierDid, leaf)
    if (again) return again
    const pending = await this.pendingKey(verifierDid)
    if (!pending) throw new ConflictError('No certificate request is pending: POST .../certificates/csr first')
    const key = await this.certificates.deps.keys.signingKey(pending)
    if (!leaf.cert.checkPrivateKey(key.privateKey))
      throw new UnprocessableError('The certificate does not certify the key of the pending request')
    return this.install(verifierDid, leaf, chain, pending)
  }

  private readChain(body: { certificate_pem: string; chain_pems: string[] }) {
    const leaf = readCertificate(body.certificate_pem, 'certificate_pem')
    const chain = body.chain_pems.map((pem, i) => readCertificate(pem, `chain_pems[${i}]`))
    checkChain(leaf, chain, this.certificates.deps.clock.now())
    return { leaf, chain }
  }

  private async activeAgain(verifierDid: string, leaf: CheckedCertificate) {
    const active = await repo.findActive(this.certificates.deps.db, verifierDid, 'access')
    return active?.pem.trim() === leaf.pem.trim() ? view('access', active.pem, active) : undefined
  }

  private async pendingKey(verifierDid: string): Promise<string | undefined> {
    const { keys, db } = this.certificates.deps
    const active = (await keys.list(verifierDid, ACCESS_CSR_PURPOSE)).find((k) => k.status === 'active')
    if (!active || (await repo.keyIsCertified(db, active.kid))) return undefined
    return active.kid
  }

  private async install(
    verifierDid: string,
    leaf: CheckedCertificate,
    chain: CheckedCertificate[],
    keyId: string,
  ): Promise<VerifierCertificateView> {
    const { db, keys } = this.certificates.deps
    const root = chain[chain.length - 1]!
    const activeRoot = await repo.findActive(db, verifierDid, 'root')
    const activeAccess = await repo.findActive(db, verifierDid, 'access')
    const change: repo.VerifierChainChange = { retire: [], insert: [] }
    if (activeRoot?.pem.trim() !== root.pem.trim()) {
      if (activeRoot) change.retire.push(activeRoot.id)
      change.insert.push(rowOf(verifierDid, 'root', certOf(root), null))
    }
    if (activeAccess) change.retire.push(activeAccess.id)
    const intermediates = chain.slice(0, -1).map((c) => c.pem)
    const row = rowOf(verifierDid, 'access', certOf(leaf), keyId, intermediates)
    change.insert.push(row)
    if (!(await repo.applyChange(db, change)))
      throw new ConflictError('The certificates changed meanwhile; list them and try again')
    if (activeAccess?.key_id && activeAccess.key_id !== keyId) await keys.retire(activeAccess.key_id)
    return view('access', row.pem, { not_before: leaf.notBefore, not_after: leaf.notAfter, status: 'active' })
  }
}

const certOf = (c: CheckedCertificate) => ({ toString: () => c.pem, notBefore: c.notBefore, notAfter: c.notAfter })

/** The access certificate (P-256, digitalSignature when key usages are named) up a chain to a self-signed root, all valid now. */
function checkChain(leaf: CheckedCertificate, chain: CheckedCertificate[], now: Date): void {
  if (chain.length === 0) throw new ValidationError('chain_pems must name at least the root certificate')
  const key = leaf.cert.publicKey
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new UnprocessableError('The access certificate must certify a P-256 key (HAIP 1.0: ES256)')
  const usages = new x509.X509Certificate(leaf.cert.raw).getExtension(x509.KeyUsagesExtension)
  if (usages && !(usages.usages & x509.KeyUsageFlags.digitalSignature))
    throw new UnprocessableError('The access certificate does not allow digitalSignature (RFC 5280 §4.2.1.3)')
  const all = [leaf, ...chain]
  all.forEach((c, i) => {
    const what = i === 0 ? 'access certificate' : `chain_pems[${i - 1}]`
    if (now < c.notBefore || now > c.notAfter)
      throw new UnprocessableError(
        `The ${what} is not valid now (${c.notBefore.toISOString()} to ${c.notAfter.toISOString()})`,
      )
    const issuer: X509Certificate = (all[i + 1] ?? c).cert
    if (i > 0 && !c.cert.ca) throw new UnprocessableError(`${what} is not a CA certificate (basicConstraints)`)
    if (!c.cert.checkIssued(issuer) || !c.cert.verify(issuer.publicKey))
      throw new UnprocessableError(
        i === all.length - 1
          ? `The last certificate of chain_pems must be a self-signed root`
          : `The ${what} is not issued and signed by the certificate after it`,
      )
  })
}
