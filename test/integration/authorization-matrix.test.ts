/**
 * The authorization matrix (DESIGN.md "Errors", "Auth", "Ownership"), derived from the router's
 * own route table, so a route added later fails the coverage test until it is filed here.
 *
 * Every route is one of: public (PUBLIC_ROUTES, the one allow-list, imported, never copied, or
 * the docs prefix), admin (ADMIN_PREFIX: X-Admin-Key) or user (a session token). Each user route
 * is a row of MATRIX: either it acts only on the caller's own account or collection (`own`, with
 * the reason), or it addresses records (`records`): then user B, signed in and acting under its
 * own DID, names one of user A's records and must get the status of DESIGN.md.
 *
 * For every user route (and the HEAD of every GET) the test checks:
 *  1. no Authorization header: 401 with a message;
 *  2. A's real token past its `exp` (minted with the ManualClock set back by JWT_TTL_SECONDS
 *     + 60 s; a control below shows the same token is accepted at its own time): 401;
 *  3. B's token with its `sub` changed to A (signature kept): 401;
 *  4. B's token on A's `:did` / `:issuer_did`: 403; A's DID as the body's acting DID: 403;
 *     X-User-DID naming A: 403;
 *  5. `own` rows: B acting as itself, with X-User-DID = B, gets past authorization (not 401/403),
 *     so the 403s of 4. come from the DID mismatch and nothing else;
 *  6. `records` rows: B's request naming A's record answers `expect`, and exactly like the same
 *     request naming a made-up id (same status, code and message up to the id): nothing tells B
 *     that A's record exists. A record addressed in the path is 404 (checked at run time). A
 *     record named in the body answers as its module decided: 400 where the body only refers to
 *     an input (docs/decisions.md: "another issuer's looks unknown: 400, it is a body
 *     reference": issuance and offers schema_id/template_id, a preset_id, a submitted VP's
 *     request_id, an approval's credential_ids), 404 where the body names the record the route
 *     acts on (QR codes, the offer of a credential request, a domain challenge, the record a
 *     chain write updates) and, for templates, a foreign schema_id. Then, after every route ran,
 *     A sends the same requests for its own records and gets past the record check (2xx, a state
 *     conflict, or the stated status: 503 for chain writes, as this app has no chain), which
 *     shows the ids and bodies above really address A's records.
 * Admin routes: no key, a wrong key, or a user token instead of the key: 401; the key: not 401.
 * Public routes: each answers without a token (neither 401 nor 403).
 *
 * One app and one world per run (test/helpers/authz-world.ts); outgoing HTTP and DNS are stubs
 * that find nothing, so the domain check of the owner's control does not leave the machine.
 */
import assert from 'node:assert/strict'
import { sign } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { RouteEntry } from '../../src/plugins/route-table.js'
import { accessOf, ADMIN_PREFIX, DOCS_PREFIX, PUBLIC_ROUTES, VC_API_PREFIX } from '../../src/plugins/route-access.js'
import { buildWorld, WORLD_SCHEMA, type Party, type World } from '../helpers/authz-world.js'
import { bearer } from '../helpers/did-client.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { ADMIN_KEY, createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'
import { multipart, PDF_BYTES, signJwt } from '../helpers/wallet-fixtures.js'

/** One request of a route, as the caller `me` builds it; the caller's DID fills :did and :issuer_did. */
interface Call {
  params?: Record<string, string>
  body?: unknown
  form?: { payload: Buffer; headers: Record<string, string> }
}
interface Ctx {
  w: World
  app: FastifyInstance
  clock: ManualClock
}
type Build = (c: Ctx, me: Party) => Call | Promise<Call>

interface RecordCase {
  what: string
  /** The id of A's record the request names (in its path or body). */
  names?: (c: Ctx) => string
  /** B's request naming A's record; with me = A it is A's request for its own record. */
  call: Build
  expect: 400 | 404 | 422
  /** Why no made-up id is compared (default: the made-up id answers exactly like A's). */
  noGhost?: string
  /** A's own request: default "reaches the record" (2xx or 409/422); a number: that exact status. */
  control?: number | { skip: string }
}
interface RouteCase {
  /** The route acts on the caller's own account or collection only: why. */
  own?: string
  /** A schema-valid request of `me` (default: the first record case's, else none). */
  call?: Build
  /** The request with `someoneElse` as the body's acting DID: 403 (DESIGN.md "Errors"). */
  actingBody?: (c: Ctx, me: Party, someoneElse: string) => Call | Promise<Call>
  records?: RecordCase[]
}

const ACTING_PARAMS = ['did', 'issuer_did']
const HASH = 'ab'.repeat(32)
const params = (p: Record<string, string>): Call => ({ params: p })
const ids = (c: Ctx) => c.w.ids
const theirs = (c: Ctx, me: Party, aRecord: string, bRecord: string) => (me.did === c.w.a.did ? aRecord : bRecord)
const vpOf = (c: Ctx, me: Party, aud: string, nonce = 'matrix-nonce', credentials: unknown[] = []) => {
  const now = Math.floor(c.clock.now().getTime() / 1000)
  return signPresentation(me.actor, { aud, nonce, credentials, iat: now, exp: now + 600 })
}
const stepUpProof = async (c: Ctx, me: Party) => me.actor.proof(c.app, me.did, 'step-up')
/** The caller's compact JWS over prepared bytes (Ed25519, RFC 8037), as its own client signs them. */
const jwsOver = (me: Party, signingInput: string) =>
  `${signingInput}.${sign(null, Buffer.from(signingInput), me.actor.privateKey).toString('base64url')}`
const definition = (c: Ctx) => ({
  presentation_type: 'PassCheck',
  required_credentials: [{ credential_type: 'Pass', issuer_did: c.w.a.did }],
  purpose: 'Check the pass',
})
const evidenceForm = () =>
  multipart([
    { name: 'label', value: 'transcript' },
    { name: 'file', filename: 'transcript.pdf', contentType: 'application/pdf', data: PDF_BYTES },
  ])

