import { randomUUID } from 'node:crypto'
import type { Transaction } from 'kysely'
import type { Clock } from '../../adapters/clock.js'
import { parseCid, type ContentStore } from '../../adapters/content-store/content-store.js'
import type { AnonCredentialContent, AttributeDataType, BbsMessage } from '../../crypto/bbs/bbs-messages.js'
import { BBS_MESSAGE_LAYOUT, credentialMessages } from '../../crypto/bbs/bbs-messages.js'
import type { BbsEngine } from '../../crypto/bbs/bbs-pool.js'
import type { EnvelopeSealer } from '../../crypto/sealed-envelope.js'
import { jcsSha256Hex } from '../../crypto/jcs.js'
import type { Database, DB, EvidenceAttachment } from '../../db/database.js'
import { MicroBatcher } from '../../shared/micro-batcher.js'
import { NotFoundError, ValidationError } from '../../errors.js'
import type { CredentialContent } from '../credentials/formats/credential-format.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { credentialView } from '../credentials/credential-view.js'
import { findIssuedCredential, insertCredentialsWithActivity } from '../credentials/credentials.service.js'
import type { CredentialRow, NewCredential } from '../credentials/credentials.types.js'
import { normalizeDid } from '../did/did-normalize.js'
import type { ChainAnchor } from '../blockchain/chain-anchor.js'
import type { StatusListService } from '../status-list/status-list.service.js'
import type { HolderKemKeys } from '../wallet/holder-kem-keys.js'
import type { AttributeValidators } from './attribute-validator.js'
import type { IssueBody } from './issuance.schemas.js'
import type { BbsSigner, SigningIdentities } from '../identity/signing-identities.js'
import type { IssuerService } from './issuer.service.js'
import type { SchemaRow } from './schemas.repository.js'
import type { TemplateRow } from './templates.repository.js'
import { formatOfTemplate } from './templates.service.js'
import { loadIssuanceContexts, type ContextKey, type IssuanceContext } from './issuance-context.repository.js'

export interface IssuanceDeps {
  db: Database
  content: ContentStore
  issuers: IssuerService
  validators: AttributeValidators
  identities: SigningIdentities
  formats: FormatRegistry
  bbs: BbsEngine
  /** HPKE sealing to the holder's ML-KEM-768 key (sealed-envelope.ts). */
  sealer: EnvelopeSealer
  holderKeys: HolderKemKeys
  statusLists: StatusListService
  clock: Clock
  publicBaseUrl: string
  /** Chain anchoring of each credential hash (batched into Merkle roots); absent: nothing queued. */
  anchor?: ChainAnchor
}

export interface IssueOptions {
  requestId?: string
  /** The session (token jti) issuing: its own step-up counts, not another session's of the same DID. */
  sessionId?: string
  /** The caller already checked a fresh step-up signature (request approval). */
  steppedUp?: boolean
  /** The key the credential binds its holder to (OpenID4VCI key proofs): SD-JWT VC `cnf.jwk`. */
  holderJwk?: Record<string, unknown>
  /** Runs in the transaction that stores the credential (e.g. marking a request approved). */
  within?: (trx: Transaction<DB>, credential: CredentialRow) => Promise<void>
  /**
   * Runs in the micro-batched transaction that stores the credential, before its row: an Error
   * answered leaves this credential unstored (the issuance throws it) and its neighbours unaffected.
   * It must change nothing when it answers an Error (one all-or-nothing statement), since no
   * savepoint separates it from the rest of the batch.
   */
  guard?: IssueGuard
}

/** A condition checked and recorded in the credential's own transaction (e.g. spending a single-use grant). */
export type IssueGuard = (trx: Transaction<DB>, credential: NewCredential) => Promise<Error | undefined>

/** A row for the group-committed writer, with the guard it must pass in the batch's transaction. */
interface PendingRow {
  row: NewCredential
  guard?: IssueGuard
}

export type IssuedCredential = ReturnType<IssuanceService['response']>

