import { randomBytes, randomUUID } from 'node:crypto'
import type { Jwk } from '@openid4vc/oauth2'
import { extractEncryptionJwkFromJwks, Openid4vpClient, type Openid4vpAuthorizationRequest } from '@openid4vc/openid4vp'
import { DcqlQuery, type DcqlCredential } from 'dcql'
import type { Clock } from '../../../adapters/clock.js'
import { JWS_ALGORITHMS } from '../../../crypto/jws.js'
import type { Database } from '../../../db/database.js'
import { ConflictError, NotFoundError, UnprocessableError, ValidationError } from '../../../errors.js'
import type { FormatRegistry } from '../../credentials/formats/format-registry.js'
import type {
  ClaimPath,
  Disclosure,
  HolderFace,
  HolderProofClaims,
  Oid4vpRequestContext,
} from '../../credentials/formats/holder-face.js'
import type { DidResolver } from '../../did/did-resolver.js'
import { claimIn, withClaim, type ClaimKey } from '../../idempotency/idempotency.service.js'
import { serviceCallbacks } from '../shared/oid4vc-callbacks.js'
import { recordActivity } from '../../wallet/wallet-activity.js'
import type { WalletCredentialService } from '../../wallet/wallet-credentials.service.js'
import { chooseQueries, type CredentialSetAnswer, type SetChoices } from './credential-set-choice.js'
import { withClockSkew } from './clock-skew.js'
import { holderSigningKey } from './prepared-jws.js'
import { finishDraft, toSign, type PresentationDraft, type ToSign } from './presentation-drafts.js'
import * as sessions from './protocol-sessions.repository.js'
import { protocolStep } from './protocol-step.js'
import * as guards from './request-guards.js'
import { firstLine } from '../shared/library-message.js'

const SESSION_TTL_MS = 5 * 60_000
/** How many of the holder's credentials a query is matched against (newest first). */
const MAX_CANDIDATES = 1000
/** How many matching credentials of one query are compared for what they would disclose. */
const MAX_COMPARED = 20
const JARM_SERVER_METADATA = {
  authorization_signing_alg_values_supported: [],
  authorization_encryption_alg_values_supported: ['ECDH-ES'],
  authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
}

/** One credential query of the request and what the wallet would answer it with. */
export interface PreparedPresentation {
  query_id: string
  credential_id: string
  format: string
  credential_type: string
  issuer_did: string
  /** The path of every claim the presentation lets the verifier read (its format's holder face): all of a JWT-VC's. */
  claims: ClaimPath[]
  /** Those claims with their values, as the verifier reads them. */
  disclosed: Record<string, unknown>
  /** A JWS signing input, or bytes for a COSE signature (`cose`), for the holder's key. */
  to_sign: ToSign
}

/** Who asks, and how far the wallet could tell (OpenID4VP 1.0 §5.9.3): what the holder reads before deciding. */
export interface VerifierIdentity {
  client_id: string
  prefix: string
  /** The request object was signed by the key the client identifier names (decentralized_identifier); an unsigned redirect_uri request proves nothing. */
  verified: boolean
  verified_by: string
  /** From the request's client_metadata (OpenID4VP 1.0 §5.1, RFC 7591 §2): what the verifier calls itself, unverified. */
  name: string | null
  logo_uri: string | null
  /** The host the answer would be posted to (response_uri). */
  domain: string | null
}

export interface PreparedAnswer {
  session_id: string
  /** The verifier's client identifier (OpenID4VP 1.0 §5.9), as the request proved it. */
  verifier: string
  verifier_identity: VerifierIdentity
  /** Why the verifier asks, when the request says (its `purpose`, or the DCQL credential sets' purposes). */
  purpose: string | null
  response_mode: string
  presentations: PreparedPresentation[]
  /** The request's credential sets and the option answered of each (absent: the request has none). */
  credential_sets?: CredentialSetAnswer[]
  expires_at: Date
}

export interface DeclineOutcome {
  /** The verifier's HTTP status for the error response; null when it could not be reached (the decline stands). */
  verifier_status: number | null
  redirect_uri: string | null
}

export interface AnswerOutcome {
  accepted: boolean
  verifier_status: number
  redirect_uri: string | null
  verifier_error: string | null
}

