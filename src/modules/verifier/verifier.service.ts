import { randomBytes, randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database, Executor } from '../../db/database.js'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js'
import { normalizeDid } from '../did/did-normalize.js'
import { claimIn, withClaim, type ClaimKey } from '../idempotency/idempotency.service.js'
import * as repo from './verifier.repository.js'
import type { PresentationRequestRow, PresetRow, VerifierRow } from './verifier.types.js'
import type { CreateRequestInput, PresetInput } from './verifier.schemas.js'

/** Requests without `expires_at` (or a preset's validity) stay answerable this long. */
const DEFAULT_VALIDITY_SECONDS = 3600
const MAX_VALIDITY_MS = 30 * 86_400_000
/** How many holders' answers a request's view lists (an unaddressed request may be taken by many). */
const MAX_ANSWERS = 200

/**
 * Verifier profiles, presentation requests (with their nonce and QR payload) and presets.
 * Presentations and their verification build on these (wallet/verifier issue).
 */
export class VerifierService {
  constructor(
    private readonly deps: {
      db: Database
      clock: Clock
      publicBaseUrl: string
      /** The formats a required credential may name (those OpenID4VP asks for). */
      presentableFormats: readonly string[]
    },
  ) {}

  /** `claim`: an Idempotency-Key recorded with the profile (its resource id is the DID: one profile per DID). */
  createProfile(
    did: string,
    input: { name: string; description?: string; website?: string; logo_url?: string },
    claim?: ClaimKey,
  ): Promise<VerifierRow> {
    return withClaim(this.deps.db, claim, did, async (db) => {
      const created = await repo.insertVerifier(db, {
        did,
        name: input.name,
        description: input.description ?? '',
        website: input.website ?? null,
        logo_url: input.logo_url ?? null,
      })
      // Thrown inside the claim's transaction: a refused profile leaves its key unrecorded.
      if (!created) throw new ConflictError('This DID already has a verifier profile')
      return created
    })
  }

  async profile(did: string): Promise<VerifierRow> {
    const found = await repo.findVerifier(this.deps.db, did)
    if (!found) throw new NotFoundError('No verifier profile for this DID: create it with POST /api/verifier')
    return found
  }

  /**
   * `publish`: what else the request is published as (OpenID4VP), stored in the same transaction;
   * `claim`: an Idempotency-Key, recorded there too.
   */
  async createRequest<P>(
    callerDid: string,
    input: CreateRequestInput,
    publish?: (row: PresentationRequestRow) => Promise<{ store(trx: Executor): Promise<P> } | undefined>,
    claim?: ClaimKey,
  ): Promise<{ request: PresentationRequestRow; published: P | undefined }> {
    if (normalizeDid(input.verifier_did) !== callerDid)
      throw new ForbiddenError('verifier_did is not the authenticated DID')
    const now = this.deps.clock.now()
    let definition = {
      presentation_type: input.presentation_type,
      required_credentials: input.required_credentials,
      required_predicates: input.required_predicates,
      purpose: input.purpose,
      callback_url: input.callback_url,
    }
    let validitySeconds = DEFAULT_VALIDITY_SECONDS
    if (input.preset_id !== undefined) {
      const preset = await repo.findPreset(this.deps.db, callerDid, input.preset_id)
      if (!preset)
        throw new ValidationError(`Unknown preset_id "${input.preset_id}" for this verifier`, {
          details: { field: 'preset_id' },
        })
      definition = {
        presentation_type: definition.presentation_type ?? preset.presentation_type,
        required_credentials: definition.required_credentials ?? preset.required_credentials,
        required_predicates:
          definition.required_predicates ?? (preset.required_predicates as CreateRequestInput['required_predicates']),
        purpose: definition.purpose ?? preset.purpose,
        callback_url: definition.callback_url ?? preset.callback_url ?? undefined,
      }
      validitySeconds = preset.validity_seconds
    }
    for (const field of ['presentation_type', 'required_credentials', 'purpose'] as const) {
      if (definition[field] === undefined)
        throw new ValidationError(`${field} is required (or a preset_id that defines it)`, { details: { field } })
    }
    checkPredicates(definition.required_predicates ?? [])
    this.checkFormats(definition.required_credentials ?? [])
    const expiresAt =
      input.expires_at === undefined ? new Date(now.getTime() + validitySeconds * 1000) : new Date(input.expires_at)
    if (expiresAt.getTime() <= now.getTime())
      throw new ValidationError('expires_at must be in the future', { details: { field: 'expires_at' } })
    if (expiresAt.getTime() - now.getTime() > MAX_VALIDITY_MS)
      throw new ValidationError('expires_at may be at most 30 days ahead', { details: { field: 'expires_at' } })
    const row: PresentationRequestRow = {
      id: `presreq-${randomUUID()}`,
      verifier_did: callerDid,
      presentation_type: definition.presentation_type!,
      required_credentials: (definition.required_credentials ?? []).map((c) => ({
        ...c,
        ...(c.issuer_did ? { issuer_did: normalizeDid(c.issuer_did) } : {}),
      })),
      required_predicates: definition.required_predicates ?? [],
      purpose: definition.purpose!,
      callback_url: definition.callback_url ?? null,
      // 128 bits from the CSPRNG: the holder's VP must echo it, so a presentation cannot be replayed to another request.
      nonce: randomBytes(16).toString('base64url'),
      status: 'pending',
      preset_id: input.preset_id ?? null,
      holder_did: input.holder_did === undefined ? null : normalizeDid(input.holder_did),
      expires_at: expiresAt,
      created_at: now,
      updated_at: now,
    }
    const prepared = await publish?.(row)
    return this.deps.db.transaction().execute(async (trx) => {
      await claimIn(trx, claim, row.id)
      const request = await repo.insertRequest(trx, row)
      return { request, published: await prepared?.store(trx) }
    })
  }