const PREVIEW_TYPES = new Set(['string', 'number', 'boolean', 'date', 'email', 'url'])
const PREVIEW_MAX = 5

/**
 * POST /api/issuer/:did/issue: checks the request against the schema (and template), signs the
 * credential as a JWT-VC (Ed25519) and, unless the schema opts out, with BBS over its
 * attributes, seals the material to the holder's ML-KEM-768 key, stores the ciphertext in the
 * content store, and records it with its status-list slot.
 * Over 300 lines because one issuance is one transaction: signing, sealing, storage, activity
 * and anchoring are read together here; the pieces they call live in their own files.
 */
export class IssuanceService {
  // Concurrent issuances share one INSERT (group commit): PGlite runs one statement at a time,
  // at much the same cost whatever its size.
  private readonly writer: MicroBatcher<PendingRow, CredentialRow | Error>
  private readonly contexts: MicroBatcher<ContextKey, IssuanceContext | undefined>

  constructor(private readonly deps: IssuanceDeps) {
    this.writer = new MicroBatcher(async (items) => {
      try {
        return await storeIssued(deps.db, items, deps.anchor)
      } catch (error) {
        if (items.length === 1) return [error as Error]
        // One bad row (say, its schema deleted meanwhile) must not fail its neighbours: the batch
        // was rolled back as a whole (its guards too), so each goes again in a transaction of its own.
        return Promise.all(
          items.map((item) =>
            storeIssued(deps.db, [item], deps.anchor).then(
              (r) => r[0]!,
              (e: Error) => e,
            ),
          ),
        )
      }
    }, 128)
    this.contexts = new MicroBatcher((keys) => loadIssuanceContexts(deps.db, keys), 128)
  }

