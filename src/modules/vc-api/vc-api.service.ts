import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js'
import type { CredentialProblem, DocumentSecuringFormat } from '../credentials/formats/credential-format.js'
import { verifyDataIntegrityPresentation } from '../credentials/formats/registered-formats.js'
import type { LocalDocuments } from '../credentials/formats/local-documents.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import type { DidResolver } from '../did/did-resolver.js'
import type { FormatKeyType, IssuerIdentityRow, SigningIdentities } from '../identity/signing-identities.js'
import { withClaim, type ClaimKey } from '../idempotency/idempotency.service.js'
import { isObject } from '../credentials/formats/jwt-checks.js'
import type { StatusChecker } from '../status-list/status-check.js'
import type { StatusListService } from '../status-list/status-list.service.js'
import type { VcApiCaller } from './vc-api-clients.service.js'
import * as repo from './vc-api-credentials.repository.js'
import { envelopeOf, unwrapEnvelope } from './envelopes.js'
import { credentialInputProblems, issuerIdOf, modelVersion } from './vcdm-input-checks.js'

export interface IssueOptions {
  credentialStatus?: { type?: string; statusPurpose?: string }
  mandatoryPointers?: string[]
}

/** What `/credentials/verify` and `/presentations/verify` answer when every check passed (VC API VerificationResult). */
export interface VerificationResult {
  verified: true
  checks: string[]
  warnings: string[]
  errors: never[]
}

/** A failed verification: 400 with each problem (VC API "400 invalid input"), never a 5xx. */
export class VerificationFailed extends ValidationError {
  constructor(problems: CredentialProblem[]) {
    super(`verification failed: ${problems.map((p) => p.message).join('; ')}`, {
      details: { verified: false, problems },
    })
  }
}

/**
 * The W3C VC API beside the spec's routes (docs/vc-api.md): an issuer's OAuth client issues a
 * caller-built VCDM document in one of the issuer's document-securing formats, signed as the
 * issuer's signing DID for that format, with a Bitstring Status List entry on request; anyone
 * holding a token verifies credentials and presentations of every registered format; and the
 * issuer revokes what it issued here by the credential's id.
 */
export class VcApiService {
  constructor(
    private readonly deps: {
      db: Database
      identities: SigningIdentities
      formats: FormatRegistry
      statusLists: StatusListService
      status: StatusChecker
      resolver: DidResolver
      clock: Clock
      publicBaseUrl: string
      /** CLOCK_SKEW_SECONDS: tolerated on validity periods, as for the spec's presentations. */
      skewSeconds: number
      /** The service's own JSON-LD documents (its schemas' contexts). */
      local?: LocalDocuments
    },
  ) {}

  /** `claim` (an Idempotency-Key) is recorded in the credential's transaction, for its row. */
  async issue(
    caller: VcApiCaller,
    issuerId: string,
    formatId: string,
    credential: Record<string, unknown>,
    options: IssueOptions,
    claim?: ClaimKey,
  ) {
    const issuer = await this.instance(caller, issuerId)
    const format = this.securing(formatId)
    const document = structuredClone(credential)
    // VCDM 1.1 §4.8 requires issuanceDate; an issuer sets it when the caller did not (the CCG suites expect it).
    if (modelVersion(document) === '1.1' && document.issuanceDate === undefined)
      document.issuanceDate = `${this.deps.clock.now().toISOString().slice(0, 19)}Z`
    const problems = credentialInputProblems(document)
    if (problems.length)
      throw new ValidationError(`credential is not a valid VCDM document: ${problems.join('; ')}`, {
        details: { field: 'credential', problems },
      })
    const signer = await this.deps.identities.signerFor(issuer, format.keyType)
    const named = issuerIdOf(document)
    if (named !== signer.did)
      throw new ValidationError(
        `credential.issuer must be this issuer instance's DID ${signer.did} (it is ${JSON.stringify(named)})`,
        { details: { field: 'credential.issuer', expected: signer.did } },
      )
    const credentialId = typeof document.id === 'string' ? document.id : null
    let slot: { listId: string; index: number } | undefined
    if (options.credentialStatus) {
      const type = options.credentialStatus.type ?? 'BitstringStatusListEntry'
      if (type !== 'BitstringStatusListEntry')
        throw new ValidationError(
          `options.credentialStatus.type "${type}" is not supported: BitstringStatusListEntry`,
          { details: { field: 'options.credentialStatus.type' } },
        )
      if ((options.credentialStatus.statusPurpose ?? 'revocation') !== 'revocation')
        throw new ValidationError('options.credentialStatus.statusPurpose must be "revocation"', {
          details: { field: 'options.credentialStatus.statusPurpose' },
        })
      if (document.credentialStatus !== undefined)
        throw new ValidationError(
          'credential.credentialStatus is set by the issuer: leave it out when options.credentialStatus asks for one',
          { details: { field: 'credential.credentialStatus' } },
        )
      // Checked before a slot is spent and the credential signed; the insert below decides races.
      if (credentialId && (await repo.findByCredentialId(this.deps.db, caller.issuerDid, credentialId)))
        throw duplicate(credentialId)
      slot = await this.deps.statusLists.allocate(caller.issuerDid)
      document.credentialStatus = this.deps.statusLists.entry(slot, format.statusListForm ?? 'jwt')
    } else if (this.namesOwnStatusList(document)) {
      // Only a slot allocated here may name this service's lists, or the issuer could not revoke it.
      throw new ValidationError(
        'credential.credentialStatus names a status list of this service: ask for an entry with options.credentialStatus instead',
        { details: { field: 'credential.credentialStatus' } },
      )
    }
    const issued = await format.secure(document, signer, { mandatoryPointers: options.mandatoryPointers })
    const id = randomUUID()
    const row = {
      id,
      issuer_did: caller.issuerDid,
      // Only credentials with a status entry can change status; ids of the others are not kept unique.
      credential_id: slot ? credentialId : null,
      format: format.id,
      credential: issued.credential,
      signing_did: signer.did,
      status_list_id: slot?.listId ?? null,
      status_list_index: slot?.index ?? null,
      created_at: this.deps.clock.now(),
    }
    await withClaim(this.deps.db, claim, id, async (db) => {
      // Thrown inside, so that a claim made with it rolls back too.
      if (!(await repo.insertCredential(db, row))) throw duplicate(credentialId!)
    })
    return { verifiableCredential: answerForm(format, issued.credential) }
  }

