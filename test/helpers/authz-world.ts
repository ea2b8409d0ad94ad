import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Clock } from '../../src/adapters/clock.js'
import { bearer } from './did-client.js'
import { signPresentation } from './holder-wallet.js'
import { IssuerActor } from './issuer-setup.js'
import { multipart, PDF_BYTES } from './wallet-fixtures.js'

/**
 * The world the authorization matrix probes: user A owns one record of every kind a route can
 * address (as issuer, holder and verifier at once), user B is a second signed-in user with its
 * own issuer and verifier profiles (so B's 404 on A's record comes from the record check, not
 * from "B has no profile"), its own schema, and one presentation request in its own inbox.
 * Everything is made over HTTP, the way clients make it.
 */
export const WORLD_SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [
    { name: 'holder_name', data_type: 'string', required: true },
    { name: 'level', data_type: 'number' },
  ],
  evidence_allowed: true,
  allowed_evidence: ['transcript'],
  // JWT-VC only: no BBS work while seeding; the matrix needs the records, not their proofs.
  anonymous_credentials: false,
} as const

export interface Party {
  readonly actor: IssuerActor
  readonly did: string
  readonly token: string
}

export interface OwnedRecords {
  schema: string
  template: string
  /** An offer addressed to A alone (subject_did = A). */
  offer: string
  /** A credential A issued to itself: A's issued record and A's wallet entry. */
  credential: { id: string; jwt: string; hash: string; cid: string }
  /** A's request (as holder) to A (as issuer), still pending. */
  credentialRequest: string
  consent: string
  share: string
  evidence: string
  preset: string
  /** A's presentation request A (as holder) took into its inbox and approved. */
  presentationRequest: string
  /** A second pending request of A's that B took into B's inbox. */
  openRequest: string
  presentation: { id: string; jwt: string }
  domainChallenge: { id: string; domain: string }
  /**
   * A's W3C VC API clients: `id` the one the matrix revokes; `token` an access token (OAuth 2.0
   * client credentials) of another, still valid after that, and the endpoints it was given.
   */
  vcApiClient: { id: string; token: string; endpoints: Record<string, unknown> }
  /**
   * A's hosted-wallet exchanges, prepared and waiting for A's signature: an acceptance of an
   * OpenID4VCI offer (this service's own, reached through the app's outgoing edge) and an answer
   * to an OpenID4VP request of A's, from A's credential.
   */
  walletExchanges: {
    acceptance: { id: string; signingInput: string }
    answer: { id: string; queryId: string; signingInput: string }
  }
}

export interface World {
  a: Party
  b: Party
  /** A's records. */
  ids: OwnedRecords
  /** B's own schema, for requests that need one of B's next to one of A's. */
  bSchema: string
}

type Json = Record<string, unknown>

async function expectStatus(app: FastifyInstance, what: string, status: number, request: InjectOptions): Promise<Json> {
  const res = await app.inject(request)
  if (res.statusCode !== status) throw new Error(`seeding ${what}: ${res.statusCode} ${res.body}`)
  return res.json()
}

