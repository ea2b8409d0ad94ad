import { randomUUID, X509Certificate as NodeCertificate } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { Clock } from '../../adapters/clock.js'
import { generateP256, type P256KeyPair } from '../../crypto/p256.js'
import type { Database } from '../../db/database.js'
import { ConflictError, NotFoundError } from '../../errors.js'
import type { KeyStore, PublicKeyInfo } from '../keys/key-store.js'
import type { VerifierAccess, VerifierAccessSigner } from './verifier-access.js'
import { accessCertificate, dnsNamesOf, verifierRoot, verifierSubject } from './verifier-certificate-profiles.js'
import * as repo from './verifier-certificates.repository.js'
import type { VerifierCertificateUse } from './verifier-certificates.table.js'

/** Key store purposes of a verifier's certificate keys (owner: the verifier's DID). */
export const ROOT_PURPOSE = 'verifier-root'
export const ACCESS_PURPOSE = 'verifier-access'
export const ACCESS_CSR_PURPOSE = 'verifier-access-csr'

const DAY_MS = 86_400_000
const ROOT_VALIDITY_MS = 3650 * DAY_MS
const ACCESS_VALIDITY_MS = 365 * DAY_MS
/** An access certificate this close to its end is replaced at its next use, so wallets never see an expired one. */
const ACCESS_RENEW_WINDOW_MS = 30 * DAY_MS

export interface VerifierCertificateView {
  use: VerifierCertificateUse | 'intermediate'
  pem: string
  not_before: Date
  not_after: Date
  status: 'active' | 'retired'
}

export interface VerifierCertificatesDeps {
  db: Database
  keys: KeyStore
  clock: Clock
  /** The host of PUBLIC_BASE_URL: the dNSName of the access certificates made here (x509_san_dns). */
  host: string
}

/**
 * Each verifier's access certificate chain (docs/adr/0044-verifier-certificates.md): a root of its
 * own and the access certificate it issues, made on first use and renewed before it ends or when
 * the service's host changes; or a chain from an outside CA (verifier-outside-ca.service.ts).
 */
export class VerifierCertificateService implements VerifierAccess {
  constructor(readonly deps: VerifierCertificatesDeps) {}

  /**
   * Every certificate of the verifier, oldest first (an imported chain's intermediates after its
   * access certificate). A verifier profile's chain is made first if it has none; a DID with
   * neither a profile nor certificates is 404, so the public listing makes no keys for strangers.
   */
  async list(verifierDid: string): Promise<VerifierCertificateView[]> {
    if (await repo.verifierProfile(this.deps.db, verifierDid)) await this.currentAccess(verifierDid)
    const rows = await repo.listByVerifier(this.deps.db, verifierDid)
    if (rows.length === 0) throw new NotFoundError('Verifier not found')
    return rows.flatMap((r) => [
      view(r.use, r.pem, r),
      ...r.chain.map((pem) => {
        const c = new x509.X509Certificate(pem)
        return view('intermediate', pem, { not_before: c.notBefore, not_after: c.notAfter, status: r.status })
      }),
    ])
  }

  async accessSigner(verifierDid: string): Promise<VerifierAccessSigner> {
    const access = await this.currentAccess(verifierDid)
    if (access.not_after <= this.deps.clock.now())
      throw new ConflictError(
        'The access certificate from the outside CA has expired: import a new one or send a new CSR',
      )
    const key = await this.deps.keys.signingKey(access.key_id!)
    const der = new Uint8Array(new NodeCertificate(access.pem).raw)
    return {
      verifierDid,
      privateKey: key.privateKey,
      x5c: [access.pem, ...access.chain].map((pem) => Buffer.from(new NodeCertificate(pem).raw).toString('base64')),
      dnsNames: dnsNamesOf(der),
    }
  }

  /** A new access certificate now, from the verifier's own root; the old one retired but listed. */
  async rotate(verifierDid: string): Promise<VerifierCertificateView> {
    const current = await this.currentAccess(verifierDid)
    if (!(await this.renew(verifierDid, current)))
      throw new ConflictError('The access certificate changed meanwhile; list the certificates and try again')
    const access = (await repo.findActive(this.deps.db, verifierDid, 'access'))!
    return view('access', access.pem, access)
  }

  /** A new key for a purpose, the purpose's active one retired first (the key store keeps one active). */
  async freshKey(owner: string, purpose: string, material: P256KeyPair = generateP256()): Promise<PublicKeyInfo> {
    const active = (await this.deps.keys.list(owner, purpose)).find((k) => k.status === 'active')
    if (active) await this.deps.keys.retire(active.kid)
    return this.deps.keys.storeKey(owner, purpose, 'P-256', material)
  }