  async issue(issuerDid: string, input: IssueBody, options: IssueOptions = {}) {
    const subjectDid = input.subject_did === undefined ? null : normalizeDid(input.subject_did)
    // Without a subject the credential is held for the issuer (a bearer credential), so the
    // material is sealed to the issuer's own key.
    const recipientDid = subjectDid ?? issuerDid
    const context = await this.contexts.submit({
      issuerDid,
      schemaId: input.schema_id,
      templateId: input.template_id,
      recipientDid,
      sessionId: options.sessionId,
    })
    if (!context) throw new NotFoundError('No issuer profile for this DID: create it with POST /api/issuer')
    const { issuer, schema } = context
    if (!options.steppedUp) this.deps.issuers.assertSteppedUp(issuer)
    // A body reference, not the addressed resource: 400, and another issuer's schema looks unknown.
    if (!schema)
      throw new ValidationError(`Unknown schema_id "${input.schema_id}" for this issuer`, {
        details: { field: 'schema_id' },
      })
    const now = this.deps.clock.now()
    const { attributes, expiresAt, templateId, formatId } = this.applyTemplate(input, schema, context.template, now)
    this.deps.validators.check(schema, attributes)
    const evidence = await this.checkEvidence(schema, input.evidence ?? [], input.evidence_required ?? [])
    const extensions = checkExtensions(schema, input.extensions ?? [])

    const id = `aly:${randomUUID()}`
    // The DIDs the credential is signed as (DESIGN.md "Issuer identity"): its `issuer`, never the login DID.
    const format = this.deps.formats.issuable(formatId ?? this.deps.formats.defaultId)
    const signer = await this.deps.identities.signerFor(issuer, format.keyType)
    const bbsSigner = schema.anonymous_credentials ? await this.deps.identities.bbsSigner(issuer) : undefined
    const checked = bbsSigner
      ? this.anonymousContent(id, input.credential_type, bbsSigner.did, subjectDid, schema, attributes, now, expiresAt)
      : null
    const slot = await this.deps.statusLists.allocate(issuerDid)
    const statusEntry = this.deps.statusLists.entry(slot, format.statusListForm)
    // The status entry is signed into the BBS messages too: a derived proof discloses it so a
    // verifier can check revocation (docs/anonymous-proofs.md).
    const anonymous = checked && withStatus(checked.content, statusEntry.id)
    const content: CredentialContent = {
      id,
      type: input.credential_type,
      subjectDid,
      attributes,
      schema,
      status: statusEntry,
      issuedAt: now,
      expiresAt,
      evidence,
      extensions,
      publicBaseUrl: this.deps.publicBaseUrl,
      ...(options.holderJwk ? { holderJwk: options.holderJwk } : {}),
    }
    const [issued, anonymousCredential] = await Promise.all([
      format.issue(content, signer),
      anonymous ? this.signAnonymous(bbsSigner!, anonymous) : Promise.resolve(null),
    ])
    const jwt = issued.credential

    const recipient = context.recipientKey
      ? { publicKey: context.recipientKey.public_key }
      : await this.deps.holderKeys.recipient(recipientDid)
    const material = {
      format: 'credential-material/v1',
      id,
      jwt,
      credential_format: format.id,
      anonymous_credential: anonymousCredential,
      credential_data: attributes,
      evidence,
    }
    const envelope = await this.deps.sealer.seal({
      publicKey: recipient.publicKey,
      plaintext: Buffer.from(JSON.stringify(material)),
      binding: { recipient: recipientDid, recordId: id },
    })
    const stored = await this.deps.content.put(Buffer.from(JSON.stringify(envelope)))

    const row: NewCredential = {
      id,
      issuer_did: issuerDid,
      owner_did: subjectDid,
      credential_type: input.credential_type,
      schema_id: schema.id,
      template_id: templateId,
      credential_preview: preview(schema, attributes),
      credential_data: attributes,
      status: 'active',
      // A JWS key's algorithm; a key without one (IETF BBS) is named by its format, its cryptosuite.
      signature_type: anonymousCredential ? 'bbs+' : 'alg' in signer ? signer.alg : format.id,
      kyber_encrypted: true,
      evidence_attachments: evidence,
      evidence_required: input.evidence_required ?? [],
      extensions,
      jwt,
      anonymous_credential: anonymousCredential,
      bbs_signature: anonymousCredential ? (anonymousCredential.signature as string) : null,
      credential_hash: jcsSha256Hex(issued.document),
      ipfs_hash: stored.cid,
      status_list_id: slot.listId,
      status_list_index: slot.index,
      request_id: options.requestId ?? null,
      expiration_date: expiresAt,
      revocation_blockchain_tx: null,
      revoked_at: null,
      revocation_reason: null,
      format: format.id,
      signing_did: signer.did,
      created_at: now,
      updated_at: now,
    }
    if (options.within && options.guard) throw new Error('IssueOptions: within or guard, not both')
    const saved = options.within
      ? await this.deps.db.transaction().execute(async (trx) => {
          const [inserted] = await insertCredentialsWithActivity(trx, [row])
          await anchorIssued(trx, [inserted!], this.deps.anchor)
          await options.within!(trx, inserted!)
          return inserted!
        })
      : await this.writer.submit({ row, ...(options.guard ? { guard: options.guard } : {}) }).then((r) => {
          if (r instanceof Error) throw r
          return r
        })
    // No nudge: hashes wait for their batch (BLOCKCHAIN_BATCH_WAIT_MS or a full batch) anyway.
    return this.response(saved, issuer.name)
  }

  /** The 201 body of an issuance, rebuilt from its stored credential (an Idempotency-Key replay). */
  async replay(issuerDid: string, credentialId: string) {
    const [issuer, row] = await Promise.all([
      this.deps.issuers.profile(issuerDid),
      findIssuedCredential(this.deps.db, issuerDid, credentialId),
    ])
    if (!row) throw new NotFoundError('The credential this Idempotency-Key created no longer exists')
    return this.response(row, issuer.name)
  }