interface SessionState {
  request: Openid4vpAuthorizationRequest
  verifier: string
  identity: VerifierIdentity
  purpose: string | null
  drafts: Array<{ queryId: string; credentialId: string; draft: PresentationDraft }>
  /** What the prepare step answered of each presentation besides its `to_sign` (the drafts' order). */
  shown: Array<Omit<PreparedPresentation, 'to_sign'>>
  sets?: CredentialSetAnswer[]
  /** direct_post.jwt: the verifier key the response is encrypted to, chosen when the drafts were bound to it. */
  encryptionJwk?: Jwk
}

type Candidate = {
  row: Awaited<ReturnType<WalletCredentialService['list']>>[number]
  format: string
  holder: HolderFace
  dcql: DcqlCredential
}
/** A query's chosen credential, the claim paths asked of it and what its presentation discloses. */
type Match = { candidate: Candidate; asked: ClaimPath[]; disclosure: Disclosure }

/** The prepare call's body: the request, and the holder's pick per credential set (credential-set-choice.ts). */
export interface PrepareInput {
  authorization_request_uri: string
  choices?: SetChoices
}

/**
 * The hosted wallet as an OpenID4VP 1.0 wallet (docs/openid4vc.md "The hosted wallet"): it
 * answers an `openid4vp://` request of any verifier from the holder's stored credentials. The
 * request is resolved and its signature checked by @openid4vc/openid4vp (the verifier's
 * decentralized identifier resolved like any DID here), DCQL matches the holder's credentials
 * (`dcql`), and each presentation's holder proof (SD-JWT KB-JWT, VP-JWT) is prepared for the
 * holder's key to sign; `complete` assembles the vp_token and posts it, encrypted for
 * direct_post.jwt. The verifier's HTTP status is its verdict.
 */
export class PresentationAnswerService {
  constructor(
    private readonly deps: {
      db: Database
      wallet: WalletCredentialService
      formats: FormatRegistry
      resolver: DidResolver
      fetch: typeof fetch
      clock: Clock
      /** CLOCK_SKEW_SECONDS: leeway on the times of the verifier's request object. */
      skewSeconds: number
    },
  ) {}

  /** Prepares the answer; `claim` (an Idempotency-Key) commits with the session. */
  async prepare(holderDid: string, input: PrepareInput, claim?: ClaimKey): Promise<PreparedAnswer> {
    const guarded = guards.rememberingRefusals(this.deps.fetch)
    const client = this.client(guarded.fetch)
    let parsed: ReturnType<Openid4vpClient['parseOpenid4vpAuthorizationRequest']>
    try {
      parsed = client.parseOpenid4vpAuthorizationRequest({
        authorizationRequest: input.authorization_request_uri.trim(),
      })
    } catch (error) {
      // The URI itself is what does not parse: the caller's mistake.
      throw new ValidationError(
        `authorization_request_uri is not an OpenID4VP authorization request: ${firstLine(error)}`,
        { details: { field: 'authorization_request_uri' } },
      )
    }
    if (parsed.type === 'openid4vp_dc_api')
      throw new ValidationError('A Digital Credentials API request is answered by the browser, not by a URI', {
        details: { field: 'authorization_request_uri' },
      })
    guards.refuseUnguardedFetches(parsed.params)
    const resolve = () => client.resolveOpenId4vpAuthorizationRequest({ authorizationRequestPayload: parsed.params })
    // The library reports a refused fetch of the request_uri as its own generic error.
    const refused = (error: unknown) => Promise.reject(guarded.refusal() ?? error)
    const resolved = await protocolStep(
      'resolving the authorization request',
      'authorization_request_uri',
      resolve,
    ).catch(refused)
    guards.authenticatedClient(resolved.client.prefix, resolved.client.effective)
    const request = resolved.authorizationRequestPayload as Openid4vpAuthorizationRequest
    if (!resolved.dcql)
      throw new UnprocessableError(
        'The request has no DCQL query: Presentation Exchange requests are not answered (OpenID4VP 1.0 uses DCQL)',
      )
    if (!request.response_uri)
      throw new UnprocessableError('The request has no response_uri: only direct_post and direct_post.jwt are answered')
    const query = parseQuery(resolved.dcql.query)

    // Each query's least-disclosing credential, then one option per credential set (credential-set-choice.ts).
    const best = await this.leastDisclosing(query, await this.candidates(holderDid))
    const cost = (id: string) => best.get(id)?.disclosure.subject_claims ?? Infinity
    const { queries, sets } = chooseQueries(query, new Set(best.keys()), cost, input.choices)
    const kb = {
      aud: resolved.client.effective,
      nonce: request.nonce,
      iat: Math.floor(this.deps.clock.now().getTime() / 1000),
    }
    const encryptionJwk = responseEncryptionKey(request)
    const oid4vp: Oid4vpRequestContext = {
      clientId: request.client_id ?? resolved.client.effective,
      nonce: request.nonce,
      responseUri: request.response_uri,
      ...(encryptionJwk ? { encryptionJwk } : {}),
    }
    const drafts: SessionState['drafts'] = []
    const shown: SessionState['shown'] = []
    for (const queryId of queries) {
      const { candidate, asked, disclosure } = best.get(queryId)!
      const draft = await this.draft(holderDid, candidate, asked, kb, oid4vp)
      drafts.push({ queryId, credentialId: candidate.row.id, draft })
      shown.push({
        query_id: queryId,
        credential_id: candidate.row.id,
        format: candidate.format,
        credential_type: candidate.row.credential_type,
        issuer_did: candidate.row.issuer_did,
        claims: disclosure.claims,
        disclosed: disclosure.disclosed,
      })
    }

    const id = `wps-${randomUUID()}`
    const expiresAt = new Date(this.deps.clock.now().getTime() + SESSION_TTL_MS)
    const identity = verifierIdentity(resolved.client, request)
    const state: SessionState = {
      request,
      verifier: resolved.client.effective,
      identity,
      purpose: purposeOf(request, query),
      drafts,
      shown,
      ...(query.credential_sets ? { sets } : {}),
      ...(encryptionJwk ? { encryptionJwk } : {}),
    }
    await withClaim(this.deps.db, claim, id, (executor) =>
      sessions.insertSession(executor, {
        id,
        holder_did: holderDid,
        kind: 'oid4vp',
        status: 'prepared',
        state: JSON.stringify(state),
        sealed: null,
        expires_at: expiresAt,
      }),
    )
    return preparedAnswer(id, state, expiresAt)
  }