export async function buildWorld(app: FastifyInstance, clock: Clock): Promise<World> {
  const a = await new IssuerActor().setUp(app, 'Owner A')
  const b = await new IssuerActor().setUp(app, 'Other B')
  const post = (who: IssuerActor, url: string, payload: object, what: string, status = 201) =>
    expectStatus(app, what, status, { method: 'POST', url, headers: bearer(who.token), payload })

  for (const who of [a, b])
    await post(who, '/api/verifier', { name: `Verifier ${who === a ? 'A' : 'B'}` }, 'verifier profile')
  const schema = await a.schema(app, WORLD_SCHEMA)
  const bSchema = await b.schema(app, WORLD_SCHEMA)

  const template = (
    await post(
      a,
      `/api/issuer/${a.did}/templates`,
      { name: 'Pass template', credential_type: 'Pass', schema_id: schema, fixed_attributes: { level: 1 } },
      'template',
    )
  ).template as Json
  const offer = (
    await post(
      a,
      `/api/issuer/${a.did}/offers`,
      { credential_type: 'Pass', schema_id: schema, subject_did: a.did },
      'offer',
    )
  ).offer as Json
  const issued = (
    await post(
      a,
      `/api/issuer/${a.did}/issue`,
      { credential_type: 'Pass', schema_id: schema, subject_did: a.did, attributes: { holder_name: 'Ada', level: 2 } },
      'issue',
    )
  ).credential as Json
  const credential = {
    id: issued.id as string,
    jwt: issued.jwt as string,
    hash: issued.credential_hash as string,
    cid: issued.ipfs_hash as string,
  }
  const request = (
    await post(
      a,
      '/api/wallet/credential-request',
      { issuer_did: a.did, schema_id: schema, credential_type: 'Pass', attributes: { holder_name: 'Ada' } },
      'credential request',
    )
  ).request as Json
  const consent = (
    await post(a, `/api/wallet/${a.did}/consents`, { verifier_did: b.did, purpose: 'Employment check' }, 'consent')
  ).consent as Json
  const share = (await post(a, `/api/wallet/${a.did}/credentials/share`, { credential_id: credential.id }, 'share'))
    .share as Json
  const upload = multipart([
    { name: 'label', value: 'transcript' },
    { name: 'file', filename: 'transcript.pdf', contentType: 'application/pdf', data: PDF_BYTES },
  ])
  const evidence = (
    await expectStatus(app, 'evidence', 201, {
      method: 'POST',
      url: `/api/wallet/${a.did}/evidence/upload`,
      headers: { ...upload.headers, ...bearer(a.token) },
      payload: upload.payload,
    })
  ).record as Json
  const definition = {
    presentation_type: 'PassCheck',
    required_credentials: [{ credential_type: 'Pass', issuer_did: a.did }],
    purpose: 'Check the pass',
  }
  const preset = (await post(a, `/api/verifier/${a.did}/presets`, { name: 'Pass check', ...definition }, 'preset'))
    .preset as Json
  const answered = await post(
    a,
    '/api/verifier/requests',
    { verifier_did: a.did, ...definition },
    'presentation request',
  )
  const open = await post(
    a,
    '/api/verifier/requests',
    { verifier_did: a.did, ...definition },
    'second presentation request',
  )
  const answeredRequest = answered.request as Json
  const openRequest = open.request as Json

  await post(a, '/api/wallet/presentation-requests', { request_id: answeredRequest.id }, 'take request')
  await post(b, '/api/wallet/presentation-requests', { request_id: openRequest.id }, 'B takes request')
  const now = Math.floor(clock.now().getTime() / 1000)
  const vp = signPresentation(a, {
    aud: a.did,
    nonce: answeredRequest.nonce as string,
    credentials: [credential.jwt],
    iat: now,
    exp: now + 3600,
  })
  const presentation = (
    await post(
      a,
      `/api/wallet/presentation-requests/${answeredRequest.id as string}/approve`,
      { credential_ids: [credential.id], presentation_jwt: vp },
      'approve',
    )
  ).presentation as Json

  const revocable = (
    await post(a, `/api/issuer/${a.did}/vc-api/clients`, { name: 'Matrix client to revoke' }, 'VC API client')
  ).client as Json
  const client = (await post(a, `/api/issuer/${a.did}/vc-api/clients`, { name: 'Matrix client' }, 'VC API client'))
    .client as Json
  const granted = await expectStatus(app, 'VC API token', 200, {
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.client_id as string,
      client_secret: client.client_secret as string,
    }).toString(),
  })

  // The hosted wallet's exchanges need an https service (OpenID4VC is served on https only).
  const walletOffer = await post(
    a,
    `/api/issuer/${a.did}/offers`,
    { credential_type: 'Pass', schema_id: schema, attributes: { holder_name: 'Ada', level: 3 }, format: 'jwt_vc_json' },
    'OpenID4VCI offer',
  )
  const acceptance = await post(
    a,
    `/api/wallet/${a.did}/offers/accept`,
    { offer_uri: walletOffer.credential_offer_uri as string },
    'offer acceptance',
  )
  const walletRequest = await post(
    a,
    '/api/verifier/requests',
    { verifier_did: a.did, ...definition },
    'OpenID4VP request',
  )
  const answer = await post(
    a,
    `/api/wallet/${a.did}/presentation-requests/answer`,
    { authorization_request_uri: walletRequest.authorization_request_uri as string },
    'presentation answer',
  )
  const answered1 = (answer.presentations as Json[])[0]!

  const domain = 'owner-a.example.com'
  const challenge = (await post(a, '/api/domain/challenge', { did: a.did, domain }, 'domain challenge'))
    .challenge as Json

  return {
    a: { actor: a, did: a.did, token: a.token },
    b: { actor: b, did: b.did, token: b.token },
    bSchema,
    ids: {
      schema,
      template: template.id as string,
      offer: offer.id as string,
      credential,
      credentialRequest: request.id as string,
      consent: consent.id as string,
      share: share.id as string,
      evidence: evidence.id as string,
      preset: preset.id as string,
      presentationRequest: answeredRequest.id as string,
      openRequest: openRequest.id as string,
      presentation: { id: presentation.id as string, jwt: vp },
      domainChallenge: { id: challenge.id as string, domain },
      vcApiClient: {
        id: revocable.client_id as string,
        token: granted.access_token as string,
        endpoints: client.endpoints as Record<string, unknown>,
      },
      walletExchanges: {
        acceptance: {
          id: acceptance.session_id as string,
          signingInput: (acceptance.proof as Json).signing_input as string,
        },
        answer: {
          id: answer.session_id as string,
          queryId: answered1.query_id as string,
          signingInput: (answered1.to_sign as Json).signing_input as string,
        },
      },
    },
  }
}