  response(row: CredentialRow, issuerName: string) {
    return {
      credential: credentialView(row, issuerName, this.deps.publicBaseUrl),
      jwt: row.jwt,
      ipfs_hash: row.ipfs_hash,
      ipfs_gateway_url: `${this.deps.publicBaseUrl}/api/ipfs/${row.ipfs_hash}`,
      credential_hash: row.credential_hash,
      blockchain_tx_hash: row.blockchain_tx_hash,
      blockchain_tx: row.blockchain_tx_hash,
      id: row.id,
      on_chain: row.on_chain,
    }
  }

  private applyTemplate(input: IssueBody, schema: SchemaRow, template: TemplateRow | undefined, now: Date) {
    let attributes = { ...input.attributes }
    let expiresAt = input.expiration_date === undefined ? null : new Date(input.expiration_date)
    if (expiresAt && expiresAt.getTime() <= now.getTime())
      throw new ValidationError('expiration_date must be in the future', { details: { field: 'expiration_date' } })
    if (input.template_id === undefined)
      return { attributes, expiresAt, templateId: null, formatId: input.format ?? null }
    if (!template)
      throw new ValidationError(`Unknown template_id "${input.template_id}" for this issuer`, {
        details: { field: 'template_id' },
      })
    if (template.schema_id !== schema.id)
      throw new ValidationError(`Template "${template.id}" is for schema "${template.schema_id}", not "${schema.id}"`)
    if (template.credential_type !== input.credential_type)
      throw new ValidationError(
        `Template "${template.id}" issues "${template.credential_type}", not "${input.credential_type}"`,
      )
    for (const [name, value] of Object.entries(template.fixed_attributes)) {
      if (name in attributes && JSON.stringify(attributes[name]) !== JSON.stringify(value)) {
        throw new ValidationError(`attribute "${name}" is fixed by the template`, { details: { attribute: name } })
      }
    }
    attributes = { ...attributes, ...template.fixed_attributes }
    if (!expiresAt && template.validity_days) expiresAt = new Date(now.getTime() + template.validity_days * 86_400_000)
    return {
      attributes,
      expiresAt,
      templateId: template.id,
      formatId: formatOfTemplate(template.format, input.format ?? null, template.id),
    }
  }

  /** Evidence must be of a kind the schema lists and already be in the content store. */
  private async checkEvidence(
    schema: SchemaRow,
    evidence: EvidenceAttachment[],
    required: string[],
  ): Promise<EvidenceAttachment[]> {
    const labels = [...evidence.map((e) => e.label), ...required]
    if (labels.length && !schema.evidence_allowed)
      throw new ValidationError('The schema does not allow evidence', { details: { field: 'evidence' } })
    for (const label of labels) {
      if (!schema.allowed_evidence.includes(label)) {
        throw new ValidationError(
          `Evidence "${label}" is not allowed by the schema (allowed: ${schema.allowed_evidence.join(', ') || 'none'})`,
          { details: { field: 'evidence', label } },
        )
      }
    }
    for (const item of evidence) {
      parseCid(item.ipfs_hash)
      if (!(await this.deps.content.has(item.ipfs_hash))) {
        throw new ValidationError(`Evidence "${item.label}" (${item.ipfs_hash}) has not been uploaded`, {
          details: { field: 'evidence', label: item.label },
        })
      }
    }
    return evidence
  }