  /** The answer of `prepare`, rebuilt from its session (an Idempotency-Key replay). */
  async replayPrepare(holderDid: string, sessionId: string): Promise<PreparedAnswer> {
    const row = await sessions.findSession(this.deps.db, holderDid, sessionId)
    if (!row || row.kind !== 'oid4vp')
      throw new NotFoundError('The presentation answer this Idempotency-Key prepared has expired')
    return preparedAnswer(row.id, JSON.parse(row.state) as SessionState, new Date(row.expires_at))
  }

  /**
   * Sends the answer once, with one signed holder proof per prepared presentation. `claim` (an
   * Idempotency-Key) commits with the activity records of the verifier's verdict; it seals the
   * outcome, which is stored nowhere else (a redirect_uri may carry a response_code, OpenID4VP §8.2).
   */
  async complete(
    holderDid: string,
    sessionId: string,
    input: { signatures: Record<string, string> },
    claim?: ClaimKey,
  ): Promise<AnswerOutcome> {
    const existing = await sessions.findSession(this.deps.db, holderDid, sessionId)
    if (!existing || existing.kind !== 'oid4vp') throw new NotFoundError('Presentation answer not found')
    if (existing.status === 'declined')
      throw new ConflictError('The holder declined this request: nothing more is sent')
    const state = JSON.parse(existing.state) as SessionState
    const vpToken: Record<string, string[]> = {}
    for (const { queryId, draft } of state.drafts) {
      const signed = input.signatures[queryId]
      const field = `signatures.${queryId}`
      if (signed === undefined)
        throw new ValidationError(`${field} is required: each prepared presentation is signed`, { details: { field } })
      vpToken[queryId] = [await finishDraft(this.deps.resolver, holderDid, draft, signed, field)]
    }
    const extra = Object.keys(input.signatures).filter((id) => !state.drafts.some((d) => d.queryId === id))
    if (extra.length)
      throw new ValidationError(`signatures names queries that were not prepared: ${extra.join(', ')}`, {
        details: { field: 'signatures' },
      })
    const taken = await sessions.takeSession(
      this.deps.db,
      holderDid,
      sessionId,
      'oid4vp',
      'prepared',
      'sent',
      this.deps.clock.now(),
    )
    if (!taken) throw new NotFoundError('Presentation answer not found, expired or already sent')

    const client = this.client()
    const response = await protocolStep('building the authorization response', 'authorization_request_uri', () =>
      client.createOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: state.request,
        authorizationResponsePayload: { vp_token: vpToken },
        ...(state.request.response_mode === 'direct_post.jwt'
          ? {
              jarm: {
                encryption: {
                  nonce: randomBytes(16).toString('base64url'),
                  ...(state.encryptionJwk ? { jwk: state.encryptionJwk } : {}),
                },
                serverMetadata: JARM_SERVER_METADATA,
              },
            }
          : {}),
      }),
    )
    const submitted = await protocolStep('sending the authorization response', 'authorization_request_uri', () =>
      client.submitOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: state.request,
        authorizationResponsePayload: response.authorizationResponsePayload,
        ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
      }),
    )
    const answer = (await submitted.response.json().catch(() => ({}))) as {
      redirect_uri?: unknown
      error?: unknown
      error_description?: unknown
    }
    const accepted = submitted.response.ok
    const outcome: AnswerOutcome = {
      accepted,
      verifier_status: submitted.response.status,
      redirect_uri: guards.safeRedirect(answer.redirect_uri),
      verifier_error: accepted
        ? null
        : [answer.error, answer.error_description].filter((p) => typeof p === 'string').join(': ') || null,
    }
    await this.deps.db.transaction().execute(async (trx) => {
      await claimIn(trx, claim, taken.id, outcome)
      // The holder's consent record: what was shared with whom, whatever the verifier made of it.
      for (const [i, { credentialId }] of state.drafts.entries()) {
        await recordActivity(trx, {
          holder_did: holderDid,
          type: 'presentation_shared',
          credential_id: credentialId,
          details: {
            verifier: state.verifier,
            verifier_name: state.identity?.name ?? null,
            protocol: 'openid4vp',
            query_id: state.shown[i]?.query_id ?? null,
            claims: state.shown[i]?.claims ?? [],
          },
          at: this.deps.clock.now(),
        })
      }
      for (const { credentialId } of state.drafts) {
        await recordActivity(trx, {
          holder_did: holderDid,
          type: accepted ? 'presentation_submitted' : 'presentation_rejected',
          credential_id: credentialId,
          details: { verifier: state.verifier, protocol: 'openid4vp', verifier_status: submitted.response.status },
          at: this.deps.clock.now(),
        })
      }
    })
    return outcome
  }

  /**
   * The holder's refusal: the session ends (a later completion or decline is a 409) with a
   * `presentation_declined` record, in one transaction, and the verifier is told with the error
   * response of OpenID4VP 1.0 §8.5 (`error=access_denied`, the request's `state`) posted to its
   * response_uri as direct_post does, through the guarded fetch. Nothing of the holder's
   * credentials is sent. A verifier that cannot be reached leaves the decline standing (status null).
   */
  async decline(holderDid: string, sessionId: string, input: { reason?: string }): Promise<DeclineOutcome> {
    const existing = await sessions.findSession(this.deps.db, holderDid, sessionId)
    if (!existing || existing.kind !== 'oid4vp') throw new NotFoundError('Presentation answer not found')
    if (existing.status !== 'prepared')
      throw new ConflictError(
        existing.status === 'declined'
          ? 'This request was declined already'
          : 'The answer was sent already: it cannot be declined',
      )
    const state = JSON.parse(existing.state) as SessionState
    const now = this.deps.clock.now()
    const taken = await this.deps.db.transaction().execute(async (trx) => {
      const row = await sessions.takeSession(trx, holderDid, sessionId, 'oid4vp', 'prepared', 'declined', now)
      if (!row) return undefined
      await recordActivity(trx, {
        holder_did: holderDid,
        type: 'presentation_declined',
        details: {
          verifier: state.verifier,
          verifier_name: state.identity?.name ?? null,
          protocol: 'openid4vp',
          ...(input.reason ? { reason: input.reason } : {}),
        },
        at: now,
      })
      return row
    })
    if (!taken) {
      const again = await sessions.findSession(this.deps.db, holderDid, sessionId)
      if (again && again.status !== 'prepared') throw new ConflictError('This request was answered or declined already')
      throw new NotFoundError('Presentation answer not found or expired')
    }
    const error = {
      error: 'access_denied',
      error_description:
        input.reason && printable(input.reason)
          ? `The holder declined: ${printable(input.reason)}`
          : 'The holder declined the request',
      ...(state.request.state ? { state: state.request.state } : {}),
    }
    try {
      const submitted = await protocolStep('sending the error response', 'authorization_request_uri', () =>
        // OID4VP 1.0 §8.5: an error response carries no vp_token; the library posts it form-encoded to response_uri.
        this.client().submitOpenid4vpAuthorizationResponse({
          authorizationRequestPayload: state.request,
          authorizationResponsePayload: error as never,
        }),
      )
      const answer = (await submitted.response.json().catch(() => ({}))) as { redirect_uri?: unknown }
      return { verifier_status: submitted.response.status, redirect_uri: guards.safeRedirect(answer.redirect_uri) }
    } catch {
      // The decline is committed: whatever stopped the message reaching the verifier (unreachable,
      // a refusal the library threw) leaves it a decline the verifier did not hear, never a 500.
      return { verifier_status: null, redirect_uri: null }
    }
  }

  /** Per query the wallet can answer, of its first MAX_COMPARED matches the one whose presentation discloses the fewest attributes. */
  private async leastDisclosing(query: DcqlQuery, candidates: Candidate[]): Promise<Map<string, Match>> {
    const result = DcqlQuery.query(
      query,
      candidates.map((c) => c.dcql),
    )
    const best = new Map<string, Match>()
    for (const [queryId, match] of Object.entries(result.credential_matches)) {
      if (!match.success) continue
      const credentialQuery = query.credentials.find((c) => c.id === queryId)!
      for (const valid of match.valid_credentials.slice(0, MAX_COMPARED)) {
        const candidate = candidates[valid.input_credential_index]!
        const asked = askedPaths(credentialQuery, valid.claims.valid_claim_sets)
        const disclosure = await candidate.holder.disclosure(candidate.row.jwt, asked)
        const held = best.get(queryId)
        if (!held || disclosure.subject_claims < held.disclosure.subject_claims)
          best.set(queryId, { candidate, asked, disclosure })
      }
    }
    return best
  }

  /** The holder's usable credentials (active, not withdrawn) in a form DCQL matches. */
  private async candidates(holderDid: string): Promise<Candidate[]> {
    const out: Candidate[] = []
    let after: string | undefined
    for (let seen = 0; seen < MAX_CANDIDATES; ) {
      const page = await this.deps.wallet.list(
        holderDid,
        { status: 'active' },
        { limit: 200, ...(after ? { after } : {}) },
      )
      for (const row of page) {
        if (row.withdrawn_at) continue
        // Formats OpenID4VP does not name (vc+jwt, Dock BBS) have no holder face: no query can ask for them.
        const format = this.deps.formats.recognize(row.jwt)
        const holder = format?.holder
        const dcql = holder ? await holder.dcqlCredential(row.jwt).catch(() => undefined) : undefined
        if (format && holder && dcql) out.push({ row, format: format.id, holder, dcql })
      }
      seen += page.length
      if (page.length < 200) break
      after = page[page.length - 1]!.id
    }
    return out
  }

  private draft(
    holderDid: string,
    chosen: Candidate,
    claims: ClaimPath[],
    proof: HolderProofClaims,
    oid4vp: Oid4vpRequestContext,
  ): Promise<PresentationDraft> {
    return chosen.holder.draft(chosen.row.jwt, claims, {
      proof,
      oid4vp,
      holderKey: async () => {
        const key = await holderSigningKey(this.deps.resolver, holderDid, JWS_ALGORITHMS)
        if (!key)
          throw new UnprocessableError(
            "The holder's DID has no Ed25519 or P-256 authentication key to sign a presentation with",
          )
        return { did: holderDid, kid: key.kid, alg: key.alg }
      },
    })
  }

  private client(fetch: typeof globalThis.fetch = this.deps.fetch): Openid4vpClient {
    const callbacks = serviceCallbacks({
      resolver: this.deps.resolver,
      keys: { signingKey: () => Promise.reject(new Error('the hosted wallet signs nothing itself')) },
    })
    const skew = { clock: this.deps.clock, skewSeconds: this.deps.skewSeconds, what: "The verifier's request object" }
    const verifyJwt = withClockSkew(guards.refusingUnguardedFetches(callbacks.verifyJwt), skew)
    return new Openid4vpClient({ callbacks: { ...callbacks, verifyJwt, fetch } })
  }
}