/** A record addressed in the path: 404 for anyone but its owner (DESIGN.md "Ownership"). */
const inPath = (
  what: string,
  param: string,
  id: (c: Ctx) => string,
  extra: Partial<RecordCase> & { body?: (c: Ctx, me: Party) => unknown } = {},
): RecordCase => {
  const { body, ...rest } = extra
  return {
    what,
    expect: 404,
    names: id,
    call: (c, me) => ({ params: { [param]: id(c) }, ...(body ? { body: body(c, me) } : {}) }),
    ...rest,
  }
}
const schemaOf = (c: Ctx) => c.w.ids.schema
const templateOf = (c: Ctx) => c.w.ids.template
const credentialOf = (c: Ctx) => c.w.ids.credential.id
const consentOf = (c: Ctx) => c.w.ids.consent
const requestOf = (c: Ctx) => c.w.ids.credentialRequest
const inboxOf = (c: Ctx) => c.w.ids.presentationRequest
const presentationOf = (c: Ctx) => c.w.ids.presentation.id
const offerOf = (c: Ctx) => c.w.ids.offer

const MATRIX: Record<string, RouteCase> = {
  // Auth: the signed-in account itself.
  'POST /api/auth/avatar': { own: "the caller's own profile picture" },
  'GET /api/auth/me': { own: 'the caller itself' },
  'GET /api/auth/profile': { own: "the caller's own profile" },
  'PUT /api/auth/profile': { own: "the caller's own profile", call: () => ({ body: { bio: 'matrix' } }) },
  'POST /api/auth/wallet/encrypted-seed': {
    own: "the caller's own seed",
    call: () => ({
      body: {
        encrypted_seed: Buffer.from('matrix seed bytes!').toString('base64'),
        encryption: { algorithm: 'AES-256-GCM' },
      },
    }),
  },

  // Blockchain writes: the body names the acting DID, and optionally the record the anchor updates.
  'POST /api/blockchain/credential/register': {
    actingBody: (_c, _me, other) => ({ body: { issuer_did: other, credential_hash: HASH } }),
    records: [
      {
        what: "A's credential as credential_id",
        names: credentialOf,
        expect: 404,
        control: 503,
        call: (c, me) => ({ body: { issuer_did: me.did, credential_hash: HASH, credential_id: ids(c).credential.id } }),
      },
    ],
  },
  'POST /api/blockchain/credential/revoke': {
    actingBody: (_c, _me, other) => ({ body: { issuer_did: other, credential_hash: HASH } }),
    records: [
      {
        what: "A's credential as credential_id",
        names: credentialOf,
        expect: 404,
        control: 503,
        call: (c, me) => ({ body: { issuer_did: me.did, credential_hash: HASH, credential_id: ids(c).credential.id } }),
      },
    ],
  },
  'POST /api/blockchain/schema/register': {
    actingBody: (c, _me, other) => ({ body: { issuer_did: other, schema_id: ids(c).schema, schema_hash: HASH } }),
    records: [
      {
        what: "A's schema as schema_id",
        expect: 404,
        control: 503,
        noGhost:
          'any schema id may be registered, also one defined elsewhere; only a schema of this service that another issuer owns is refused (schema ids are public: every credential names its schema)',
        call: (c, me) => ({ body: { issuer_did: me.did, schema_id: ids(c).schema, schema_hash: HASH } }),
      },
    ],
  },
  'POST /api/blockchain/consent/grant': {
    actingBody: (c, _me, other) => ({
      body: { user_did: other, verifier_did: c.w.b.did, purpose: 'Employment check' },
    }),
    records: [
      {
        what: "A's consent as consent_id",
        names: consentOf,
        expect: 404,
        control: 503,
        call: (c, me) => ({
          body: { user_did: me.did, verifier_did: c.w.b.did, purpose: 'Employment check', consent_id: ids(c).consent },
        }),
      },
    ],
  },
  'POST /api/blockchain/consent/revoke': {
    actingBody: (c, _me, other) => ({
      body: { user_did: other, verifier_did: c.w.b.did, purpose: 'Employment check' },
    }),
    records: [
      {
        what: "A's consent as consent_id",
        names: consentOf,
        expect: 404,
        control: 503,
        call: (c, me) => ({
          body: { user_did: me.did, verifier_did: c.w.b.did, purpose: 'Employment check', consent_id: ids(c).consent },
        }),
      },
    ],
  },
  'POST /api/blockchain-legacy/register-credential': {
    actingBody: (_c, _me, other) => ({ body: { issuerDid: other, credentialHash: HASH } }),
    records: [
      {
        what: "A's credential as credentialId",
        names: credentialOf,
        expect: 404,
        control: 503,
        call: (c, me) => ({ body: { issuerDid: me.did, credentialHash: HASH, credentialId: ids(c).credential.id } }),
      },
    ],
  },
  'POST /api/blockchain-legacy/revoke-credential': {
    actingBody: (_c, _me, other) => ({ body: { issuerDid: other, credentialHash: HASH } }),
    records: [
      {
        what: "A's credential as credentialId",
        names: credentialOf,
        expect: 404,
        control: 503,
        call: (c, me) => ({ body: { issuerDid: me.did, credentialHash: HASH, credentialId: ids(c).credential.id } }),
      },
    ],
  },
  'POST /api/blockchain-legacy/register-schema': {
    actingBody: (c, _me, other) => ({ body: { issuerDid: other, schemaId: ids(c).schema, schemaHash: HASH } }),
    records: [
      {
        what: "A's schema as schemaId",
        expect: 404,
        control: 503,
        noGhost: "as POST /api/blockchain/schema/register: any schema id but another issuer's schema of this service",
        call: (c, me) => ({ body: { issuerDid: me.did, schemaId: ids(c).schema, schemaHash: HASH } }),
      },
    ],
  },
  'POST /api/blockchain-legacy/grant-consent': {
    own: "anchors the caller's own (holder, verifier, purpose) triple; the legacy body has no record id",
    call: (c, me) => ({ body: { userDid: me.did, verifierDid: c.w.a.did, purpose: 'Legacy check' } }),
    actingBody: (c, _me, other) => ({ body: { userDid: other, verifierDid: c.w.b.did, purpose: 'Legacy check' } }),
  },
  'POST /api/blockchain-legacy/revoke-consent': {
    own: "revokes the caller's own triple; the legacy body has no record id",
    call: (c, me) => ({ body: { userDid: me.did, verifierDid: c.w.a.did, purpose: 'Legacy check' } }),
    actingBody: (c, _me, other) => ({ body: { userDid: other, verifierDid: c.w.b.did, purpose: 'Legacy check' } }),
  },

  // Domain ownership.
  'POST /api/domain/challenge': {
    own: 'a challenge belongs to the (DID, domain) pair of the caller',
    call: (_c, me) => ({ body: { did: me.did, domain: `matrix-${me.did.slice(-6).toLowerCase()}.example.com` } }),
    actingBody: (_c, _me, other) => ({ body: { did: other, domain: 'matrix.example.com' } }),
  },
  'POST /api/domain/verify': {
    actingBody: (c, _me, other) => ({
      body: { did: other, domain: ids(c).domainChallenge.domain, method: 'well_known' },
    }),
    records: [
      {
        what: "A's challenge_id",
        names: (c) => c.w.ids.domainChallenge.id,
        expect: 404,
        call: (c, me) => ({
          body: {
            did: me.did,
            domain: ids(c).domainChallenge.domain,
            method: 'well_known',
            challenge_id: ids(c).domainChallenge.id,
          },
        }),
      },
    ],
  },
  'GET /api/domain/status/:did': { own: "the domains of the caller's own DID" },

  // Issuer: profile, schemas, templates, issuance, offers, requests.
  'POST /api/issuer': {
    own: "creates the caller's own issuer profile",
    call: () => ({ body: { name: 'Matrix' } }),
    actingBody: (_c, _me, other) => ({ body: { did: other, name: 'Matrix' } }),
  },
  'GET /api/issuer/:did': { own: "the caller's own issuer profile" },
  'PUT /api/issuer/:did/update': {
    own: "the caller's own issuer profile",
    call: () => ({ body: { description: 'matrix' } }),
  },
  'POST /api/issuer/:did/set-auth': {
    own: "the caller's own issuer profile; the body proves the caller's own key",
    call: async (c, me) => ({ body: { ...(await stepUpProof(c, me)), require_step_up: false } }),
  },
  'GET /api/issuer/:did/signing': { own: "the signing DIDs of the caller's own issuer profile" },
  'PUT /api/issuer/:did/signing': {
    own: "the caller's own issuer profile",
    call: () => ({ body: { signing_did_method: 'web' } }),
  },
  'GET /api/issuer/:did/oid4vci-policy': { own: "the OpenID4VCI policy of the caller's own issuer profile" },
  'PUT /api/issuer/:did/oid4vci-policy': {
    own: "the caller's own issuer profile",
    call: () => ({
      body: {
        par_required: false,
        dpop_required: false,
        dpop_nonce_required: true,
        wallet_attestation_required: false,
        key_attestation_required: false,
        trusted_wallet_providers: [],
        credential_response_encryption: 'none',
      },
    }),
  },
  'POST /api/issuer/:did/authenticate': {
    own: "the caller's own issuer profile; the body proves the caller's own key",
    call: async (c, me) => ({ body: await stepUpProof(c, me) }),
  },
  'GET /api/issuer/:did/schemas': { own: "lists the caller's own schemas" },
  // mdoc certificates (docs/certificates.md): the listing is public; the rest act on the caller's own chain.
  'POST /api/issuer/:did/certificates/document-signer': {
    own: "imports a Document Signer into the caller's own chain",
    call: () => ({ body: { certificate_pem: 'matrix', private_key_pem: 'matrix', iaca_pem: 'matrix' } }),
  },
  'POST /api/issuer/:did/certificates/csr': { own: "a request over the caller's own pending key" },
  'POST /api/issuer/:did/certificates/csr/certificate': {
    own: "answers the caller's own pending request",
    call: () => ({ body: { certificate_pem: 'matrix', iaca_pem: 'matrix' } }),
  },
  'POST /api/issuer/:did/certificates/rotate': { own: "renews the caller's own Document Signer" },
  'POST /api/issuer/:did/schemas': {
    own: 'defines a schema of the caller',
    call: () => ({ body: { ...WORLD_SCHEMA, version: 'matrix' } }),
  },
  'GET /api/issuer/:did/schemas/:schema_id': { records: [inPath("A's schema", 'schema_id', schemaOf)] },
  'PUT /api/issuer/:did/schemas/:schema_id': {
    records: [inPath("A's schema", 'schema_id', schemaOf, { body: () => ({ description: 'changed by the matrix' }) })],
  },
  'DELETE /api/issuer/:did/schemas/:schema_id': { records: [inPath("A's schema", 'schema_id', schemaOf)] },
  'GET /api/issuer/:did/templates': { own: "lists the caller's own templates" },
  'POST /api/issuer/:did/templates': {
    // Unlike issuance and offers (400), templates answer a foreign schema_id as DESIGN.md's 404.
    records: [
      {
        what: "A's schema as schema_id",
        expect: 404,
        names: schemaOf,
        call: (c) => ({ body: { name: 'Matrix template', credential_type: 'Pass', schema_id: ids(c).schema } }),
      },
    ],
  },
  'GET /api/issuer/:did/templates/:template_id': { records: [inPath("A's template", 'template_id', templateOf)] },
  'PUT /api/issuer/:did/templates/:template_id': {
    records: [
      inPath("A's template", 'template_id', templateOf, { body: () => ({ description: 'changed by the matrix' }) }),
    ],
  },
  'DELETE /api/issuer/:did/templates/:template_id': { records: [inPath("A's template", 'template_id', templateOf)] },
  'POST /api/issuer/:did/issue': {
    records: [
      {
        what: "A's schema as schema_id",
        expect: 400,
        names: schemaOf,
        call: (c, me) => ({
          body: {
            credential_type: 'Pass',
            schema_id: ids(c).schema,
            subject_did: me.did,
            attributes: { holder_name: 'Bo' },
          },
        }),
      },
      {
        what: "A's template with the caller's own schema",
        names: templateOf,
        expect: 400,
        call: (c, me) => ({
          body: {
            credential_type: 'Pass',
            schema_id: theirs(c, me, ids(c).schema, c.w.bSchema),
            template_id: ids(c).template,
            subject_did: me.did,
            attributes: { holder_name: 'Bo' },
          },
        }),
      },
    ],
  },
  'GET /api/issuer/:did/credentials': { own: 'lists the credentials the caller issued' },
  'GET /api/issuer/:did/credentials/:credential_id': {
    records: [inPath("A's issued credential", 'credential_id', credentialOf)],
  },
  'POST /api/issuer/:did/credentials/:credential_id/revoke': {
    records: [inPath("A's issued credential", 'credential_id', credentialOf)],
  },
  'GET /api/issuer/:did/statistics': { own: "counts over the caller's own issuance" },
  'GET /api/issuer/:did/offers': { own: "lists the caller's own offers" },
  'POST /api/issuer/:did/offers': {
    records: [
      {
        what: "A's schema as schema_id",
        expect: 400,
        names: schemaOf,
        call: (c) => ({ body: { credential_type: 'Pass', schema_id: ids(c).schema } }),
      },
      {
        what: "A's template with the caller's own schema",
        names: templateOf,
        expect: 400,
        call: (c, me) => ({
          body: {
            credential_type: 'Pass',
            schema_id: theirs(c, me, ids(c).schema, c.w.bSchema),
            template_id: ids(c).template,
          },
        }),
      },
    ],
  },
  'GET /api/issuer/:did/offers/:offer_id/qr': { records: [inPath("A's offer", 'offer_id', offerOf)] },
  'GET /api/issuer/:did/requests': { own: 'lists the requests addressed to the caller' },
  'GET /api/issuer/:did/requests/:request_id': {
    records: [inPath('a request addressed to A', 'request_id', requestOf)],
  },

  // Issuer decisions on credential requests (the issuer DID is a path segment of its own name).
  'GET /api/wallet/issuer/:issuer_did/request/:request_id/challenge': {
    records: [inPath('a request addressed to A', 'request_id', requestOf)],
  },
  'POST /api/wallet/issuer/:issuer_did/request/:request_id/approve': {
    records: [
      {
        what: 'a request addressed to A',
        expect: 404,
        names: requestOf,
        call: async (c, me) => {
          const request_id = ids(c).credentialRequest
          if (me.did !== c.w.a.did)
            return { params: { request_id }, body: { signature: me.actor.sign('not a challenge of this request') } }
          const res = await c.app.inject({
            method: 'GET',
            url: `/api/wallet/issuer/${me.did}/request/${request_id}/challenge`,
            headers: bearer(me.token),
          })
          return {
            params: { request_id },
            body:
              res.statusCode === 200
                ? { signature: me.actor.sign(res.json().challenge as string) }
                : { signature: 'no-challenge' },
          }
        },
      },
    ],
  },
  'POST /api/wallet/issuer/:issuer_did/request/:request_id/reject': {
    records: [inPath('a request addressed to A', 'request_id', requestOf, { body: () => ({ reason: 'matrix' }) })],
  },

  // Holder: credential requests.
  'POST /api/wallet/credential-request': {
    records: [
      {
        what: "A's offer, addressed to A alone",
        names: offerOf,
        expect: 404,
        call: (c) => ({ body: { issuer_did: c.w.a.did, offer_id: ids(c).offer } }),
      },
    ],
  },
  'GET /api/wallet/:did/credential-requests': { own: "lists the caller's own requests" },

  // Holder: wallet credentials, shares, evidence, keys, activity.
  'GET /api/wallet/:did/credentials': { own: "lists the caller's own wallet" },
  'DELETE /api/wallet/:did/credentials/:credential_id': {
    records: [inPath("A's wallet credential", 'credential_id', credentialOf)],
  },
  'POST /api/wallet/:did/credentials/:credential_id/revoke': {
    records: [inPath("A's wallet credential", 'credential_id', credentialOf, { body: () => ({ reason: 'matrix' }) })],
  },
  'POST /api/wallet/:did/credentials/:credential_id/anonymous-proof': {
    records: [
      inPath("A's wallet credential", 'credential_id', credentialOf, {
        body: (c) => ({ reveal: ['holder_name'], predicates: [], nonce: 'matrix-nonce', verifier_did: c.w.b.did }),
      }),
    ],
  },
  'POST /api/wallet/:did/credentials/:credential_id/derive': {
    records: [
      inPath("A's wallet credential", 'credential_id', credentialOf, {
        body: () => ({ pointers: ['/credentialSubject/holder_name'] }),
      }),
    ],
  },
  // The hosted wallet's OpenID4VC exchanges (docs/openid4vc.md): prepared for, and completed by, the caller only.
  'POST /api/wallet/:did/offers/accept': { own: "prepares an offer's acceptance into the caller's own wallet" },
  'POST /api/wallet/:did/offers/accept/:session_id': {
    records: [
      inPath("A's offer acceptance", 'session_id', (c) => c.w.ids.walletExchanges.acceptance.id, {
        body: (c, me) => ({ proof_jwt: jwsOver(me, c.w.ids.walletExchanges.acceptance.signingInput) }),
      }),
    ],
  },
  'POST /api/wallet/:did/offers/preview': {
    own: "reads an offer for the caller's own wallet; nothing is stored or redeemed",
  },
  'POST /api/wallet/:did/offers/decline': { own: "records the refusal of an offer in the caller's own activity" },
  'POST /api/wallet/:did/presentation-requests/answer': {
    own: "prepares the caller's own answer from the caller's own credentials",
  },
  'POST /api/wallet/:did/presentation-requests/answer/:session_id/decline': {
    records: [
      inPath("A's presentation answer", 'session_id', (c) => c.w.ids.walletExchanges.answer.id, { body: () => ({}) }),
    ],
  },
  'POST /api/wallet/:did/presentation-requests/answer/:session_id': {
    records: [
      inPath("A's presentation answer", 'session_id', (c) => c.w.ids.walletExchanges.answer.id, {
        body: (c, me) => ({
          signatures: {
            [c.w.ids.walletExchanges.answer.queryId]: jwsOver(me, c.w.ids.walletExchanges.answer.signingInput),
          },
        }),
      }),
    ],
  },
  'POST /api/wallet/:did/credentials/import': {
    records: [
      {
        what: "A's credential JWT (its subject is A)",
        expect: 422,
        noGhost: 'the record is the JWT itself, checked for its subject: there is no id to make up',
        call: (c) => ({ body: { credential_jwt: ids(c).credential.jwt } }),
      },
    ],
  },
  'POST /api/wallet/:did/credentials/share': {
    records: [
      {
        what: "A's wallet credential as credential_id",
        names: credentialOf,
        expect: 404,
        call: (c) => ({ body: { credential_id: ids(c).credential.id } }),
      },
    ],
  },
  'GET /api/wallet/:did/shares': { own: "lists the caller's own share links" },
  'POST /api/wallet/:did/shares/:share_id/revoke': {
    records: [inPath("A's share link", 'share_id', (c) => c.w.ids.share)],
  },
  'GET /api/wallet/:did/evidence': { own: "lists the caller's own evidence" },
  'POST /api/wallet/:did/evidence/upload': {
    own: "uploads into the caller's own wallet",
    call: () => ({ form: evidenceForm() }),
  },
  'GET /api/wallet/:did/evidence/:evidence_id/content': {
    records: [inPath("A's evidence", 'evidence_id', (c) => c.w.ids.evidence)],
  },
  'GET /api/wallet/:did/encryption-key': { own: "the caller's own ML-KEM key" },
  'PUT /api/wallet/:did/encryption-key': {
    own: "registers the caller's own ML-KEM key",
    call: () => ({ body: { public_key: 'AAAA' } }),
  },
  'GET /api/wallet/:did/activities': { own: "the caller's own activity log" },
  'GET /api/wallet/:did/statistics': { own: "counts over the caller's own wallet" },
  'GET /api/wallet/:did/presentations': { own: "lists the caller's own presentations" },

  // Holder: consents.
  'GET /api/wallet/:did/consents': { own: "lists the caller's own consents" },
  'POST /api/wallet/:did/consents': {
    own: 'grants a consent of the caller (the verifier is anyone)',
    call: (c) => ({ body: { verifier_did: c.w.a.did, purpose: 'Matrix purpose' } }),
  },
  'GET /api/wallet/:did/consents/:consent_id': { records: [inPath("A's consent", 'consent_id', consentOf)] },
  'POST /api/wallet/:did/consents/:consent_id/revoke': { records: [inPath("A's consent", 'consent_id', consentOf)] },

  // Holder: presentation requests (the record is the holder's inbox entry).
  'POST /api/wallet/presentation-requests': {
    own: "takes a request the caller was given (requests travel by QR to whoever scans them) into the caller's own inbox",
    call: (c) => ({ body: { request_id: ids(c).openRequest } }),
  },
  'GET /api/wallet/presentation-requests/:request_id/status': {
    records: [inPath("A's inbox entry", 'request_id', inboxOf)],
  },
  'POST /api/wallet/presentation-requests/:request_id/approve': {
    records: [
      inPath("A's inbox entry", 'request_id', inboxOf, {
        body: (c, me) => ({ credential_ids: [ids(c).credential.id], presentation_jwt: vpOf(c, me, c.w.a.did) }),
      }),
      {
        what: "A's credential in an answer from the caller's own inbox",
        names: credentialOf,
        expect: 400,
        control: { skip: "the inbox entry is B's; A's approval of its own entry is the case above" },
        call: (c, me) => ({
          params: { request_id: ids(c).openRequest },
          body: { credential_ids: [ids(c).credential.id], presentation_jwt: vpOf(c, me, c.w.a.did) },
        }),
      },
    ],
  },
  'POST /api/wallet/presentation-requests/:request_id/reject': {
    records: [inPath("A's inbox entry", 'request_id', inboxOf, { body: () => ({ reason: 'matrix' }) })],
  },

  // The W3C VC API's OAuth clients of an issuer profile (the /vc-api/ routes they call are tested below).
  'POST /api/issuer/:did/vc-api/clients': {
    own: "creates a client of the caller's own issuer profile",
    call: () => ({ body: { name: 'Matrix client' } }),
  },
  'GET /api/issuer/:did/vc-api/clients': { own: "lists the clients of the caller's own issuer profile" },
  'DELETE /api/issuer/:did/vc-api/clients/:client_id': {
    records: [inPath("A's VC API client", 'client_id', (c) => c.w.ids.vcApiClient.id)],
  },

  // Verifier: profile, requests, presets, presentations.
  'POST /api/verifier': {
    own: "creates the caller's own verifier profile",
    call: () => ({ body: { name: 'Matrix' } }),
    actingBody: (_c, _me, other) => ({ body: { did: other, name: 'Matrix' } }),
  },
  'GET /api/verifier/:did/profile': { own: "the caller's own verifier profile" },
  'POST /api/verifier/requests': {
    actingBody: (c, _me, other) => ({ body: { verifier_did: other, ...definition(c) } }),
    records: [
      {
        what: "A's preset as preset_id",
        names: (c) => c.w.ids.preset,
        expect: 400,
        call: (c, me) => ({ body: { verifier_did: me.did, preset_id: ids(c).preset } }),
      },
    ],
  },
  'GET /api/verifier/requests/:id': { records: [inPath("A's presentation request", 'id', inboxOf)] },
  'POST /api/verifier/requests/:id/response-code': {
    records: [
      inPath("A's presentation request", 'id', inboxOf, { body: () => ({ response_code: 'x' }), control: 400 }),
    ],
  },
  'GET /api/verifier/:did/requests': { own: "lists the caller's own requests" },
  'POST /api/verifier/:did/presets': {
    own: 'saves a preset of the caller',
    call: (c) => ({ body: { name: 'Matrix preset', ...definition(c) } }),
  },
  'GET /api/verifier/:did/presets': { own: "lists the caller's own presets" },
  'GET /api/verifier/:did/trust': { own: "the caller's own trust sources" },
  // Verifier access certificates (docs/adr/0044-verifier-certificates.md): the listing is public; the rest act on the caller's own chain.
  'POST /api/verifier/:did/certificates/access': {
    own: "imports an access certificate into the caller's own chain",
    call: () => ({ body: { certificate_pem: 'matrix', private_key_pem: 'matrix', chain_pems: ['matrix'] } }),
  },
  'POST /api/verifier/:did/certificates/csr': { own: "a request over the caller's own pending key" },
  'POST /api/verifier/:did/certificates/csr/certificate': {
    own: "answers the caller's own pending request",
    call: () => ({ body: { certificate_pem: 'matrix', chain_pems: ['matrix'] } }),
  },
  'POST /api/verifier/:did/certificates/rotate': { own: "renews the caller's own access certificate" },
  'PUT /api/verifier/:did/trust': {
    own: "sets the caller's own trust sources",
    call: () => ({ body: { sources: [] } }),
  },
  'POST /api/verifier/presentations': {
    actingBody: (c, me, other) => {
      const now = Math.floor(c.clock.now().getTime() / 1000)
      return {
        body: {
          presentation_jwt: signJwt(me.actor, {
            iss: other,
            aud: other,
            nonce: 'n',
            iat: now,
            exp: now + 600,
            vp: { type: ['VerifiablePresentation'], holder: other, verifiableCredential: [] },
          }),
        },
      }
    },
    records: [
      {
        what: "A's request as request_id, in a VP addressed to the caller",
        names: (c) => c.w.ids.openRequest,
        expect: 400,
        call: (c, me) => ({ body: { presentation_jwt: vpOf(c, me, me.did), request_id: ids(c).openRequest } }),
      },
    ],
  },
  'GET /api/verifier/presentations/:id': {
    records: [inPath("A's presentation (A is its holder and its verifier)", 'id', presentationOf)],
  },
  'POST /api/verifier/presentations/:id/verify': {
    records: [
      inPath("A's presentation", 'id', presentationOf, {
        body: (c) => ({ presentation_jwt: ids(c).presentation.jwt }),
      }),
    ],
  },
  'POST /api/verifier/presentations/:id/resend': { records: [inPath("A's presentation", 'id', presentationOf)] },
  'GET /api/verifier/:did/presentations': { own: 'lists the presentations sent to the caller' },
  'GET /api/verifier/verify/ipfs/:ipfs_hash': {
    own: 'the public facts of a CID (issuer, type, status, hash), as the public gateway and status list show them: the material stays sealed to its holder',
    call: (c) => params({ ipfs_hash: ids(c).credential.cid }),
  },

  // QR codes for the caller's own requests and offers.
  'POST /api/qr/presentation-request': {
    records: [
      {
        what: "A's presentation request",
        names: inboxOf,
        expect: 404,
        call: (c) => ({ body: { request_id: ids(c).presentationRequest } }),
      },
    ],
  },
  'POST /api/qr/credential-offer': {
    records: [{ what: "A's offer", names: offerOf, expect: 404, call: (c) => ({ body: { offer_id: ids(c).offer } }) }],
  },

  // The HEAD of the public GET /metrics is not in PUBLIC_ROUTES, so it asks for a token (see
  // "a HEAD route has the access of its GET" below): drop this row once the allow-list has it.
}