  /** What `issue` answered, from the credential it stored (an Idempotency-Key replay). */
  async replay(caller: VcApiCaller, id: string) {
    const row = await repo.findById(this.deps.db, caller.issuerDid, id)
    const format = row && this.deps.formats.securing(row.format)
    if (!row || !format) throw new NotFoundError('The credential this Idempotency-Key issued no longer exists')
    return { verifiableCredential: answerForm(format, row.credential) }
  }

  async verifyCredential(credential: unknown): Promise<VerificationResult> {
    const item = unwrapEnvelope(credential, 'EnvelopedVerifiableCredential')
    const format = this.deps.formats.recognize(item)
    if (!format)
      throw new ValidationError('verifiableCredential is not a credential in a format this service verifies', {
        details: { field: 'verifiableCredential', formats: this.deps.formats.issuableIds },
      })
    const result = await format.verify(item, {
      resolver: this.deps.resolver,
      status: this.deps.status,
      now: this.deps.clock.now(),
      skewSeconds: this.deps.skewSeconds,
    })
    if (result.problems.length) throw new VerificationFailed(result.problems)
    const checks = ['proof', 'validity']
    if (isObject(result.credential?.document) && result.credential.document.credentialStatus !== undefined)
      checks.push('status')
    return { verified: true, checks, warnings: [], errors: [] }
  }

  /** A presentation secured with Data Integrity (`authentication`, bound to the given challenge and domain), and every credential in it. */
  async verifyPresentation(
    presentation: Record<string, unknown>,
    binding: { challenge?: string; domain?: string },
  ): Promise<VerificationResult> {
    if (binding.challenge === undefined)
      throw new VerificationFailed([
        { reason: 'binding', message: 'options.challenge is required to verify a presentation' },
      ])
    const { resolver, status, formats, local } = this.deps
    const result = await verifyDataIntegrityPresentation(presentation, {
      challenge: binding.challenge,
      domain: binding.domain,
      resolver,
      status,
      formats,
      local,
      now: this.deps.clock.now(),
      skewSeconds: this.deps.skewSeconds,
      // VCDM 2.0 §4.13: a presentation may hold no credential, and credentials about others.
      bindCredentialsToHolder: false,
      requireCredentials: false,
    })
    const problems = [
      ...result.problems,
      ...result.credentials.flatMap((c, i) =>
        c.problems.map((p) => ({ ...p, message: `verifiableCredential[${i}]: ${p.message}` })),
      ),
    ]
    if (problems.length) throw new VerificationFailed(problems)
    return { verified: true, checks: ['proof', 'challenge', 'domain', 'credentials'], warnings: [], errors: [] }
  }

  /** VC API "Update Status": revocation, by the credential's id, of what this issuer issued here. */
  async updateStatus(caller: VcApiCaller, issuerId: string, credentialId: string, revoke: boolean) {
    await this.instance(caller, issuerId)
    const found = await repo.findByCredentialId(this.deps.db, caller.issuerDid, credentialId)
    if (!found)
      throw new NotFoundError("No credential with this id was issued with a status entry through this issuer's VC API")
    if (!revoke) {
      if (found.revoked_at) throw new ConflictError('A revoked credential cannot be reinstated: revocation is final')
      return { credentialId, status: 'active' }
    }
    if (!found.revoked_at)
      await this.deps.db.transaction().execute((trx) => repo.revoke(trx, found.id, this.deps.clock.now()))
    return { credentialId, status: 'revoked' }
  }

  private namesOwnStatusList(document: Record<string, unknown>): boolean {
    const prefix = `${this.deps.publicBaseUrl}/api/status-lists/`
    return JSON.stringify(document.credentialStatus ?? null).includes(JSON.stringify(prefix).slice(1, -1))
  }

  /** The issuer profile the path names, when it is the caller's own; another's looks unknown (404). */
  private async instance(caller: VcApiCaller, issuerId: string): Promise<IssuerIdentityRow> {
    const issuer = await this.deps.identities.identity(caller.issuerDid)
    if (!issuer || issuer.web_id !== issuerId)
      throw new NotFoundError('No VC API issuer instance at this path for this client')
    return issuer
  }

  private securing(formatId: string): DocumentSecuringFormat<FormatKeyType> {
    const format = this.deps.formats.securing(formatId)
    if (!format)
      throw new NotFoundError(
        `No VC API issuer instance for format "${formatId}": one of ${this.deps.formats.securingIds.join(', ')}`,
      )
    return format
  }
}

/** The VC API answers a JSON credential as itself and any other form as an enveloped credential (VCDM 2.0 §4.13). */
function answerForm(format: DocumentSecuringFormat<FormatKeyType>, text: string): unknown {
  return text.startsWith('{')
    ? (JSON.parse(text) as unknown)
    : envelopeOf(`application/${format.id}`, text, 'EnvelopedVerifiableCredential')
}

const duplicate = (credentialId: string) =>
  new ConflictError(`this issuer already issued a credential with id ${credentialId} through the VC API`)