function preparedAnswer(id: string, state: SessionState, expiresAt: Date): PreparedAnswer {
  const presentations = state.drafts.map(({ draft }, i) => ({ ...state.shown[i]!, to_sign: toSign(draft) }))
  return {
    session_id: id,
    verifier: state.verifier,
    verifier_identity: state.identity,
    purpose: state.purpose,
    response_mode: state.request.response_mode ?? 'fragment',
    presentations,
    ...(state.sets ? { credential_sets: state.sets } : {}),
    expires_at: expiresAt,
  }
}

/**
 * The claim paths a credential is presented with: the query's claims, or with `claim_sets` those
 * of the first set the credential meets, in the verifier's order of preference (OpenID4VP 1.0 §6.4.1).
 */
function askedPaths(
  credentialQuery: DcqlQuery['credentials'][number],
  validSets: ReadonlyArray<{ claim_set_index?: number }>,
): ClaimPath[] {
  const claims = credentialQuery.claims ?? []
  const setIndex = validSets
    .map((s) => s.claim_set_index)
    .filter((i): i is number => i !== undefined)
    .sort((a, b) => a - b)[0]
  const ids = setIndex === undefined ? undefined : new Set(credentialQuery.claim_sets?.[setIndex] ?? [])
  const inSet = (c: { id?: string }) => !ids || (c.id !== undefined && ids.has(c.id))
  return claims.flatMap((c) => ('path' in c && inSet(c) ? [[...c.path] as ClaimPath] : []))
}

