import type { Static } from '@sinclair/typebox'
import type { Hex } from 'viem'
import type { ChainClient } from '../../adapters/chain/chain-client.js'
import type { Database } from '../../db/database.js'
import { DependencyUnavailableError, ForbiddenError, NotFoundError } from '../../errors.js'
import { normalizeDid } from '../did/did-normalize.js'
import { claimIn, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { ChainAnchor } from './chain-anchor.js'
import {
  asBytes32,
  batchValue,
  consentKey,
  credentialChainId,
  didKey,
  normalizeHash,
  schemaKey,
  schemaVersionKey,
} from './chain-keys.js'
import * as repo from './chain-outbox.repository.js'
import { batchRegistry } from './merkle-v1.js'
import { merkleView, storedProofHolds, type MerkleView } from './merkle-view.js'
import type { ChainStatus } from './blockchain.schemas.js'

/**
 * The /api/blockchain helpers (and their legacy names): writes go through the durable outbox
 * (ChainAnchor) and answer at once with what is queued; reads combine what the service
 * recorded with a live read of the registries, so a caller sees both "what we sent" and
 * "what the chain says".
 */
export type Anchoring = 'queued' | 'sent' | 'mined' | 'failed'

export interface ChainRead {
  /** The chain answered the live read; false: the fields come from the service's records only. */
  verified_on_chain: boolean
  registrant: string
  contract: string
  error?: string
}

export interface CredentialAnchorView {
  issuer_did: string
  credential_hash: string
  anchoring: Anchoring
  on_chain: boolean
  revoked: boolean
  blockchain_tx_hash: string | null
  block_number: number | null
  revocation: { anchoring: Anchoring; blockchain_tx_hash: string | null; block_number: number | null } | null
  merkle: MerkleView | null
  chain: ChainRead
}

export interface SchemaAnchorView {
  issuer_did: string
  schema_id: string
  schema_hash: string
  anchoring: Anchoring
  on_chain: boolean
  blockchain_tx: string | null
  block_number: number | null
}

export interface ConsentAnchorView {
  user_did: string
  verifier_did: string
  purpose: string
  consent_key: string
  consent_salt: string
  anchoring: Anchoring
  on_chain: boolean
  granted: boolean
  revoked: boolean
  valid: boolean
  expires_at: string | null
  blockchain_tx: string | null
  chain: ChainRead
}

export interface BlockchainServiceDeps {
  db: Database
  anchor: ChainAnchor
  /** Undefined when no chain is configured. */
  client: ChainClient | undefined
  consentPepper: Uint8Array
  batchSize: number
  batchWaitMs: number
  /**
   * The issuer step-up check for a session (docs/decisions.md "Step-up"): anchoring a credential
   * hash under an issuer's DID or revoking it on chain is an issuer act like issuing and revoking.
   */
  stepUp?: (issuerDid: string, sessionId: string) => Promise<void>
}

const anchoringOf = (job: repo.ChainJob | null | undefined): Anchoring =>
  job ? (job.status === 'pending' ? 'queued' : job.status) : 'queued'

export class BlockchainService {
  constructor(private readonly deps: BlockchainServiceDeps) {}

  private chain(): ChainClient {
    if (!this.deps.client)
      throw new DependencyUnavailableError(
        'No blockchain is configured on this service (BLOCKCHAIN_RPC_URL is not set)',
      )
    return this.deps.client
  }

  /**
   * A record id in a write (credential_id, consent_id) names the record the dispatcher fills
   * with the transaction (docs/blockchain.md): it must be the caller's own. Another's is as
   * unknown as a missing one (DESIGN.md "Ownership"), checked before the chain so the answer
   * does not depend on the chain's configuration.
   */
  private async ownSubject(callerDid: string, kind: 'credential' | 'consent', id: string | undefined): Promise<void> {
    if (id === undefined) return
    if ((await repo.subjectOwner(this.deps.db, kind, id)) !== callerDid)
      throw new NotFoundError(kind === 'credential' ? 'Credential not found' : 'Consent not found')
  }

  /**
   * Queues the chain work; an Idempotency-Key `claim` is recorded in the same transaction as the
   * outbox row, under `resourceId` (what the replay reads the anchoring back by).
   */
  private async enqueue(
    request: Parameters<ChainAnchor['enqueue']>[1],
    claim?: ClaimKey,
    resourceId?: unknown[],
  ): Promise<void> {
    this.chain()
    await this.deps.db.transaction().execute(async (trx) => {
      await claimIn(trx, claim, JSON.stringify(resourceId))
      await this.deps.anchor.enqueue(trx, request)
    })
    this.deps.anchor.nudge()
  }

  async registerCredential(
    callerDid: string,
    body: { issuer_did: string; credential_hash: string; credential_id?: string },
    sessionId: string,
    claim?: ClaimKey,
  ): Promise<CredentialAnchorView> {
    const issuer = owned(callerDid, body.issuer_did)
    await this.deps.stepUp?.(issuer, sessionId)
    await this.ownSubject(issuer, 'credential', body.credential_id)
    const hash = normalizeHash(body.credential_hash)
    await this.enqueue(
      { kind: 'credential', issuerDid: issuer, credentialHash: hash, credentialId: body.credential_id },
      claim,
      [issuer, hash],
    )
    return this.checkCredential(issuer, hash, { live: false })
  }

  /** The answer of a credential registration, rebuilt from its anchoring (an Idempotency-Key replay). */
  replayCredential(resourceId: string): Promise<CredentialAnchorView> {
    const [issuer, hash] = JSON.parse(resourceId) as [string, string]
    return this.checkCredential(issuer, hash, { live: false })
  }

  async revokeCredential(
    callerDid: string,
    body: { issuer_did: string; credential_hash: string; credential_id?: string },
    sessionId: string,
  ): Promise<CredentialAnchorView> {
    const issuer = owned(callerDid, body.issuer_did)
    await this.deps.stepUp?.(issuer, sessionId)
    await this.ownSubject(issuer, 'credential', body.credential_id)
    this.chain()
    const hash = normalizeHash(body.credential_hash)
    if (!(await repo.findLeaf(this.deps.db, issuer, hash)))
      throw new NotFoundError('This credential hash was not anchored by this service')
    await this.enqueue({
      kind: 'revocation',
      issuerDid: issuer,
      credentialHash: hash,
      credentialId: body.credential_id,
    })
    return this.checkCredential(issuer, hash, { live: false })
  }

  async checkCredential(
    issuerDid: string,
    credentialHash: string,
    options: { live?: boolean } = {},
  ): Promise<CredentialAnchorView> {
    const client = this.chain()
    const issuer = normalizeDid(issuerDid)
    const hash = normalizeHash(credentialHash)
    const leaf = await repo.findLeaf(this.deps.db, issuer, hash)
    const revocation = await repo.latestJob(this.deps.db, credentialChainId(issuer, hash), ['credential-revoke'])
    const batch = leaf?.batch ?? null
    const merkle = leaf && batch ? merkleView(leaf, batch, batchValue(issuer, hash)) : null
    // A version-1 batch is read where its root lives, which after an upgrade is not the current registry.
    const registry = batch ? batchRegistry(client.contracts, batch.payload) : client.contracts.credentialRegistry
    const view: CredentialAnchorView = {
      issuer_did: issuer,
      credential_hash: hash,
      anchoring: leaf ? anchoringOf(batch) : 'queued',
      on_chain: batch?.status === 'mined',
      revoked: revocation?.status === 'mined',
      blockchain_tx_hash: batch?.tx_hash ?? null,
      block_number: batch?.block_number ?? null,
      revocation: revocation
        ? {
            anchoring: anchoringOf(revocation),
            blockchain_tx_hash: revocation.tx_hash,
            block_number: revocation.block_number,
          }
        : null,
      merkle,
      chain: { verified_on_chain: false, registrant: client.account, contract: registry },
    }
    if (options.live === false) return view
    if (!leaf) {
      // Not anchored through this service: a single registration by its account may still exist.
      const live = await this.liveRead(view.chain, () =>
        client.credentialStatus(client.account, didKey(issuer), asBytes32(hash)),
      )
      if (!live || live.registeredAt === 0n)
        throw new NotFoundError('This credential hash is not anchored by this service')
      return { ...view, anchoring: 'mined', on_chain: true, revoked: live.revokedAt > 0n }
    }
    if (merkle) {
      if (!storedProofHolds(merkle)) throw new Error(`stored inclusion proof of leaf ${leaf.id} does not verify`)
      const live = await this.liveRead(view.chain, () =>
        client.batchedStatus(
          registry,
          client.account,
          didKey(issuer),
          asBytes32(hash),
          merkle.root as Hex,
          merkle.proof as Hex[],
        ),
      )
      if (live) return { ...view, on_chain: live.anchoredAt > 0n, revoked: live.revokedAt > 0n }
    }
    return view
  }

  async registerSchema(
    callerDid: string,
    body: { issuer_did: string; schema_id: string; schema_hash: string },
    claim?: ClaimKey,
  ): Promise<SchemaAnchorView> {
    const issuer = owned(callerDid, body.issuer_did)
    // Any schema id may be registered (also one defined outside this service), but not one of
    // this service's schemas that another issuer owns: the dispatcher writes onto that record.
    const schemaOwner = await repo.subjectOwner(this.deps.db, 'schema', body.schema_id)
    if (schemaOwner !== undefined && schemaOwner !== issuer) throw new NotFoundError('Schema not found')
    const hash = normalizeHash(body.schema_hash, 'schema_hash')
    await this.enqueue({ kind: 'schema', issuerDid: issuer, schemaId: body.schema_id, schemaHash: hash }, claim, [
      issuer,
      body.schema_id,
      hash,
    ])
    return this.schemaView(issuer, body.schema_id, hash)
  }

  /** The answer of a schema registration, rebuilt from its chain job (an Idempotency-Key replay). */
  replaySchema(resourceId: string): Promise<SchemaAnchorView> {
    const [issuer, schemaId, hash] = JSON.parse(resourceId) as [string, string, string]
    return this.schemaView(issuer, schemaId, hash)
  }

  private async schemaView(issuer: string, schemaId: string, hash: string): Promise<SchemaAnchorView> {
    const job = await repo.latestJob(this.deps.db, schemaVersionKey(schemaId, hash), ['schema'])
    return {
      issuer_did: issuer,
      schema_id: schemaId,
      schema_hash: hash,
      anchoring: anchoringOf(job),
      on_chain: job?.status === 'mined',
      blockchain_tx: job?.tx_hash ?? null,
      block_number: job?.block_number ?? null,
    }
  }

  /** The latest registered version of a schema, read from the chain. */
  async checkSchema(schemaId: string): Promise<{
    schema_id: string
    issuer: string
    schema_hash: string
    versions: number
    registered_at: string | null
    chain: ChainRead
  }> {
    const client = this.chain()
    const chain: ChainRead = {
      verified_on_chain: false,
      registrant: client.account,
      contract: client.contracts.schemaRegistry,
    }
    const live = await this.liveRead(chain, () => client.schema(client.account, schemaKey(schemaId)))
    if (!live) throw new DependencyUnavailableError('The blockchain is not reachable')
    if (live.versions === 0) throw new NotFoundError('This schema is not registered on chain')
    return {
      schema_id: schemaId,
      issuer: live.issuer,
      schema_hash: live.latestHash.slice(2),
      versions: live.versions,
      registered_at: new Date(Number(live.registeredAt) * 1000).toISOString(),
      chain,
    }
  }

  async grantConsent(
    callerDid: string,
    body: { user_did: string; verifier_did: string; purpose: string; expires_at?: string; consent_id?: string },
    claim?: ClaimKey,
  ): Promise<ConsentAnchorView> {
    const holder = owned(callerDid, body.user_did)
    await this.ownSubject(holder, 'consent', body.consent_id)
    const grant = { holderDid: holder, verifierDid: body.verifier_did, purpose: body.purpose }
    await this.enqueue(
      {
        kind: 'consent-grant',
        ...grant,
        expiresAt: body.expires_at ? new Date(body.expires_at) : null,
        consentId: body.consent_id,
      },
      claim,
      [holder, body.verifier_did, body.purpose],
    )
    return this.checkConsent(holder, body.verifier_did, body.purpose, { live: false })
  }

  /** The answer of a consent grant, rebuilt from its chain job (an Idempotency-Key replay). */
  replayConsent(resourceId: string): Promise<ConsentAnchorView> {
    const [holder, verifier, purpose] = JSON.parse(resourceId) as [string, string, string]
    return this.checkConsent(holder, verifier, purpose, { live: false })
  }

  async revokeConsent(
    callerDid: string,
    body: { user_did: string; verifier_did: string; purpose: string; consent_id?: string },
  ): Promise<ConsentAnchorView> {
    const holder = owned(callerDid, body.user_did)
    await this.ownSubject(holder, 'consent', body.consent_id)
    this.chain()
    const { key } = consentKey(this.deps.consentPepper, {
      holderDid: holder,
      verifierDid: body.verifier_did,
      purpose: body.purpose,
    })
    if (!(await repo.latestJob(this.deps.db, key, ['consent-grant'])))
      throw new NotFoundError('No consent was granted on chain for this verifier and purpose')
    await this.enqueue({
      kind: 'consent-revoke',
      holderDid: holder,
      verifierDid: body.verifier_did,
      purpose: body.purpose,
      consentId: body.consent_id,
    })
    return this.checkConsent(holder, body.verifier_did, body.purpose, { live: false })
  }

  async checkConsent(
    userDid: string,
    verifierDid: string,
    purpose: string,
    options: { live?: boolean } = {},
  ): Promise<ConsentAnchorView> {
    const client = this.chain()
    const holder = normalizeDid(userDid)
    const verifier = normalizeDid(verifierDid)
    const { key, salt } = consentKey(this.deps.consentPepper, { holderDid: holder, verifierDid: verifier, purpose })
    const job = await repo.latestJob(this.deps.db, key, ['consent-grant', 'consent-revoke'])
    const grant = job?.kind === 'consent-grant' ? job : await repo.latestJob(this.deps.db, key, ['consent-grant'])
    if (!grant) throw new NotFoundError('No consent was granted on chain for this holder, verifier and purpose')
    const expiresSec = Number(grant.payload.expires_at ?? 0)
    const revoked = job?.kind === 'consent-revoke' && job.status === 'mined'
    const granted = grant.status === 'mined'
    const view: ConsentAnchorView = {
      user_did: holder,
      verifier_did: verifier,
      purpose,
      consent_key: key,
      consent_salt: salt,
      anchoring: anchoringOf(job),
      on_chain: granted,
      granted,
      revoked,
      valid: granted && !revoked && (expiresSec === 0 || expiresSec * 1000 > Date.now()),
      expires_at: expiresSec ? new Date(expiresSec * 1000).toISOString() : null,
      blockchain_tx: job?.tx_hash ?? null,
      chain: { verified_on_chain: false, registrant: client.account, contract: client.contracts.consentRegistry },
    }
    if (options.live === false) return view
    const live = await this.liveRead(view.chain, () => client.consent(client.account, key))
    if (!live) return view
    return {
      ...view,
      on_chain: live.grantedAt > 0n,
      granted: live.grantedAt > 0n,
      revoked: live.revokedAt > 0n,
      valid: live.valid,
      expires_at: live.expiresAt > 0n ? new Date(Number(live.expiresAt) * 1000).toISOString() : null,
    }
  }

  async status(): Promise<Static<typeof ChainStatus>> {
    const client = this.deps.client
    if (!client) return { configured: false, reachable: false }
    const outbox = await repo.statusCounts(this.deps.db)
    let chainId: number | null = null
    let blockNumber: number | null = null
    let reachable = false
    try {
      chainId = await client.chainId()
      blockNumber = Number(await client.blockNumber())
      reachable = true
    } catch {
      // Unreachable: reported as such, with the outbox backlog that waits for it.
    }
    return {
      configured: true,
      reachable,
      chain_id: chainId,
      block_number: blockNumber,
      account: client.account,
      contracts: {
        credential_registry: client.contracts.credentialRegistry,
        schema_registry: client.contracts.schemaRegistry,
        consent_registry: client.contracts.consentRegistry,
        ...(client.contracts.credentialRegistryV1
          ? { credential_registry_v1: client.contracts.credentialRegistryV1 }
          : {}),
      },
      batch: { max_size: this.deps.batchSize, max_wait_ms: this.deps.batchWaitMs },
      outbox: { ...outbox.jobs, unbatched_credentials: outbox.unbatched },
    }
  }

  /** A read of the chain that may fail (chain down): the answer falls back to the service's records. */
  private async liveRead<T>(chain: ChainRead, read: () => Promise<T>): Promise<T | undefined> {
    try {
      const value = await read()
      chain.verified_on_chain = true
      return value
    } catch {
      // No error text: an RPC URL may carry a provider's API key, and viem's messages quote it.
      chain.error = 'blockchain not reachable: answer from the service records'
      return undefined
    }
  }
}

/** DESIGN.md "Ownership": the acting DID of a write must be the token's. */
function owned(callerDid: string, did: string): string {
  const normalized = normalizeDid(did)
  if (normalized !== callerDid) throw new ForbiddenError('The DID in the body is not the authenticated DID')
  return normalized
}
