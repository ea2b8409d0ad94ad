import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { NotFoundError } from '../../errors.js'
import * as repo from './verifier.repository.js'
import type { TrustSource } from './verifier.table.js'
import { readTrustedCertificates, stillTrusted, type TrustedCertificate } from './trusted-certificates.js'

/** A verifier's trust sources as the route answers them: each with what was read of it. */
export interface TrustView {
  verifier_did: string
  sources: Array<{
    type: TrustSource['type']
    certificates: Array<{ pem: string; subject: string; not_after: string }>
    state: { loaded: boolean; entries: number }
  }>
  updated_at: string | null
}

/**
 * Whom a verifier trusts besides the issuers hosted here (docs/trust.md "Trust sources"): X.509
 * certificates (the IACA roots of mdoc issuers elsewhere, ISO/IEC 18013-5 §9.3.3), kept per
 * verifier in the database so every instance sees the same.
 */
export class VerifierTrustService {
  constructor(private readonly deps: { db: Database; clock: Clock }) {}

  async get(verifierDid: string): Promise<TrustView> {
    await this.profileOf(verifierDid)
    const row = await repo.findTrust(this.deps.db, verifierDid)
    return view(verifierDid, row?.sources ?? [], row?.updated_at ?? null, this.deps.clock.now())
  }

  /** Replaces the verifier's sources with these, each certificate read and checked first. */
  async put(verifierDid: string, sources: TrustSource[]): Promise<TrustView> {
    await this.profileOf(verifierDid)
    const now = this.deps.clock.now()
    const read = sources.map((s, i) => ({
      type: s.type,
      certificates: readTrustedCertificates(s.certificates, `sources[${i}].certificates`, now).map((c) => c.pem),
    }))
    await repo.upsertTrust(this.deps.db, verifierDid, read, now)
    return view(verifierDid, read, now, now)
  }

  /** The certificates (DER) the verifier trusts now; an expired one no longer counts. */
  async trustedCertificates(verifierDid: string): Promise<Uint8Array[]> {
    const row = await repo.findTrust(this.deps.db, verifierDid)
    return certificatesOf(row?.sources ?? [], this.deps.clock.now()).map((c) => c.der)
  }

  private async profileOf(verifierDid: string): Promise<void> {
    if (!(await repo.findVerifier(this.deps.db, verifierDid)))
      throw new NotFoundError('No verifier profile for this DID: create it with POST /api/verifier')
  }
}

const certificatesOf = (sources: TrustSource[], now: Date): TrustedCertificate[] =>
  sources.flatMap((s) => stillTrusted(s.certificates, now))

function view(verifierDid: string, sources: TrustSource[], updatedAt: Date | null, now: Date): TrustView {
  return {
    verifier_did: verifierDid,
    sources: sources.map((s) => {
      const loaded = certificatesOf([s], now)
      return {
        type: s.type,
        certificates: loaded.map((c) => ({ pem: c.pem, subject: c.subject, not_after: c.notAfter.toISOString() })),
        state: { loaded: loaded.length === s.certificates.length, entries: loaded.length },
      }
    }),
    updated_at: updatedAt ? updatedAt.toISOString() : null,
  }
}