/** A holder's free text as an error_description may carry it: no control characters (RFC 6749 §4.1.2.1), which verifiers refuse. */
const printable = (text: string) =>
  text
    // eslint-disable-next-line no-control-regex -- the point is to remove them
    .replace(/[\u0000-\u001F\u007F-\u009F]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()

/** How the request identified its verifier (OpenID4VP 1.0 §5.9.3), and what it says of itself in client_metadata. */
export function verifierIdentity(
  client: {
    prefix: string
    effective: string
    identifier: string
    clientMetadata?: { client_name?: string; logo_uri?: string }
  },
  request: Openid4vpAuthorizationRequest,
): VerifierIdentity {
  const metadata =
    client.clientMetadata ?? (request.client_metadata as { client_name?: unknown; logo_uri?: unknown } | undefined)
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null)
  const did = client.prefix === 'decentralized_identifier'
  return {
    client_id: client.effective,
    prefix: client.prefix,
    verified: did,
    verified_by: did
      ? `signed request object, key of ${client.identifier} resolved from the DID`
      : 'none (unsigned redirect_uri request)',
    name: text(metadata?.client_name),
    // Only an https URL reaches the holder's screen (not javascript:, data: or plain http).
    logo_uri: ((uri) => (uri !== null && URL.canParse(uri) && new URL(uri).protocol === 'https:' ? uri : null))(
      text(metadata?.logo_uri),
    ),
    domain: request.response_uri && URL.canParse(request.response_uri) ? new URL(request.response_uri).host : null,
  }
}

