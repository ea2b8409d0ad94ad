import { X509Certificate } from 'node:crypto'
import { importJWK } from 'jose'
import type { Clock } from '../../../adapters/clock.js'
import type { Database } from '../../../db/database.js'
import { ValidationError } from '../../../errors.js'
import type { IssuerService } from '../../issuer/issuer.service.js'
import { carriesPrivateKey, type IssuerContextCache } from './oid4vci-context.js'
import { DEFAULT_POLICY, type Oid4vciPolicy } from './oid4vci-policy.js'
import * as repo from './oid4vci-policy.repository.js'
import type { TrustedWalletProvider } from './oid4vci-policy.table.js'

export interface PolicyDeps {
  db: Database
  clock: Clock
  issuers: IssuerService
  contexts?: IssuerContextCache
}

/** An issuer's OpenID4VCI policy: read by its credential issuer, set by the issuer (with step-up when its profile requires it). */
export class Oid4vciPolicyService {
  constructor(private readonly deps: PolicyDeps) {}

  /** The policy of an issuer; the defaults when it never set one. */
  async of(issuerDid: string): Promise<Oid4vciPolicy> {
    return (await repo.findPolicy(this.deps.db, issuerDid)) ?? { ...DEFAULT_POLICY }
  }

  async get(issuerDid: string): Promise<Oid4vciPolicy> {
    await this.deps.issuers.profile(issuerDid)
    return this.of(issuerDid)
  }

  async set(issuerDid: string, sessionId: string | undefined, policy: Oid4vciPolicy): Promise<Oid4vciPolicy> {
    const issuer = await this.deps.issuers.steppedUpProfile(issuerDid, sessionId)
    if (
      (policy.wallet_attestation_required || policy.key_attestation_required) &&
      !policy.trusted_wallet_providers.length
    )
      throw new ValidationError('Requiring wallet or key attestations needs at least one trusted wallet provider')
    await Promise.all(policy.trusted_wallet_providers.map(checkProvider))
    await repo.savePolicy(this.deps.db, issuerDid, policy, this.deps.clock.now())
    // This instance serves the new metadata at once; others within the context cache's few seconds.
    this.deps.contexts?.forget(issuer.web_id)
    return this.of(issuerDid)
  }
}

/** A provider's key must be a public signing key jose can use; its certificate one node:crypto parses. */
async function checkProvider(provider: TrustedWalletProvider, index: number): Promise<void> {
  const where = `trusted_wallet_providers[${index}]`
  if ('jwk' in provider) {
    if (carriesPrivateKey(provider.jwk)) throw new ValidationError(`${where}.jwk must be a public key`)
    try {
      await importJWK(provider.jwk as Parameters<typeof importJWK>[0], 'ES256')
    } catch {
      throw new ValidationError(`${where}.jwk is not a P-256 public key (attestations are signed ES256, HAIP 1.0)`)
    }
    return
  }
  try {
    new X509Certificate(provider.certificate_pem)
  } catch {
    throw new ValidationError(`${where}.certificate_pem is not a PEM certificate`)
  }
}
