import { randomUUID } from 'node:crypto'
import { isUniqueViolation } from '../../db/pg-errors.js'
import type { Clock } from '../../adapters/clock.js'
import type { ContentStore } from '../../adapters/content-store/content-store.js'
import { canonicalize, jcsSha256Hex } from '../../crypto/jcs.js'
import type { Database, Executor, SigningMethod } from '../../db/database.js'
import { ConflictError, NotFoundError, UnauthenticatedError, ValidationError } from '../../errors.js'
import type { AuthService, Proof } from '../auth/auth.service.js'
import type { AccessClaims } from '../auth/token-service.js'
import type { ChainAnchor } from '../blockchain/chain-anchor.js'
import { claimIn, withClaim, type ClaimKey } from '../idempotency/idempotency.service.js'
import * as issuers from './issuer.repository.js'
import type { IssuerBody, IssuerUpdateBody, SchemaBody, SchemaUpdateBody } from './issuer.schemas.js'
import * as schemas from './schemas.repository.js'
import type { SigningIdentities } from '../identity/signing-identities.js'
import { schemaInUse } from './templates.repository.js'

export interface IssuerServiceDeps {
  db: Database
  content: ContentStore
  auth: AuthService
  identities: SigningIdentities
  clock: Clock
  /** How long a step-up lasts (STEP_UP_TTL_SECONDS), never past the token that performed it. */
  stepUpTtlSeconds: number
  /** Chain anchoring of new schemas (docs/blockchain.md); absent or unconfigured: nothing is queued. */
  anchor?: ChainAnchor
}

function assertSteppedUpAt(issuer: { require_step_up: boolean; step_up_until: Date | null }, now: Date): void {
  if (!issuer.require_step_up) return
  if (!issuer.step_up_until || issuer.step_up_until.getTime() <= now.getTime()) {
    throw new UnauthenticatedError(
      'This issuer requires step-up: sign a "step-up" challenge with POST /api/issuer/:did/authenticate first',
    )
  }
}

/**
 * The step-up check of a session for an act outside the issuer routes (IssuerService.assertSessionSteppedUp),
 * needing only the issuer tables: modules the issuer service depends on (blockchain) can use it.
 */
export function sessionStepUp(db: Executor, clock: Clock): (did: string, sessionId: string) => Promise<void> {
  return async (did, sessionId) => {
    const issuer = await issuers.findIssuerForSession(db, did, sessionId)
    if (issuer) assertSteppedUpAt(issuer, clock.now())
  }
}

/** A schema by id, for anyone (its JSON-LD context, its public document), or NotFound. */
export async function findPublicSchema(db: Executor, id: string): Promise<schemas.SchemaRow> {
  const found = await schemas.findSchemaById(db, id)
  if (!found) throw new NotFoundError('Schema not found')
  return found
}

/** Issuer profiles and their credential schemas. */
export class IssuerService {
  constructor(private readonly deps: IssuerServiceDeps) {}

  /** `claim` (an Idempotency-Key) is recorded in the profile's transaction, for the DID. */
  async createProfile(did: string, input: IssuerBody, claim?: ClaimKey): Promise<issuers.IssuerRow> {
    const values = {
      did,
      name: input.name,
      description: input.description ?? '',
      website: input.website ?? null,
      logo_url: input.logo_url ?? null,
      email: input.email ?? null,
      country: input.country ?? null,
      signing_method: input.signing_did_method ?? 'web',
      web_id: randomUUID().replaceAll('-', ''),
    }
    const created = await withClaim(this.deps.db, claim, did, async (db) => {
      const inserted = await issuers.insertIssuer(db, values)
      // Thrown inside, so that a claim made with it rolls back too.
      if (!inserted) throw new ConflictError('This DID already has an issuer profile')
      return inserted
    })
    // The custodial signing keys (Ed25519, P-256, BBS) are made with the profile, under its signing
    // DID(s); made on first use otherwise, should this not run (a crash after the commit).
    await this.deps.identities.prepare(created)
    return created
  }

  async profile(did: string): Promise<issuers.IssuerRow> {
    const issuer = await issuers.findIssuer(this.deps.db, did)
    if (!issuer) throw new NotFoundError('No issuer profile for this DID: create it with POST /api/issuer')
    return issuer
  }

  async updateProfile(did: string, patch: IssuerUpdateBody): Promise<issuers.IssuerRow> {
    const updated = await issuers.updateIssuer(this.deps.db, did, patch, this.deps.clock.now())
    if (!updated) throw new NotFoundError('No issuer profile for this DID: create it with POST /api/issuer')
    return updated
  }