/** The request's purpose: a `purpose` parameter, else those of its DCQL credential sets (OpenID4VP 1.0 §6.2). */
function purposeOf(request: Openid4vpAuthorizationRequest, query: DcqlQuery): string | null {
  const stated = (request as { purpose?: unknown }).purpose
  if (typeof stated === 'string' && stated.length > 0) return stated
  const ofSets = (query.credential_sets ?? [])
    .map((set) => (set as { purpose?: unknown }).purpose)
    .filter((p): p is string => typeof p === 'string' && p.length > 0)
  return ofSets.length > 0 ? [...new Set(ofSets)].join('; ') : null
}

/**
 * direct_post.jwt: the verifier key from the request's client_metadata.jwks the response will be
 * encrypted to, picked as the library picks it (OpenID4VP 1.0 §8.3), so that a holder proof bound
 * to it (an mdoc's SessionTranscript, Appendix B.2.6.1) names the key the response then uses.
 */
function responseEncryptionKey(request: Openid4vpAuthorizationRequest): Jwk | undefined {
  if (request.response_mode !== 'direct_post.jwt') return undefined
  const jwks = request.client_metadata?.jwks
  if (!jwks?.keys?.length) return undefined
  return extractEncryptionJwkFromJwks(jwks as { keys: Jwk[] }, {
    supportedAlgValues: JARM_SERVER_METADATA.authorization_encryption_alg_values_supported,
  })
}

function parseQuery(raw: unknown): DcqlQuery {
  try {
    const query = DcqlQuery.parse(raw as DcqlQuery.Input)
    DcqlQuery.validate(query)
    return query
  } catch (error) {
    throw new UnprocessableError(`The request's DCQL query is not valid: ${firstLine(error)}`)
  }
}