const keyOf = (r: { method: string; url: string }) => `${r.method} ${r.url}`
const isDocs = (url: string) => url === DOCS_PREFIX || url.startsWith(`${DOCS_PREFIX}/`)

/** The row of a user route: its own, or for a HEAD the row of its GET. */
function rowOf(route: RouteEntry): { row: RouteCase; viaGet: boolean } | undefined {
  const own = MATRIX[keyOf(route)]
  if (own) return { row: own, viaGet: false }
  const get = route.method === 'HEAD' ? MATRIX[`GET ${route.url}`] : undefined
  return get ? { row: get, viaGet: true } : undefined
}

function fill(url: string, values: Record<string, string>): string {
  return url
    .replace(/:([A-Za-z_]+)/g, (_, name: string) => {
      const value = values[name]
      if (value === undefined) throw new Error(`no value for :${name} in ${url}`)
      return encodeURIComponent(value)
    })
    .replace(/\*$/, 'x')
}

/** A made-up id of the same shape as a real one (same prefix and length, zeroed tail). */
const ghostOf = (id: string) => id.replace(/.{12}$/, '000000000000')

describe('authorization matrix: every route, derived from the route table', () => {
  let t: TestApp
  let routes: readonly RouteEntry[]
  const clock = new ManualClock(new Date())
  let ctx: Ctx
  let expiredToken: string
  let forgedToken: string
  let ttlMs: number
  /** A's own requests for its records, run after every route's negative cases. */
  const controls: Array<{ name: string; phase: number; run: () => Promise<void> }> = []

  before(async () => {
    const self: { app?: FastifyInstance } = {}
    t = await createTestApp({
      clock,
      // https, so the service speaks OpenID4VC too (its hosted wallet's exchanges are A's records).
      env: { PUBLIC_BASE_URL: 'https://service.test' },
      // Nothing leaves the machine: the owner's domain check finds no published token.
      httpGet: async (url) => ({ status: 404, headers: {}, body: new Uint8Array(), url }),
      // The hosted wallet's protocol calls reach this same service, in process.
      httpRequest: async (url, request) => {
        const target = new URL(url)
        if (target.origin !== 'https://service.test' || !self.app)
          return { status: 404, headers: {}, body: new Uint8Array(), url }
        const res = await self.app.inject({
          method: request.method as 'GET',
          url: `${target.pathname}${target.search}`,
          headers: request.headers,
          ...(request.body ? { payload: Buffer.from(request.body) } : {}),
        })
        return {
          status: res.statusCode,
          headers: res.headers as Record<string, string>,
          body: new Uint8Array(res.rawPayload),
          url,
        }
      },
      dns: {
        resolveTxt: async () => Promise.reject(Object.assign(new Error('queryTxt ENODATA'), { code: 'ENODATA' })),
      },
    })
    self.app = t.app
    routes = t.app.routeTable
    const w = await buildWorld(t.app, clock)
    ctx = { w, app: t.app, clock }
    ttlMs = (t.config.jwtTtlSeconds + 60) * 1000
    clock.advance(-ttlMs)
    expiredToken = await w.a.actor.login(t.app)
    clock.advance(ttlMs)
    const [header, payload, signature] = w.b.token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    forgedToken = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: w.a.did })).toString('base64url')}.${signature}`
  })
  after(() => t?.close())

  const send = async (
    method: string,
    url: string,
    call: Call,
    options: { token?: string; pathDid: string; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse> => {
    const values: Record<string, string> = { ...call.params }
    for (const name of ACTING_PARAMS) values[name] = options.pathDid
    const request: InjectOptions = {
      method: method as InjectOptions['method'],
      url: fill(url, values),
      headers: { ...(options.token ? bearer(options.token) : {}), ...options.headers, ...call.form?.headers },
    }
    if (call.form) request.payload = call.form.payload
    else if (call.body !== undefined) request.payload = call.body as object
    return t.app.inject(request)
  }

  /** An error answer: the status, and for anything but HEAD the error body with its message. */
  const refused = (res: LightMyRequestResponse, method: string, status: number, what: string) => {
    assert.equal(res.statusCode, status, `${what}: ${res.statusCode} ${res.body}`)
    if (method === 'HEAD') return
    const body = res.json()
    assert.equal(body.success, false, what)
    assert.ok(typeof body.message === 'string' && body.message.length > 0, `${what}: a message`)
    assert.ok(typeof body.code === 'string' && body.code.length > 0, `${what}: a code`)
  }

  it('files every registered route: public allow-list, docs, admin, or a row of the matrix', () => {
    const registered = new Set(routes.map(keyOf))
    const userRoutes = routes.filter((r) => accessOf(r.method, r.url) === 'user')
    assert.ok(userRoutes.length >= 80, `the route table lists the user routes (${userRoutes.length})`)
    assert.deepEqual(userRoutes.filter((r) => !rowOf(r)).map(keyOf), [], 'user routes with no row in MATRIX: add one')
    assert.deepEqual(
      Object.keys(MATRIX).filter((k) => !registered.has(k)),
      [],
      'MATRIX rows of routes that do not exist',
    )
    assert.deepEqual(
      Object.keys(MATRIX).filter(
        (k) => registered.has(k) && accessOf(k.split(' ')[0]!, k.slice(k.indexOf(' ') + 1)) !== 'user',
      ),
      [],
      'MATRIX rows of public or admin routes',
    )
    assert.deepEqual(
      [...PUBLIC_ROUTES].filter((k) => !registered.has(k)),
      [],
      'stale PUBLIC_ROUTES entries',
    )
    for (const r of routes) {
      const access = accessOf(r.method, r.url)
      if (access === 'admin') assert.ok(r.url.startsWith(ADMIN_PREFIX))
      if (access === 'client') assert.ok(r.url.startsWith(VC_API_PREFIX))
      if (access === 'public')
        assert.ok(
          PUBLIC_ROUTES.has(keyOf(r)) || isDocs(r.url),
          `${keyOf(r)} is public only through the allow-list or the docs prefix`,
        )
    }
    for (const [key, row] of Object.entries(MATRIX)) {
      assert.ok(
        (row.own === undefined) !== (row.records === undefined || row.records.length === 0),
        `${key}: either own (with its reason) or records`,
      )
      for (const rc of row.records ?? [])
        assert.ok(
          (rc.names === undefined) !== (rc.noGhost === undefined),
          `${key} (${rc.what}): names the record, or says why it cannot`,
        )
    }
  })

  it('a HEAD route has the access of its GET', () => {
    const mismatched = routes
      .filter((r) => r.method === 'HEAD' && routes.some((g) => g.method === 'GET' && g.url === r.url))
      .filter((r) => accessOf('HEAD', r.url) !== accessOf('GET', r.url))
      .map(keyOf)
    assert.deepEqual(mismatched, [])
  })

  it("the expired token is A's real token, refused only for its age", async () => {
    clock.advance(-ttlMs)
    try {
      const then = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(expiredToken) })
      assert.equal(then.statusCode, 200, then.body)
      assert.equal(then.json().user.did, ctx.w.a.did)
    } finally {
      clock.advance(ttlMs)
    }
    const now = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(expiredToken) })
    refused(now, 'GET', 401, 'expired token')
    const fresh = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(ctx.w.a.token) })
    assert.equal(fresh.statusCode, 200, "A's current token works")
  })

  it("user routes: 401 without a valid token, 403 for another DID, the status of DESIGN.md for another user's record", async (tc) => {
    const { a, b } = ctx.w
    for (const route of routes) {
      if (accessOf(route.method, route.url) !== 'user') continue
      const found = rowOf(route)
      if (!found) continue // reported by the coverage test
      const { row } = found
      const { method, url } = route
      const build: Build = row.call ?? row.records?.[0]?.call ?? (() => ({}))
      const actingParams = ACTING_PARAMS.filter((p) => url.includes(`:${p}`))

      await tc.test(keyOf(route), async () => {
        const asA = await build(ctx, a)
        refused(await send(method, url, asA, { pathDid: a.did }), method, 401, 'no Authorization header')
        refused(await send(method, url, asA, { pathDid: a.did, token: expiredToken }), method, 401, 'expired token')
        refused(
          await send(method, url, asA, { pathDid: a.did, token: forgedToken }),
          method,
          401,
          "B's token claiming A's DID",
        )
        refused(
          await send(method, url, asA, { pathDid: a.did, token: ctx.w.ids.vcApiClient.token }),
          method,
          401,
          "A's VC API access token instead of a session token",
        )

        const asB = await build(ctx, b)
        if (actingParams.length)
          refused(
            await send(method, url, asB, { pathDid: a.did, token: b.token }),
            method,
            403,
            `B's token on A's :${actingParams.join(', :')}`,
          )
        if (row.actingBody && !found.viaGet)
          refused(
            await send(method, url, await row.actingBody(ctx, b, a.did), { pathDid: b.did, token: b.token }),
            method,
            403,
            "A's DID as the body's acting DID",
          )
        refused(
          await send(method, url, asB, { pathDid: b.did, token: b.token, headers: { 'x-user-did': a.did } }),
          method,
          403,
          'X-User-DID naming A',
        )

        if (row.own !== undefined) {
          const res = await send(method, url, await build(ctx, b), {
            pathDid: b.did,
            token: b.token,
            headers: { 'x-user-did': b.did },
          })
          assert.ok(
            ![401, 403].includes(res.statusCode) && res.statusCode !== 500,
            `B acting as itself gets past authorization: ${res.statusCode} ${res.body}`,
          )
          return
        }

        for (const rc of row.records ?? []) {
          const call = await rc.call(ctx, b)
          const res = await send(method, url, call, { pathDid: b.did, token: b.token })
          refused(res, method, rc.expect, `B naming ${rc.what}`)
          const named = rc.names?.(ctx)
          if (named !== undefined) {
            if (Object.values(call.params ?? {}).includes(named))
              assert.equal(
                rc.expect,
                404,
                `${rc.what}: a record addressed in the path answers 404 (DESIGN.md "Ownership")`,
              )
            const text = JSON.stringify(call)
            assert.ok(text.includes(named), `${rc.what}: the request names A's record`)
            const ghostId = ghostOf(named)
            const ghost = await send(method, url, JSON.parse(text.replaceAll(named, ghostId)) as Call, {
              pathDid: b.did,
              token: b.token,
            })
            assert.equal(
              ghost.statusCode,
              res.statusCode,
              `${rc.what}: A's record answers like a made-up id (${ghost.body} / ${res.body})`,
            )
            if (method !== 'HEAD') {
              const [mine, made] = [res.json(), ghost.json()]
              assert.equal(made.code, mine.code, rc.what)
              assert.equal(
                made.message.replaceAll(ghostId, '<id>'),
                mine.message.replaceAll(named, '<id>'),
                `${rc.what}: the same message`,
              )
            }
          }
          if (found.viaGet || typeof rc.control === 'object') continue
          const expected = rc.control
          controls.push({
            name: `${keyOf(route)}: A reaches ${rc.what}`,
            phase: method === 'DELETE' ? 2 : /\/(revoke|reject)$/.test(url) ? 1 : 0,
            run: async () => {
              const mine = await send(method, url, await rc.call(ctx, a), { pathDid: a.did, token: a.token })
              if (expected !== undefined) assert.equal(mine.statusCode, expected, mine.body)
              else
                assert.ok(
                  mine.statusCode < 400 || mine.statusCode === 409 || mine.statusCode === 422,
                  `${mine.statusCode} ${mine.body}`,
                )
            },
          })
        }
      })
    }
  })

  it("the owner reaches each record named above, so B's answers come from ownership", async (tc) => {
    assert.ok(controls.length >= 30, `controls were collected (${controls.length})`)
    // Revocations and rejections after the rest, deletions last: they change or remove records other controls address.
    for (const control of [...controls].sort((x, y) => x.phase - y.phase)) await tc.test(control.name, control.run)
  })

  it('admin routes: 401 without the admin key, with a wrong one, or with a user token instead', async (tc) => {
    const admin = routes.filter((r) => accessOf(r.method, r.url) === 'admin')
    assert.ok(admin.length >= 4, 'the admin routes are registered')
    for (const { method, url } of admin) {
      await tc.test(`${method} ${url}`, async () => {
        const call: Call = method === 'POST' ? { body: {} } : {}
        const did = ctx.w.a.did
        refused(await send(method, url, call, { pathDid: did }), method, 401, 'no admin key')
        refused(
          await send(method, url, call, { pathDid: did, headers: { 'x-admin-key': `${ADMIN_KEY}-wrong` } }),
          method,
          401,
          'a wrong admin key',
        )
        refused(
          await send(method, url, call, { pathDid: did, token: ctx.w.a.token }),
          method,
          401,
          'a user token instead of the admin key',
        )
        refused(
          await send(method, url, call, { pathDid: did, token: ctx.w.ids.vcApiClient.token }),
          method,
          401,
          'a VC API access token instead of the admin key',
        )
        // With the key the request gets past the guard (an empty POST body is then a 400, nothing changes).
        const res = await send(method, url, call, { pathDid: did, headers: { 'x-admin-key': ADMIN_KEY } })
        assert.ok(
          ![401, 403, 404].includes(res.statusCode) && res.statusCode < 500,
          `with the admin key: ${res.statusCode} ${res.body}`,
        )
      })
    }
  })

  it("VC API routes: 401 without a token, with a session token, a made-up token or the admin key; an access token of an issuer's client gets past the guard", async (tc) => {
    const client = routes.filter((r) => accessOf(r.method, r.url) === 'client')
    assert.ok(client.length >= 4, `the VC API routes are registered (${client.length})`)
    const vcApiToken = ctx.w.ids.vcApiClient.token
    // The path names A's own issuer instance (the web id in the endpoints A's client was given).
    const instance = /\/issuers\/([^/]+)\//.exec(String(ctx.w.ids.vcApiClient.endpoints.status))![1]!
    for (const { method, url } of client) {
      await tc.test(`${method} ${url}`, async () => {
        const call: Call = {
          params: { issuer_id: instance, format: 'eddsa-rdfc-2022' },
          ...(method === 'POST' ? { body: {} } : {}),
        }
        const did = ctx.w.a.did
        refused(await send(method, url, call, { pathDid: did }), method, 401, 'no token')
        refused(await send(method, url, call, { pathDid: did, token: ctx.w.a.token }), method, 401, "A's session token")
        refused(
          await send(method, url, call, { pathDid: did, token: expiredToken }),
          method,
          401,
          "A's expired session token",
        )
        refused(
          await send(method, url, call, { pathDid: did, token: `${vcApiToken.slice(0, -4)}AAAA` }),
          method,
          401,
          'a made-up access token',
        )
        refused(
          await send(method, url, call, { pathDid: did, headers: { 'x-admin-key': ADMIN_KEY } }),
          method,
          401,
          'the admin key',
        )
        // With the access token the request gets past the guard (the empty body is then a 400).
        const res = await send(method, url, call, { pathDid: did, token: vcApiToken })
        assert.ok(
          ![401, 403].includes(res.statusCode) && res.statusCode < 500,
          `with the access token: ${res.statusCode} ${res.body}`,
        )
      })
    }
  })

  it('public routes answer without a token', async (tc) => {
    const open = routes.filter((r) => accessOf(r.method, r.url) === 'public')
    assert.ok(open.length >= PUBLIC_ROUTES.size, 'every allow-listed route is registered')
    for (const { method, url } of open) {
      await tc.test(`${method} ${url}`, async () => {
        const values = Object.fromEntries(
          [...url.matchAll(/:([A-Za-z_]+)/g)].map(([, name]) => [name!, /did/i.test(name!) ? ctx.w.a.did : 'x']),
        )
        const res = await t.app.inject({
          method: method as InjectOptions['method'],
          url: fill(url, values),
          ...(method === 'POST' ? { payload: {} } : {}),
        })
        assert.ok(![401, 403].includes(res.statusCode), `${res.statusCode} ${res.body.slice(0, 200)}`)
      })
    }
  })
})