  async subjectName(verifierDid: string): Promise<string | undefined> {
    return (await repo.verifierProfile(this.deps.db, verifierDid))?.name
  }

  /** The active access certificate: made on first use, renewed when due (an outside CA's is left as it is). */
  private async currentAccess(verifierDid: string): Promise<repo.VerifierCertificateRow> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const access = await repo.findActive(this.deps.db, verifierDid, 'access')
      if (access && !this.renewalDue(access)) return access
      if (access && !(await repo.findActive(this.deps.db, verifierDid, 'root'))?.key_id) return access
      await this.renew(verifierDid, access)
    }
    throw new ConflictError('The access certificate is being changed concurrently; try again')
  }

  /** Near its end, or not naming the service's host any more (PUBLIC_BASE_URL changed). */
  private renewalDue(access: repo.VerifierCertificateRow): boolean {
    const left = access.not_after.getTime() - this.deps.clock.now().getTime()
    return (
      left <= ACCESS_RENEW_WINDOW_MS ||
      !dnsNamesOf(new Uint8Array(new NodeCertificate(access.pem).raw)).includes(this.deps.host)
    )
  }

  /** Makes an access certificate (replacing `current`) from the verifier's own root, made too when missing or ending. */
  private async renew(verifierDid: string, current: repo.VerifierCertificateRow | undefined): Promise<boolean> {
    const { keys, clock } = this.deps
    const now = clock.now()
    const name = await this.subjectName(verifierDid)
    const change: repo.VerifierChainChange = { retire: [], insert: [] }
    let root = await repo.findActive(this.deps.db, verifierDid, 'root')
    if (root && !root.key_id)
      throw new ConflictError('The access certificate chains to an outside CA: import a new one or send a new CSR')
    if (!root || root.not_after.getTime() - now.getTime() < ACCESS_VALIDITY_MS) {
      // First use reuses a concurrent caller's key (storeKey answers the active one); renewal makes a new one.
      const info = root
        ? await this.freshKey(verifierDid, ROOT_PURPOSE)
        : await keys.storeKey(verifierDid, ROOT_PURPOSE, 'P-256', generateP256())
      const key = await keys.signingKey(info.kid)
      const cert = await verifierRoot(
        verifierSubject(name, 'Verifier Root'),
        { privateKey: key.privateKey, publicKey: key.publicKeyObject },
        { notBefore: now, notAfter: new Date(now.getTime() + ROOT_VALIDITY_MS) },
      )
      if (root) change.retire.push(root.id)
      const row = rowOf(verifierDid, 'root', cert, info.kid)
      root = { ...row, status: 'active', created_at: now }
      change.insert.push(row)
    }
    const rootKey = await keys.signingKey(root.key_id!)
    const info = current
      ? await this.freshKey(verifierDid, ACCESS_PURPOSE)
      : await keys.storeKey(verifierDid, ACCESS_PURPOSE, 'P-256', generateP256())
    if (current?.key_id && current.key_id !== info.kid) await keys.retire(current.key_id)
    const key = await keys.signingKey(info.kid)
    const cert = await accessCertificate({
      root: new x509.X509Certificate(root.pem),
      rootKey: rootKey.privateKey,
      subject: verifierSubject(name, 'Verifier Access'),
      publicKey: key.publicKeyObject,
      dnsName: this.deps.host,
      validity: {
        notBefore: now,
        notAfter: new Date(Math.min(now.getTime() + ACCESS_VALIDITY_MS, root.not_after.getTime())),
      },
    })
    if (current) change.retire.push(current.id)
    change.insert.push(rowOf(verifierDid, 'access', cert, info.kid))
    return repo.applyChange(this.deps.db, change)
  }
}

export function view(
  use: VerifierCertificateView['use'],
  pem: string,
  r: { not_before: Date; not_after: Date; status: 'active' | 'retired' },
): VerifierCertificateView {
  return { use, pem, not_before: r.not_before, not_after: r.not_after, status: r.status }
}

/** A certificate row from a made or checked certificate; dates as the certificate states them. */
export function rowOf(
  verifierDid: string,
  use: VerifierCertificateUse,
  cert: { toString(format: 'pem'): string; notBefore: Date; notAfter: Date },
  keyId: string | null,
  chain: string[] = [],
): repo.NewVerifierCertificate {
  return {
    id: randomUUID(),
    verifier_did: verifierDid,
    use,
    pem: cert.toString('pem'),
    chain,
    key_id: keyId,
    not_before: cert.notBefore,
    not_after: cert.notAfter,
  }
}