  /** Any verifier's request, for the presentation module, which checks whom it is for. */
  findRequest(id: string): Promise<PresentationRequestRow | undefined> {
    return repo.findRequest(this.deps.db, id)
  }

  /** The verifier's own request; another verifier's is as unknown as a missing one. */
  async request(verifierDid: string, id: string): Promise<PresentationRequestRow> {
    const found = await repo.findRequest(this.deps.db, id)
    if (!found || found.verifier_did !== verifierDid) throw new NotFoundError('Presentation request not found')
    return found
  }

  /**
   * The verifier's own request with the holders' answers to it, read from one snapshot: a holder's
   * decline commits both (its answer and, when addressed, the request's status), so a reader sees
   * both or neither.
   */
  requestWithAnswers(
    verifierDid: string,
    id: string,
  ): Promise<{ request: PresentationRequestRow; answers: repo.RequestAnswerRow[] }> {
    return this.deps.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const request = await repo.findRequest(trx, id)
        if (!request || request.verifier_did !== verifierDid) throw new NotFoundError('Presentation request not found')
        return { request, answers: await repo.requestAnswers(trx, request.id, MAX_ANSWERS) }
      })
  }

  /** The name a verifier's profile gives, if it made one: what a holder reads instead of the DID. */
  async verifierName(did: string): Promise<string | null> {
    return (await repo.findVerifier(this.deps.db, did))?.name ?? null
  }

  /** The verifier's profile, if it made one (no error when not). */
  findProfile(did: string): Promise<VerifierRow | undefined> {
    return repo.findVerifier(this.deps.db, did)
  }

  listRequests(verifierDid: string, page: { limit: number; after?: string }): Promise<PresentationRequestRow[]> {
    return repo.listRequests(this.deps.db, verifierDid, page)
  }

  /** A pending request past its expiry reads as expired. */
  effectiveStatus(request: PresentationRequestRow): string {
    return request.status === 'pending' && new Date(request.expires_at).getTime() <= this.deps.clock.now().getTime()
      ? 'expired'
      : request.status
  }

  /** The QR payload of a request: what a wallet needs to answer it. */
  qrPayload(request: PresentationRequestRow): string {
    return JSON.stringify({
      type: 'presentation-request',
      version: 1,
      request_id: request.id,
      verifier_did: request.verifier_did,
      nonce: request.nonce,
      presentation_type: request.presentation_type,
      purpose: request.purpose,
      response_url: `${this.deps.publicBaseUrl}/api/wallet/presentation-requests`,
      expires_at: new Date(request.expires_at).toISOString(),
    })
  }

  createPreset(verifierDid: string, input: PresetInput, claim?: ClaimKey): Promise<PresetRow> {
    checkPredicates(input.required_predicates ?? [])
    this.checkFormats(input.required_credentials)
    const id = `preset-${randomUUID()}`
    return withClaim(this.deps.db, claim, id, (db) =>
      repo.insertPreset(db, {
        id,
        verifier_did: verifierDid,
        name: input.name,
        presentation_type: input.presentation_type,
        required_credentials: input.required_credentials,
        required_predicates: input.required_predicates ?? [],
        purpose: input.purpose,
        callback_url: input.callback_url ?? null,
        validity_seconds: input.validity_seconds ?? DEFAULT_VALIDITY_SECONDS,
      }),
    )
  }

  /** One of the verifier's presets (an Idempotency-Key replay). */
  async preset(verifierDid: string, id: string): Promise<PresetRow> {
    const found = await repo.findPreset(this.deps.db, verifierDid, id)
    if (!found) throw new NotFoundError('The preset this Idempotency-Key created no longer exists')
    return found
  }

  listPresets(verifierDid: string, page: { limit: number; after?: string }): Promise<PresetRow[]> {
    return repo.listPresets(this.deps.db, verifierDid, page)
  }

  private checkFormats(required: Array<{ format?: string }>): void {
    required.forEach((r, i) => {
      if (r.format !== undefined && !this.deps.presentableFormats.includes(r.format))
        throw new ValidationError(
          `required_credentials[${i}].format "${r.format}" is not one this service asks for over OpenID4VP (${this.deps.presentableFormats.join(', ')})`,
          { details: { field: `required_credentials[${i}].format` } },
        )
    })
  }
}

/** Predicates compare numbers, or dates written YYYY-MM-DD (DESIGN.md "Anonymous proof"). */
function checkPredicates(predicates: Array<{ attribute: string; value: number | string }>): void {
  for (const p of predicates) {
    if (typeof p.value === 'string' && !/^\d{4}-\d{2}-\d{2}$/.test(p.value)) {
      throw new ValidationError(`Predicate on "${p.attribute}": value must be a number or a YYYY-MM-DD date`, {
        details: { field: 'required_predicates' },
      })
    }
  }
}