  /** set-auth: whether sensitive issuer acts need a fresh step-up signature; itself needs one. */
  async setStepUp(did: string, required: boolean, proof: Proof): Promise<issuers.IssuerRow> {
    await this.profile(did)
    await this.deps.auth.proveControl(proof, did)
    return (await issuers.updateIssuer(this.deps.db, did, { require_step_up: required }, this.deps.clock.now()))!
  }

  /**
   * authenticate: checks a fresh step-up signature of the issuer's DID key (and spends it), and
   * records the step-up for this session only (the token's jti), until the earlier of the step-up
   * TTL and the token's own expiry.
   */
  async authenticate(
    session: Pick<AccessClaims, 'did' | 'jti' | 'expiresAt'>,
    proof: Proof,
  ): Promise<{ at: Date; expiresAt: Date }> {
    const did = session.did
    await this.profile(did)
    await this.deps.auth.proveControl(proof, did)
    const at = this.deps.clock.now()
    const expiresAt = new Date(Math.min(at.getTime() + this.deps.stepUpTtlSeconds * 1000, session.expiresAt * 1000))
    await issuers.recordStepUp(this.deps.db, { issuerDid: did, sessionId: session.jti, at, expiresAt })
    return { at, expiresAt }
  }

  /**
   * With `require_step_up`, issuing and revoking need a step-up (`authenticate`) by the same
   * session, not yet expired: another token of the DID (a stolen one, a new login) cannot issue
   * or revoke on the strength of it. `step_up_until` is this session's step-up, read with the profile.
   */
  assertSteppedUp(issuer: { require_step_up: boolean; step_up_until: Date | null }): void {
    assertSteppedUpAt(issuer, this.deps.clock.now())
  }

  /** The same check for an act outside the issuer routes by a DID that may have no issuer profile (then nothing to require). */
  assertSessionSteppedUp(did: string, sessionId: string): Promise<void> {
    return sessionStepUp(this.deps.db, this.deps.clock)(did, sessionId)
  }

  /** The profile, after the step-up check for this session (see assertSteppedUp). */
  async steppedUpProfile(did: string, sessionId: string | undefined): Promise<issuers.IssuerRow> {
    const issuer = await issuers.findIssuerForSession(this.deps.db, did, sessionId ?? null)
    if (!issuer) throw new NotFoundError('No issuer profile for this DID: create it with POST /api/issuer')
    this.assertSteppedUp(issuer)
    return issuer
  }

  /** `claim` (an Idempotency-Key) is recorded in the schema's transaction, for its id. */
  async createSchema(issuerDid: string, input: SchemaBody, claim?: ClaimKey): Promise<schemas.SchemaRow> {
    await this.profile(issuerDid)
    const values = this.schemaValues(`schema-${randomUUID()}`, issuerDid, input)
    // mdoc is published only when set, so schemas without it keep their published form (and CID).
    const { ipfs_hash: _unused, mdoc, ...rest } = values
    const document = mdoc ? { ...rest, mdoc } : rest
    values.ipfs_hash = await this.publish(values)
    const anchor = this.deps.anchor?.configured ? this.deps.anchor : undefined
    const insert = async (db: Executor) => {
      const inserted = await schemas.insertSchema(db, values)
      if (!inserted)
        throw new ConflictError(
          `A schema "${input.name}" version "${input.version}" already exists: use a new version label`,
        )
      await anchor?.enqueue(db, {
        kind: 'schema',
        issuerDid,
        schemaId: inserted.id,
        schemaHash: jcsSha256Hex(document),
      })
      return inserted
    }
    // With a chain, the schema row and its anchoring job commit together or not at all (and with its key).
    const created = anchor
      ? await this.deps.db.transaction().execute(async (trx) => {
          await claimIn(trx, claim, values.id)
          return insert(trx)
        })
      : await withClaim(this.deps.db, claim, values.id, insert)
    anchor?.nudge()
    return created
  }

  async schema(issuerDid: string, id: string): Promise<schemas.SchemaRow> {
    const found = await schemas.findSchema(this.deps.db, issuerDid, id)
    if (!found) throw new NotFoundError('Schema not found')
    return found
  }