  /**
   * The BBS messages of the credential (bbs-messages.ts), built before anything is allocated: a
   * value the encoding cannot carry (a number with more than 4 decimals, say 2.2800000000000002
   * from float arithmetic) is the caller's error, 400 naming the attribute, not a failed signature.
   */
  private anonymousContent(
    id: string,
    type: string,
    issuerDid: string,
    subjectDid: string | null,
    schema: SchemaRow,
    attributes: Record<string, unknown>,
    issuedAt: Date,
    expiresAt: Date | null,
  ) {
    const types = Object.fromEntries(schema.attributes.map((a) => [a.name, a.data_type as AttributeDataType]))
    const content: AnonCredentialContent = {
      meta: {
        id,
        type,
        issuer: issuerDid,
        subject: subjectDid ?? '',
        schema_id: schema.id,
        issued_at: issuedAt.toISOString(),
        ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}),
      },
      attributes,
      types,
    }
    try {
      return { content, messages: credentialMessages(content) }
    } catch (error) {
      if (!(error instanceof RangeError)) throw error
      const attribute = schema.attributes.find((a) => error.message.startsWith(`attribute "${a.name}"`))?.name
      throw new ValidationError(`${error.message} (this schema signs credentials with BBS too)`, {
        details: attribute ? { attribute } : { field: 'attributes' },
        cause: error,
      })
    }
  }

  private async signAnonymous(
    signer: BbsSigner,
    { content, messages }: { content: AnonCredentialContent; messages: BbsMessage[] },
  ): Promise<Record<string, unknown>> {
    const signature = await this.deps.bbs.sign({
      secretKey: signer.secretKey,
      paramsLabel: signer.paramsLabel,
      messages,
    })
    return {
      type: 'BBSCredential',
      layout: BBS_MESSAGE_LAYOUT,
      verification_method: signer.verificationMethod,
      params_label: signer.paramsLabel,
      content,
      signature: Buffer.from(signature).toString('base64url'),
    }
  }
}

/**
 * The credentials and, in the same transaction, the holders' wallet activity (docs/wallet.md).
 * Guarded rows are stored only when their guard passes, in the batch's one transaction; a row
 * whose guard refuses gets the guard's Error and the others are stored.
 */
function storeIssued(
  db: Database,
  items: PendingRow[],
  anchor: ChainAnchor | undefined,
): Promise<Array<CredentialRow | Error>> {
  // Without a chain or a guard the batch is one statement; otherwise one transaction.
  if (!anchor && items.every((i) => !i.guard))
    return insertCredentialsWithActivity(
      db,
      items.map((i) => i.row),
    )
  return db.transaction().execute(async (trx) => {
    const refused: Array<Error | undefined> = []
    for (const item of items) refused.push(item.guard ? await item.guard(trx, item.row) : undefined)
    const saved = await insertCredentialsWithActivity(
      trx,
      items.filter((_, i) => !refused[i]).map((i) => i.row),
    )
    await anchorIssued(trx, saved, anchor)
    let next = 0
    return refused.map((error) => error ?? saved[next++]!)
  })
}

/** Queues each hash for the next Merkle batch, in the transaction that stores the credentials (docs/blockchain.md). */
async function anchorIssued(
  trx: Transaction<DB>,
  rows: CredentialRow[],
  anchor: ChainAnchor | undefined,
): Promise<void> {
  if (!anchor) return
  for (const r of rows)
    await anchor.enqueue(trx, {
      kind: 'credential',
      issuerDid: r.issuer_did,
      credentialHash: r.credential_hash,
      credentialId: r.id,
    })
}

function withStatus(
  content: AnonCredentialContent,
  status: string,
): { content: AnonCredentialContent; messages: BbsMessage[] } {
  const full = { ...content, meta: { ...content.meta, status } }
  return { content: full, messages: credentialMessages(full) }
}

function checkExtensions(schema: SchemaRow, extensions: string[]): string[] {
  if (extensions.length && !schema.extensions_allowed)
    throw new ValidationError('The schema does not allow extensions', { details: { field: 'extensions' } })
  for (const extension of extensions) {
    if (!schema.allowed_extensions.includes(extension)) {
      throw new ValidationError(
        `Extension "${extension}" is not allowed by the schema (allowed: ${schema.allowed_extensions.join(', ') || 'none'})`,
        { details: { field: 'extensions', extension } },
      )
    }
  }
  return [...new Set(extensions)]
}

/** The spec's `credential_preview`: the first few scalar attributes, in schema order. */
function preview(schema: SchemaRow, attributes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const attribute of schema.attributes) {
    if (Object.keys(out).length >= PREVIEW_MAX) break
    if (PREVIEW_TYPES.has(attribute.data_type) && attributes[attribute.name] !== undefined)
      out[attribute.name] = attributes[attribute.name]
  }
  return out
}