  /** A schema by id whoever its issuer: what its public JSON-LD context, JSON Schema and SD-JWT VC Type Metadata are made from. */
  /** Records the issuer's new signing method; the caller forgets the signers cached under the old one. */
  recordSigningMethod(did: string, method: SigningMethod, now: Date): Promise<void> {
    return issuers.setSigningMethod(this.deps.db, did, method, now)
  }

  publicSchema(id: string): Promise<schemas.SchemaRow> {
    return findPublicSchema(this.deps.db, id)
  }

  listSchemas(issuerDid: string, page: { limit: number; after?: string }): Promise<schemas.SchemaRow[]> {
    return schemas.listSchemas(this.deps.db, issuerDid, page)
  }

  async updateSchema(issuerDid: string, id: string, patch: SchemaUpdateBody): Promise<schemas.SchemaRow> {
    const current = await this.schema(issuerDid, id)
    const values = this.schemaValues(id, issuerDid, {
      name: patch.name ?? current.name,
      description: patch.description ?? current.description,
      version: patch.version ?? current.version,
      attributes: patch.attributes ?? (current.attributes as SchemaBody['attributes']),
      extensions_allowed: patch.extensions_allowed ?? current.extensions_allowed,
      allowed_extensions: patch.allowed_extensions ?? current.allowed_extensions,
      evidence_allowed: patch.evidence_allowed ?? current.evidence_allowed,
      allowed_evidence: patch.allowed_evidence ?? current.allowed_evidence,
      anonymous_credentials: patch.anonymous_credentials ?? current.anonymous_credentials,
      ...((patch.mdoc ?? current.mdoc) ? { mdoc: patch.mdoc ?? current.mdoc! } : {}),
    })
    values.ipfs_hash = await this.publish(values)
    try {
      const updated = await schemas.updateSchema(this.deps.db, issuerDid, id, values, this.deps.clock.now())
      if (!updated) throw new NotFoundError('Schema not found')
      return updated
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('Another schema of this issuer has that name and version')
      throw error
    }
  }

  async deleteSchema(issuerDid: string, id: string): Promise<void> {
    await this.schema(issuerDid, id)
    if (await schemaInUse(this.deps.db, id))
      throw new ConflictError('The schema is in use by a template or by issued credentials, offers or requests')
    try {
      if (!(await schemas.deleteSchema(this.deps.db, issuerDid, id))) throw new NotFoundError('Schema not found')
    } catch (error) {
      // A template created meanwhile: the foreign key refuses (23503).
      if ((error as { code?: string } | null)?.code === '23503')
        throw new ConflictError('The schema is in use by a template or by issued credentials, offers or requests')
      throw error
    }
  }

  private schemaValues(id: string, issuerDid: string, input: SchemaBody): schemas.SchemaValues {
    const names = new Set<string>()
    for (const attribute of input.attributes) {
      if (names.has(attribute.name)) throw new ValidationError(`Attribute "${attribute.name}" is listed twice`)
      names.add(attribute.name)
    }
    if (!input.extensions_allowed && input.allowed_extensions?.length)
      throw new ValidationError('allowed_extensions needs extensions_allowed: true')
    if (!input.evidence_allowed && input.allowed_evidence?.length)
      throw new ValidationError('allowed_evidence needs evidence_allowed: true')
    return {
      id,
      issuer_did: issuerDid,
      name: input.name,
      description: input.description ?? '',
      version: input.version,
      // always_disclosed is stored only when set, so schemas without it keep their published form (and CID).
      attributes: input.attributes.map((a) => ({
        name: a.name,
        data_type: a.data_type,
        description: a.description ?? '',
        required: a.required ?? false,
        ...(a.always_disclosed ? { always_disclosed: true } : {}),
      })),
      extensions_allowed: input.extensions_allowed ?? false,
      allowed_extensions: input.allowed_extensions ?? [],
      evidence_allowed: input.evidence_allowed ?? false,
      allowed_evidence: input.allowed_evidence ?? [],
      anonymous_credentials: input.anonymous_credentials ?? true,
      mdoc: input.mdoc ? { doctype: input.mdoc.doctype, namespace: input.mdoc.namespace ?? input.mdoc.doctype } : null,
      ipfs_hash: '',
    }
  }

  /** Schemas are public definitions (no PII): stored in clear, canonical JSON, so anyone can fetch them by CID. */
  private async publish(values: schemas.SchemaValues): Promise<string> {
    const { ipfs_hash: _unused, ...document } = values
    const stored = await this.deps.content.put(new TextEncoder().encode(canonicalize(document)))
    return stored.cid
  }
}
